"""A corner shop's orders, driven by the machine generated from spec/ORDERS.md.

The spec says when an order may be paid, packed, delivered or cancelled; this program
says what "card authorised" or "pack the bag" mean for the shop: the generated `Model`
lists each guard and callback as a method to define, and `build(model)` makes the
`transitions` machine that calls them. Run it from this folder: `python shop.py`.
"""

from __future__ import annotations

from typing import Any

from generated.orders import Model, build


class Order(Model):
    """One order: a basket, a card, and what the shop did with them."""

    def __init__(self, basket: list[str], card_ok: bool, shelf: set[str]) -> None:
        super().__init__()
        self.basket = basket
        self.card_ok = card_ok
        self.shelf = shelf
        self.home = False
        self.done: list[str] = []

    # The guards: each answers one phrase of the spec's conditions.
    def card_authorised(self, *args: Any, **kwargs: Any) -> bool:
        return self.card_ok

    def basket_empty(self, *args: Any, **kwargs: Any) -> bool:
        return not self.basket

    def every_item_on_the_shelf(self, *args: Any, **kwargs: Any) -> bool:
        return all(item in self.shelf for item in self.basket)

    def customer_at_home(self, *args: Any, **kwargs: Any) -> bool:
        return self.home

    # The callbacks: each does one phrase of the spec's actions, after its transition.
    def charge_the_card(self, *args: Any, **kwargs: Any) -> None:
        self.done.append(f"charged {len(self.basket)} items")

    def send_a_receipt(self, *args: Any, **kwargs: Any) -> None:
        self.done.append("receipt sent")

    def tell_the_customer_the_card_was_declined(self, *args: Any, **kwargs: Any) -> None:
        self.done.append("card declined")

    def pack_the_bag(self, *args: Any, **kwargs: Any) -> None:
        self.done.append("packed")

    def offer_a_substitute(self, *args: Any, **kwargs: Any) -> None:
        missing = [item for item in self.basket if item not in self.shelf]
        self.done.append(f"substitute offered for {', '.join(missing)}")
        self.basket = [item for item in self.basket if item in self.shelf]

    def thank_the_customer(self, *args: Any, **kwargs: Any) -> None:
        self.done.append("thanked")

    def leave_a_card_through_the_door(self, *args: Any, **kwargs: Any) -> None:
        self.done.append("card left")

    def refund_the_card(self, *args: Any, **kwargs: Any) -> None:
        self.done.append("refunded")


def main() -> list[str]:
    order = Order(["bread", "milk", "figs"], card_ok=True, shelf={"bread", "milk"})
    build(order)
    story = []
    for step in ("pay", "pack", "pack", "deliver", "deliver", "cancel"):
        if step == "deliver" and order.state == "PACKED" and order.done[-1] == "card left":
            order.home = True  # the next day
        moved = order.trigger(step)
        rule = order.fired or order.refused
        story.append(f"{step}: {'done' if moved else 'refused'} by {rule}, now {order.state}")
    return story + order.done


if __name__ == "__main__":
    print("\n".join(main()))
