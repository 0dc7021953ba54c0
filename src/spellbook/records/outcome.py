"""What a cast did (`CastResult`, `Done`, `Did`) and what a spell would do now (`Preview`)."""

from __future__ import annotations

from spellbook.schema import _Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from spellbook.schema import Rule


class CastResult:
    """What one cast did: the rule that fired (or None), its outcome, the states, the response.

    `outcome` is "transition" (the state changed), "noop" (it did not, and the spell
    was not refused), "blocked" (the spec refuses the spell here) or "unhandled"
    (no rule covers the files as they are).
    """

    __slots__ = (
        "spell",
        "rule",
        "outcome",
        "before",
        "after",
        "response",
        "archive",
        "notes",
        "cast",
    )

    def __init__(
        self,
        spell: str,
        rule: str | None,
        outcome: str,
        before: str,
        after: str,
        response: str,
        archive: str = "",
        notes: tuple[str, ...] = (),
        cast: str = "",
    ) -> None:
        self.spell = spell
        self.rule = rule
        self.outcome = outcome
        self.before = before
        self.after = after
        self.response = response
        self.archive = archive
        self.notes = notes
        self.cast = cast  # the id of its history entry

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __repr__(self) -> str:
        return (
            f"CastResult({self.spell} in {self.before}: {self.outcome} by {self.rule} "
            f"-> {self.after})"
        )


def outcome_of(rule: Rule) -> str:
    """The outcome of a cast whose rule is `rule`, as `CastResult.outcome` says it."""
    if rule.kind == "blocked":
        return "blocked"
    return "transition" if rule.changes_state else "noop"


class Did(_Record):
    """What one file action of a cast did (or, planned for a preview, would do):
    `action` is its index in the rule's actions; `verb` is create, archive or delete;
    `files` are the files it acted on, `absent` those it names that were not there
    (for create: there already, so kept); `folder` is where archived or deleted
    files went ("" if none was made); `to` is where each of `files` went, for a verb
    that moves them (archive, delete, move): in `folder`, each under its own name unless
    two of them share it (`notes.md`, `notes-2.md`)."""

    __slots__ = ("action", "verb", "files", "absent", "folder", "to")

    def __init__(
        self,
        action: int,
        verb: str,
        files: tuple[str, ...] = (),
        absent: tuple[str, ...] = (),
        folder: str = "",
        to: tuple[str, ...] = (),
    ) -> None:
        self.action = action
        self.verb = verb
        self.files = files
        self.absent = absent
        self.folder = folder
        self.to = to


class Done:
    """What a rule's actions did, for its response: `did` holds each file action's
    outcome in the spec's order."""

    def __init__(self) -> None:
        self.archive_path = ""
        self.contents: dict[str, str | None] = {}
        self.notes: list[str] = []
        self.did: list[Did] = []


class Preview(_Record):
    """What casting a spell would do now, told without casting it. Its `kind`:

    - "rule": `rule` would win, told as the spec declares it;
    - "planned": `rule` would win, told (`words`) from the plan its cast would make
      with the files as they are: what it would really create, archive or delete;
    - "refused": its cast would be refused with nothing changed (`why`: a value its
      actions need is unusable, say); `rule`, if any, would win once that is put right;
    - "unknown": it cannot be told (`why`): a condition the spec does not define, or a
      file it reads that cannot be read;
    - "depends": it depends on a command's outcome (`fact`), which a preview never runs;
    - "uncovered": no rule of the spec is for it in the state (a gap of the spec): its
      cast changes nothing (unhandled).

    `words` is what it says, except for "rule", which the machine's `Writer` says.
    """

    __slots__ = ("kind", "rule", "words", "why", "fact")

    def __init__(
        self,
        kind: str,
        rule: Rule | None = None,
        words: str = "",
        why: str = "",
        fact: tuple[str, str, str] = ("", "", ""),
    ) -> None:
        self.kind = kind
        self.rule = rule
        self.words = words
        self.why = why
        self.fact = fact

    @classmethod
    def of(cls, rule: Rule) -> Preview:
        return cls("rule", rule)

    @classmethod
    def planned(cls, rule: Rule, words: str) -> Preview:
        return cls("planned", rule, words)

    @classmethod
    def refused(cls, why: str, rule: Rule | None = None) -> Preview:
        return cls("refused", rule, f"refused now: {why}", why)

    @classmethod
    def unknown(cls, why: str) -> Preview:
        return cls("unknown", None, f"cannot tell: {why}", why)

    @classmethod
    def depends(cls, fact: tuple[str, str, str], said: str) -> Preview:
        return cls("depends", None, f"depends on whether {said}: cast it to find out", fact=fact)

    @classmethod
    def uncovered(cls, state: str) -> Preview:
        return cls("uncovered", None, f"nothing: the spec has no rule for it in **{state}**")

    @property
    def wins(self) -> Rule | None:
        """The rule that would win now, where that can be told and its cast would go on."""
        return self.rule if self.kind in ("rule", "planned") else None

    @property
    def offered(self) -> bool:
        """Whether it is a next step: it moves the workflow on (or may: it depends on a
        command's outcome), and its cast would not be refused."""
        if self.kind == "depends":
            return True
        return self.wins is not None and self.wins.changes_state

    @property
    def cannot_tell(self) -> bool:
        """Whether it says the spell cannot be told now, or that its cast would be
        refused: what stops it may be put right outside the workspace (a vocabulary
        installed, a file made readable), so it is never kept."""
        return self.kind in ("refused", "unknown")
