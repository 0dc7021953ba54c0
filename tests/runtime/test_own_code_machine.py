"""A generated machine whose guards and callbacks are the project's own code
(`own_code = true`): its `Model` lists them as methods, `build(model)` wires them into
`transitions` and names a missing one at build time, and `spell` refuses to drive it."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from codegen import parse_spec_text
from codegen.read.lexicon import ReadOptions
from codegen.render import render_machine
from spellbook.doors.repository import OwnCodeMachine, drivable
from spellbook.records.exits import EXIT_BAD_INPUT
from spellbook.schema import MissingCode
from tests.cli.test_project_machines import spell

SPEC = """\
# Parcel lockers

### Spells

1. **Drop**
2. **Collect**

### States

1. **EMPTY**
    - *Description*: no parcel inside
    - *Valid Actions*: Drop, Collect
2. **FULL**
    - *Description*: a parcel waits
    - *Valid Actions*: Drop, Collect
    - *Goal*: yes

### Transitions

| ID | Current State | Trigger | Condition | Next State | Action | Response |
|----|---------------|---------|-----------|------------|--------|----------|
| D1 | EMPTY | Drop | parcel fits; door closes | FULL | text the recipient; log the drop | Dropped |
| D2 | EMPTY | Drop | parcel too big | Same state | suggest a bigger locker | Too big |
| D3 | EMPTY | Drop | parcel fits AND door jams | [BLOCKED] | - | Door jammed |
| D4 | FULL | Drop | - | [BLOCKED] | - | Occupied |
| C1 | FULL | Collect | code matches | EMPTY | log the collection | Collected |
| C2 | FULL | Collect | code is not right | [BLOCKED] | - | Wrong code |
| C3 | EMPTY | Collect | - | [BLOCKED] | - | Nothing here |

### Terms

| Phrase | Means |
|--------|-------|
| parcel too big | NOT parcel fits |
| door jams | NOT door closes |
| code is not right | NOT code matches |
"""
METHODS = (
    "parcel_fits",
    "door_closes",
    "code_matches",
    "text_the_recipient",
    "log_the_drop",
    "suggest_a_bigger_locker",
    "log_the_collection",
)


def generated(folder: Path, text: str = SPEC) -> Path:
    spec = parse_spec_text(text, "spec/LOCKER.md", options=ReadOptions(own_code=True))
    path = folder / "locker.py"
    path.write_text(render_machine(spec, "locker"), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def locker(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    path = generated(tmp_path_factory.mktemp("locker"))
    found = importlib.util.spec_from_file_location("_own_code_locker", path)
    assert found is not None and found.loader is not None
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module


def model_class(locker: ModuleType) -> type[Any]:
    class Locker(locker.Model):  # type: ignore[name-defined,misc]
        def __init__(self) -> None:
            super().__init__()
            self.fits = True
            self.closes = True
            self.code = "1234"
            self.typed = ""
            self.log: list[str] = []

        def parcel_fits(self, *args: Any, **kwargs: Any) -> bool:
            return self.fits

        def door_closes(self, *args: Any, **kwargs: Any) -> bool:
            return self.closes

        def code_matches(self, *args: Any, **kwargs: Any) -> bool:
            return self.typed == self.code

        def text_the_recipient(self, *args: Any, **kwargs: Any) -> None:
            self.log.append(f"text {self.code}")

        def log_the_drop(self, *args: Any, **kwargs: Any) -> None:
            self.log.append(f"dropped in {self.state}")

        def suggest_a_bigger_locker(self, *args: Any, **kwargs: Any) -> None:
            self.log.append("bigger")

        def log_the_collection(self, *args: Any, **kwargs: Any) -> None:
            self.log.append("collected")

    return Locker


def test_the_model_lists_each_guard_and_callback_with_the_spec_s_words(
    locker: ModuleType,
) -> None:
    assert tuple(locker.OWN_CODE) == METHODS
    assert locker.OWN_CODE["parcel_fits"] == ("D1", "D2", "D3")
    assert locker.Model.parcel_fits.__doc__ == (
        "Whether parcel fits (not: parcel too big). Rows D1, D2, D3."
    )
    assert locker.Model.text_the_recipient.__doc__ == "Text the recipient. Row D1."
    assert all(getattr(locker.Model, m).__isabstractmethod__ for m in METHODS)


def test_guards_decide_and_callbacks_run_through_transitions(locker: ModuleType) -> None:
    model = model_class(locker)()
    locker.build(model)
    model.fits = False
    assert model.may_drop() and model.log == []  # asking calls no callback
    assert model.drop() and model.fired == "D2" and model.state == "EMPTY"
    assert model.log == ["bigger"]
    model.fits, model.closes = True, False
    assert not model.drop() and model.refused == "D3" and model.state == "EMPTY"
    model.closes = True
    assert model.drop() and model.fired == "D1" and model.state == "FULL"
    # after the transition, in the row's order
    assert model.log == ["bigger", "text 1234", "dropped in FULL"]
    model.typed = "0000"
    assert not model.collect() and model.refused == "C2" and model.state == "FULL"
    model.typed = "1234"
    assert model.collect() and model.state == "EMPTY" and model.log[-1] == "collected"


def test_a_missing_method_is_named_at_build_time_with_the_rows_that_need_it(
    locker: ModuleType,
) -> None:
    class Partial(model_class(locker)):  # type: ignore[misc]
        code_matches = locker.Model.code_matches  # left abstract
        log_the_drop = None

    with pytest.raises(MissingCode) as raised:
        locker.build(Partial())
    said = str(raised.value)
    assert "code_matches (rows C1, C2)" in said
    assert "log_the_drop (row D1)" in said
    assert "parcel_fits" not in said


@pytest.mark.timeout(600)
def test_the_generated_module_passes_mypy_strict(tmp_path: Path) -> None:
    path = generated(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / ".mypy"), path],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_machine_without_own_code_generates_no_own_model(tmp_path: Path) -> None:
    text = SPEC.replace("parcel fits; door closes", "-").split("| D2 |")[0] + (
        "| D4 | FULL | Drop | - | [BLOCKED] | - | Occupied |\n"
        "| C1 | FULL | Collect | - | EMPTY | - | Collected |\n"
        "| C3 | EMPTY | Collect | - | [BLOCKED] | - | Nothing here |\n"
    )
    text = text.replace("text the recipient; log the drop", "-")
    source = generated(tmp_path, text).read_text(encoding="utf-8")
    assert "OWN_CODE" not in source and "abstractmethod" not in source
    assert "NO_FACTS" not in source


def test_spell_refuses_a_machine_of_the_project_s_own_code(
    locker: ModuleType, tmp_path: Path
) -> None:
    with pytest.raises(OwnCodeMachine, match="drive it through its generated build"):
        drivable(locker, "locker")
    project = tmp_path / "lockers"
    (project / "spec").mkdir(parents=True)
    (project / ".git").mkdir()
    (project / "spec" / "LOCKER.md").write_text(SPEC, encoding="utf-8")
    (project / "pyproject.toml").write_text(
        "[tool.spellbook]\nown_code = true\n\n"
        '[tool.spellbook.machines]\nlocker = "spec/LOCKER.md"\n',
        encoding="utf-8",
    )
    (project / "generated").mkdir()
    generated(project / "generated")
    for args in (("status",), ("--machine", "locker", "drop"), ("--machine", "locker", "diagram")):
        done = spell(project, *args)
        assert done.returncode == EXIT_BAD_INPUT, done.stdout + done.stderr
        assert "the machine locker has guards and callbacks of the project's own code" in (
            done.stderr
        )
        assert "Traceback" not in done.stderr


# A table as people write them: From | To | Event, with the project's columns for its
# guards and effects, and transitions not listed rejected.
LOANS = """\
# Library loans

| From | To | Event | Guard | Effects |
|------|----|-------|-------|---------|
| on shelf | on loan | lend | member in good standing | stamp the card; email the due date |
| on shelf | on shelf | lend | {refused} | ask for the fines |
| on loan | on shelf | return | - | thank the member |
"""
LOANS_OPTIONS = ReadOptions(
    own_code=True,
    unlisted="rejected",
    columns=(("condition", ("Guard",)), ("action", ("Effects",))),
)


def test_a_from_to_event_table_s_own_guards_drive_a_typed_model(tmp_path: Path) -> None:
    from codegen.analyse import analyse

    text = LOANS.format(refused="not member in good standing")
    spec = parse_spec_text(text, "spec/LOANS.md", options=LOANS_OPTIONS)
    assert not [f for f in analyse(spec) if f.severity.value != "info"]
    path = tmp_path / "loans.py"
    path.write_text(render_machine(spec, "loans"), encoding="utf-8")
    # The project's code asks the state as `transitions` binds it, typed: `is_<state>()`.
    (tmp_path / "desk.py").write_text(
        "from loans import Model\n\n\ndef lent(loan: Model) -> bool:\n"
        "    return loan.is_on_loan() and not loan.is_on_shelf()\n",
        encoding="utf-8",
    )
    mypy = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "c")]
    checked = subprocess.run(
        [*mypy, str(path), str(tmp_path / "desk.py")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    found = importlib.util.spec_from_file_location("_own_code_loans", path)
    assert found is not None and found.loader is not None
    loans = importlib.util.module_from_spec(found)
    found.loader.exec_module(loans)

    class Loan(loans.Model):  # type: ignore[name-defined,misc]
        def __init__(self) -> None:
            super().__init__()
            self.good = False
            self.done: list[str] = []

        def member_in_good_standing(self, *args: Any, **kwargs: Any) -> bool:
            return self.good

        def stamp_the_card(self, *args: Any, **kwargs: Any) -> None:
            self.done.append("stamped")

        def email_the_due_date(self, *args: Any, **kwargs: Any) -> None:
            self.done.append("emailed")

        def ask_for_the_fines(self, *args: Any, **kwargs: Any) -> None:
            self.done.append("fines")

    with pytest.raises(MissingCode, match=r"thank_the_member \(row R3\)"):
        loans.build(Loan())

    class Kept(Loan):
        def thank_the_member(self, *args: Any, **kwargs: Any) -> None:
            self.done.append("thanks")

    loan = Kept()
    loans.build(loan)
    assert loan.lend() and loan.state == "on_shelf" and loan.done == ["fines"]
    assert loans.TRIGGERS["return_"] == "return_"  # the name the reading gave it
    give_back = loan.return_
    assert not give_back() and loan.state == "on_shelf"  # not listed: rejected
    loan.good = True
    assert loan.lend() and loan.state == "on_loan" and loan.is_on_loan()
    assert loan.done == ["fines", "stamped", "emailed"]


def test_a_gap_between_two_guards_of_a_from_to_event_table_is_found(tmp_path: Path) -> None:
    from codegen.analyse import analyse

    text = LOANS.format(refused="member owes fines")
    strict = replace(LOANS_OPTIONS, unlisted="")
    spec = parse_spec_text(text, "spec/LOANS.md", options=strict)
    gaps = [f.message for f in analyse(spec) if f.kind == "gap"]
    assert gaps == [
        "lend in on_shelf: no rule fires when not member in good standing, not member "
        "owes fines (the cell's rules: R1, R2)"
    ]
    # where transitions not listed are rejected, the gap is rejected, and said so
    spec = parse_spec_text(text, "spec/LOANS.md", options=LOANS_OPTIONS)
    findings = analyse(spec)
    assert not [f for f in findings if f.kind == "gap"]
    said = [f.message for f in findings if f.kind == "unlisted_gap"]
    assert len(said) == 1 and said[0].startswith(
        "lend in on_shelf: no row fires when not member in good standing, not member owes "
        "fines (the cell's rows: R1, R2), so the event is rejected there"
    )
    # and the generated machine rejects it there, naming the policy
    path = tmp_path / "gap_loans.py"
    path.write_text(render_machine(spec, "gap_loans"), encoding="utf-8")
    found = importlib.util.spec_from_file_location("_own_code_gap_loans", path)
    assert found is not None and found.loader is not None
    loans = importlib.util.module_from_spec(found)
    found.loader.exec_module(loans)

    class Loan(loans.Model):  # type: ignore[name-defined,misc]
        good = owes = False

        def member_in_good_standing(self, *args: Any, **kwargs: Any) -> bool:
            return self.good

        def member_owes_fines(self, *args: Any, **kwargs: Any) -> bool:
            return self.owes

        def stamp_the_card(self, *args: Any, **kwargs: Any) -> None: ...

        def email_the_due_date(self, *args: Any, **kwargs: Any) -> None: ...

        def ask_for_the_fines(self, *args: Any, **kwargs: Any) -> None: ...

        def thank_the_member(self, *args: Any, **kwargs: Any) -> None: ...

    loan = Loan()
    loans.build(loan)
    assert not loan.lend() and loan.state == "on_shelf" and loan.refused == "not listed"
    loan.owes = True
    assert loan.lend() and loan.fired == "R2"


def renamed_locker(folder: Path) -> ModuleType:
    """The locker after FULL was renamed from OCCUPIED (`*Formerly*`)."""
    text = SPEC.replace("    - *Goal*: yes\n", "    - *Goal*: yes\n    - *Formerly*: OCCUPIED\n")
    path = generated(folder, text)
    found = importlib.util.spec_from_file_location("_own_code_renamed_locker", path)
    assert found is not None and found.loader is not None
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    assert module.FORMERLY == {"OCCUPIED": "FULL"}
    return module


def test_a_state_the_machine_does_not_have_is_refused_at_build_naming_it(
    tmp_path: Path,
) -> None:
    locker = renamed_locker(tmp_path)
    for wrong in ("FULLL", "full", ""):
        with pytest.raises(ValueError, match=f"{wrong!r} is not a state of 'Parcel lockers'") as e:
            locker.build(model_class(locker)(), initial=wrong)
        assert "its states are EMPTY, FULL (former names: OCCUPIED -> FULL)" in str(e.value)
    with pytest.raises(ValueError, match="'FULLL' is not a state"):
        locker.build(model_class(locker)(), initial="FULL", sources=("FULLL",))


def test_a_former_name_of_a_state_restores_the_state_it_is_now(tmp_path: Path) -> None:
    locker = renamed_locker(tmp_path)
    model = model_class(locker)()
    locker.build(model, initial="OCCUPIED", sources=("OCCUPIED",))
    assert model.state == "FULL"
    model.typed = "1234"
    assert model.collect() and model.fired == "C1" and model.state == "EMPTY"


def test_a_trigger_the_machine_does_not_have_is_an_error_naming_the_triggers(
    locker: ModuleType,
) -> None:
    for ignore in (True, False):
        model = model_class(locker)()
        locker.build(model, ignore_invalid_triggers=ignore)
        assert model.trigger("drop") and model.fired == "D1"
        for call in (model.trigger, model.may_trigger):
            with pytest.raises(AttributeError, match="no trigger 'collected'") as raised:
                call("collected")
            assert "the triggers of the machine are drop, collect" in str(raised.value)
        assert model.state == "FULL"


def test_every_trigger_says_what_it_did_only(locker: ModuleType) -> None:
    model = model_class(locker)()
    # Only the rules from EMPTY: in FULL the machine has none for either spell.
    locker.build(model, sources=("EMPTY",))
    assert model.drop() and model.fired == "D1" and model.state == "FULL"
    assert model.drop() is False  # no rules from FULL here: False, not an error
    assert (model.fired, model.refused) == (None, None)
    model.state = "EMPTY"
    model.closes = False
    assert model.trigger("drop") is False and model.refused == "D3"
    model.state = "FULL"
    assert model.trigger("collect") is False
    assert (model.fired, model.refused) == (None, None)
    assert model.available_spells() == []
