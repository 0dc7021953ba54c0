"""A library's loan desk (`tests/data/fixtures/library_loans.md`), cast with real files.

The spec is written from the documentation alone, in a domain no other spec uses. Each
condition phrase it uses is proven by a pair of workspaces that differ only in what the
phrase is about: the rule fires in one and not in the other. Each action's effect on the
files is checked after a real cast.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import ModuleType

import pytest

from codegen import ReadOptions, parse_spec_text
from codegen.analyse import analyse
from codegen.render import render_machine
from spellbook import ActionError, CastResult, Workflow

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "fixtures"
SPEC = FIXTURES / "library_loans.md"
TEMPLATES = FIXTURES / "library_loans"  # the templates `Create F from T` names
BY_NAME = FIXTURES / "templates"  # the templates `Create F` finds by F's name
DATE = r"\d{4}-\d{2}-\d{2}"

LOAN = "---\nborrower: Ann Lee\ndue: 2026-12-11\n---\n\n# Loan\n\nCopy BC-1234 of the book.\n"
RENEWALS = '{\n  "renewals": [],\n  "renewed": false\n}\n'
FINES = '{ "amount": 0, "status": "none" }\n'
ON_LOAN = {
    "loans/current.loan.md": LOAN,
    "renewals.json": RENEWALS,
    "fines.json": FINES,
    "notes/__desk__.md": "checked out 2026-11-20\n",
}


def checklist(ticked: int, unticked: int, damage: str = "") -> str:
    items = ["cover intact", "no pages missing", "barcode readable"][: ticked + unticked]
    lines = [f"- [{'x' if i < ticked else ' '}] {item}" for i, item in enumerate(items)]
    body = "\n".join(lines)
    return f"# Return\n\n## Condition check\n\n{body}\n\n## Damage\n\n{damage}\n"


BASES: dict[str, dict[str, str]] = {
    "AVAILABLE": {"desk.json": '{"sync_command": "true"}\n'},
    "ON_LOAN": ON_LOAN,
    "OVERDUE": {**ON_LOAN, "notice.md": "# Overdue notice\n"},
    "LOST": {
        **ON_LOAN,
        "lost.md": "# Reported lost\n\nOn the bus.\n",
        "fines.json": '{"amount": 30, "status": "open"}\n',
        "lost-ledger.txt": "BC-1234\n",
    },
    "RETURNING": {**ON_LOAN, "return.md": checklist(3, 0)},
}


@pytest.fixture(scope="module")
def machine() -> ModuleType:
    """The spec compiled as `spellbook-codegen` would, with the core's words alone."""
    options = ReadOptions(vocabulary="", folder=str(FIXTURES), templates=str(BY_NAME))
    spec = parse_spec_text(SPEC.read_text(encoding="utf-8"), str(SPEC), options=options)
    assert [f.kind for f in analyse(spec) if f.severity in ("error", "warning")] == []
    namespace: dict[str, object] = {}
    exec(compile(render_machine(spec, "library_loans"), "library_loans.py", "exec"), namespace)
    module = ModuleType("library_loans")
    module.__dict__.update(namespace)
    return module


def stamp(ago: timedelta) -> str:
    return (datetime.now(timezone.utc) - ago).strftime("%Y-%m-%dT%H:%M:%SZ")


def desk(
    root: Path,
    machine: ModuleType,
    state: str,
    files: dict[str, str],
    *,
    renewals: int = 0,
    in_state: timedelta = timedelta(0),
) -> Workflow:
    """A workspace `.desk/` holding `files`, its state file saying `state`."""
    workspace = root / ".desk"
    for name, text in files.items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text(text, encoding="utf-8")
    workspace.mkdir(exist_ok=True)
    record = {"current_state": state, "renewal_count": renewals, "entered_at": stamp(in_state)}
    (workspace / "state.json").write_text(json.dumps(record), encoding="utf-8")
    return Workflow(root, machine=machine)


def state_file(root: Path) -> dict[str, object]:
    data = json.loads((root / ".desk" / "state.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def age(mtimes: dict[str, int], root: Path) -> None:
    """Set each file's modification time to so many seconds ago."""
    now = time.time()
    for name, seconds in mtimes.items():
        os.utime(root / ".desk" / name, (now - seconds, now - seconds))


# -- each phrase, by a pair of workspaces ---------------------------------------------


@dataclass(frozen=True)
class Pair:
    """Two workspaces of `state` that differ only in `fires` and `other`."""

    phrase: str
    state: str
    spell: str
    fires: dict[str, str | None]  # files over the state's base (None: no such file)
    other: dict[str, str | None]
    rule: str  # the rule the phrase makes fire
    instead: str  # the rule that fires in the other workspace
    renewals: tuple[int, int] = (0, 0)
    in_state: tuple[timedelta, timedelta] = (timedelta(0), timedelta(0))
    mtimes: tuple[dict[str, int], dict[str, int]] = field(default=({}, {}))


def pair_files(state: str, over: dict[str, str | None]) -> dict[str, str]:
    files: dict[str, str | None] = {**BASES[state], **over}
    return {name: text for name, text in files.items() if text is not None}


OPEN_FINE = '{"amount": 3, "status": "open"}\n'
DAYS = timedelta(days=1)
PAIRS = [
    # AVAILABLE, Checkout
    Pair(
        "notes/__desk__.md matches `^CLOSED\\b`",
        "AVAILABLE",
        "Checkout",
        {"notes/__desk__.md": "desk notes\nCLOSED for inventory\n"},
        {"notes/__desk__.md": "desk notes\nCLOSEDOWN sale next week\n"},
        "K1",
        "K3",
    ),
    Pair("`CLOSED` exists (OR)", "AVAILABLE", "Checkout", {"CLOSED": ""}, {}, "K1", "K3"),
    Pair(
        "some file matches loans/*.loan.md",
        "AVAILABLE",
        "Checkout",
        {"loans/old.loan.md": "x\n"},
        {"loans/old.loan.txt": "x\n"},
        "K2",
        "K3",
    ),
    Pair(
        "the command `sync_command` of desk.json passes / fails",
        "AVAILABLE",
        "Checkout",
        {"desk.json": '{"sync_command": "true"}\n'},
        {"desk.json": '{"sync_command": "false"}\n'},
        "K3",
        "K4",
    ),
    Pair(
        "`history/**/*.loan.md` is missing",
        "AVAILABLE",
        "Inspect",
        {},
        {"history/ann-lee-2026-11-01/current.loan.md": LOAN},
        "I1",
        "I3",  # lent before; no run of `sync_command` recorded, so none passed
    ),
    Pair(
        "`**` does not enter a folder whose name starts with `.`",
        "AVAILABLE",
        "Inspect",
        {"history/.old/current.loan.md": LOAN},
        {"history/old/current.loan.md": LOAN},
        "I1",
        "I3",
    ),
    # ON_LOAN, Renew
    Pair(
        "loans/current.loan.md is still its template",
        "ON_LOAN",
        "Renew",
        {"loans/current.loan.md": (TEMPLATES / "loan.md").read_text(encoding="utf-8")},
        {},
        "N1",
        "N7",
    ),
    Pair(
        "is still its template, whitespace aside",
        "ON_LOAN",
        "Renew",
        {"loans/current.loan.md": (TEMPLATES / "loan.md").read_text(encoding="utf-8") + "\n\n"},
        {},
        "N1",
        "N7",
    ),
    Pair(
        "notes/__desk__.md contains `NO RENEWALS`",
        "ON_LOAN",
        "Renew",
        {"notes/__desk__.md": "NO RENEWALS until Monday\n"},
        {"notes/__desk__.md": "NO  RENEWALS until Monday\n"},
        "N2",
        "N7",
    ),
    Pair(
        "holds/*.hold exists / no holds/*.hold",
        "ON_LOAN",
        "Renew",
        {"holds/bob.hold": ""},
        {"holds/bob.hold.txt": ""},
        "N3",
        "N7",
    ),
    Pair(
        "no holds/*.hold: a name starting with `.` matches only a pattern that does",
        "ON_LOAN",
        "Renew",
        {"holds/bob.hold": ""},
        {"holds/.bob.hold": ""},
        "N3",
        "N7",
    ),
    Pair(
        "renewals.json has `renewals[status=refused]`",
        "ON_LOAN",
        "Renew",
        {"renewals.json": '{"renewals": [{"status": "refused"}], "renewed": false}'},
        {"renewals.json": '{"renewals": [{"status": "approved"}], "renewed": false}'},
        "N4",
        "N7",
    ),
    Pair(
        'fines.json has `amount` > 0 AND fines.json has `status` ≠ "waived"',
        "ON_LOAN",
        "Renew",
        {"fines.json": OPEN_FINE},
        {"fines.json": '{"amount": 0, "status": "open"}\n'},
        "N5",
        "N7",
    ),
    Pair(
        '`status` ≠ "waived"',
        "ON_LOAN",
        "Renew",
        {"fines.json": OPEN_FINE},
        {"fines.json": '{"amount": 3, "status": "waived"}\n'},
        "N5",
        "N7",
    ),
    Pair(
        "`status` ≠ ...: a missing key compares with nothing, not even ≠",
        "ON_LOAN",
        "Renew",
        {"fines.json": OPEN_FINE},
        {"fines.json": '{"amount": 3}\n'},
        "N5",
        "N7",
    ),
    Pair(
        "renewal_count ≥ 2 / renewal_count < 2",
        "ON_LOAN",
        "Renew",
        {},
        {},
        "N6",
        "N7",
        renewals=(2, 1),
    ),
    # ON_LOAN, Remind
    Pair(
        "overdue by the calendar (in this state for more than 2 weeks)",
        "ON_LOAN",
        "Remind",
        {},
        {},
        "M1",
        "M2",
        in_state=(15 * DAYS, 13 * DAYS),
    ),
    # OVERDUE, Remind
    Pair(
        "loans/current.loan.md is older than notice.md",
        "OVERDUE",
        "Remind",
        {},
        {},
        "M3",
        "M4",
        mtimes=({"loans/current.loan.md": 600, "notice.md": 60}, {"notice.md": 600}),
    ),
    Pair(
        "notice.md is not newer than loans/current.loan.md: equal times are not newer",
        "OVERDUE",
        "Remind",
        {},
        {},
        "M3",
        "M4",
        mtimes=(
            {"loans/current.loan.md": 600, "notice.md": 60},
            {"loans/current.loan.md": 600, "notice.md": 600},
        ),
    ),
    Pair(
        "Checks notice.md exists (exists)",
        "OVERDUE",
        "Remind",
        {"notice.md": None},
        {},
        "M5",
        "M3",
        mtimes=({"loans/current.loan.md": 600}, {"loans/current.loan.md": 600, "notice.md": 60}),
    ),
    # ON_LOAN and OVERDUE, Return and ReportLost
    Pair(
        "frontmatter has `borrower` matching `[A-Za-z0-9]`",
        "ON_LOAN",
        "Return",
        {},
        {"loans/current.loan.md": LOAN.replace("Ann Lee", "")},
        "T1",
        "T2",
    ),
    Pair(
        "frontmatter `borrower` matching `[A-Za-z0-9]`: a value of dashes has none",
        "OVERDUE",
        "ReportLost",
        {},
        {"loans/current.loan.md": LOAN.replace("Ann Lee", '"---"')},
        "L1",
        "L2",
    ),
    # Inspect
    Pair(
        "Reads loans/current.loan.md content",
        "ON_LOAN",
        "Inspect",
        {},
        {"loans/current.loan.md": None},
        "I5b",
        "I6",
    ),
    Pair(
        "renewals.json has `renewed` = true",
        "ON_LOAN",
        "Inspect",
        {"renewals.json": '{"renewals": [], "renewed": true}'},
        {"renewals.json": '{"renewals": [], "renewed": false}'},
        "I4",
        "I5b",
    ),
    Pair(
        "`renewed` = true: `true` is not `1`",
        "ON_LOAN",
        "Inspect",
        {"renewals.json": '{"renewals": [], "renewed": true}'},
        {"renewals.json": '{"renewals": [], "renewed": 1}'},
        "I4",
        "I5b",
    ),
    Pair(
        "count of renewals[status=pending] in renewals.json ≥ 1 / has fewer than 1 `...`",
        "ON_LOAN",
        "Inspect",
        {"renewals.json": '{"renewals": [{"status": "pending"}], "renewed": false}'},
        {"renewals.json": '{"renewals": [{"status": "refused"}], "renewed": false}'},
        "I5",
        "I5b",
    ),
    Pair(
        "count of renewals[status=pending] ...: a missing key counts 0",
        "ON_LOAN",
        "Inspect",
        {"renewals.json": '{"renewals": [{"status": "pending"}], "renewed": false}'},
        {"renewals.json": '{"renewed": false}'},
        "I5",
        "I5b",
    ),
    Pair(
        "loans/current.loan.md frontmatter has `due`",
        "OVERDUE",
        "Inspect",
        {},
        {"loans/current.loan.md": LOAN.replace("due: 2026-12-11", "due:")},
        "I7",
        "I8",
    ),
    Pair(
        "frontmatter has `due`: `0` is a value, `false` is not",
        "OVERDUE",
        "Inspect",
        {"loans/current.loan.md": LOAN.replace("2026-12-11", "0")},
        {"loans/current.loan.md": LOAN.replace("2026-12-11", "false")},
        "I7",
        "I8",
    ),
    Pair(
        "fines.json has `status` matching `^(open|due)$`",
        "LOST",
        "Inspect",
        {},
        {"fines.json": '{"amount": 30, "status": "opened"}\n'},
        "I9",
        "I10",
    ),
    Pair(
        "`status` matching ...: a pattern only matches text",
        "LOST",
        "Inspect",
        {"fines.json": '{"amount": 30, "status": "due"}\n'},
        {"fines.json": '{"amount": 30, "status": 1}\n'},
        "I9",
        "I10",
    ),
    Pair(
        'return.md has checklist items under "Condition check"',
        "RETURNING",
        "Inspect",
        {"return.md": checklist(1, 2)},
        {"return.md": (BY_NAME / "return.md").read_text(encoding="utf-8")},
        "I13",
        "I11",
    ),
    Pair(
        'return.md has fewer than 2 / at least 2 unchecked items under "Condition check"',
        "RETURNING",
        "Inspect",
        {"return.md": checklist(2, 1)},
        {"return.md": checklist(1, 2)},
        "I12",
        "I13",
    ),
    Pair(
        'return.md has at least 1 checked item under "Condition check"',
        "RETURNING",
        "Inspect",
        {"return.md": checklist(1, 2)},
        {"return.md": checklist(0, 3).replace("- [ ] barcode readable", "- [ ] barcode legible")},
        "I13",
        "I14",
    ),
    # LOST, Return
    Pair(
        "every match of `BC-\\d{4}` in loans/current.loan.md is listed in lost-ledger.txt",
        "LOST",
        "Return",
        {},
        {"lost-ledger.txt": "BC-9999\n"},
        "F1",
        "F2",
    ),
    Pair(
        "has matches of `BC-\\d{4}` not listed in lost-ledger.txt: a missing ledger lists none",
        "LOST",
        "Return",
        {"lost-ledger.txt": None},
        {},
        "F2",
        "F1",
    ),
    # RETURNING, Shelve
    Pair(
        'return.md has at least 3 checklist items and no unchecked items under "Condition check"',
        "RETURNING",
        "Shelve",
        {},
        {"return.md": checklist(2, 0)},
        "S1",
        "S3",
    ),
    Pair(
        'return.md has no unchecked items under "Condition check"',
        "RETURNING",
        "Shelve",
        {},
        {"return.md": checklist(2, 1)},
        "S1",
        "S3",
    ),
    Pair(
        'return.md has text under "Damage"',
        "RETURNING",
        "Shelve",
        {"return.md": checklist(3, 0, damage="The cover is torn.")},
        {},
        "S2",
        "S1",
    ),
    Pair(
        "the condition check is done AND NOT the loan has a borrower",
        "RETURNING",
        "Shelve",
        {"loans/current.loan.md": LOAN.replace("Ann Lee", "")},
        {},
        "S4",
        "S1",
    ),
]


@pytest.mark.parametrize("pair", PAIRS, ids=[p.phrase for p in PAIRS])
def test_a_phrase_decides_the_rule(pair: Pair, machine: ModuleType, tmp_path: Path) -> None:
    assert pair.rule != pair.instead  # else the pair proves nothing
    fired: list[str | None] = []
    for side, over in enumerate((pair.fires, pair.other)):
        root = tmp_path / str(side)
        root.mkdir()
        flow = desk(
            root,
            machine,
            pair.state,
            pair_files(pair.state, over),
            renewals=pair.renewals[side],
            in_state=pair.in_state[side],
        )
        age(pair.mtimes[side], root)
        fired.append(flow.cast(pair.spell).rule)
    assert fired == [pair.rule, pair.instead]


def test_a_borrower_given_by_card_number_has_a_digit(machine: ModuleType, tmp_path: Path) -> None:
    """`borrower: 1234` is a number to YAML; `matching [A-Za-z0-9]` matches it as written."""
    loan = LOAN.replace("Ann Lee", "1234")
    flow = desk(tmp_path, machine, "ON_LOAN", {**ON_LOAN, "loans/current.loan.md": loan})
    assert flow.cast("Return").rule == "T1"


# -- what each action does to the files -----------------------------------------------


def ws(root: Path) -> Path:
    return root / ".desk"


def cast(flow: Workflow, spell: str, rule: str, after: str) -> CastResult:
    result = flow.cast(spell)
    assert (result.rule, result.after) == (rule, after), result.response
    return result


def test_checkout_creates_the_loan_from_its_templates(machine: ModuleType, tmp_path: Path) -> None:
    files = {**BASES["AVAILABLE"], "fines.json": '{"amount": 7, "status": "open"}\n'}
    flow = desk(tmp_path, machine, "AVAILABLE", files, renewals=2)
    cast(flow, "Checkout", "K3", "ON_LOAN")
    loan = ws(tmp_path) / "loans" / "current.loan.md"
    assert loan.read_text(encoding="utf-8") == (TEMPLATES / "loan.md").read_text(encoding="utf-8")
    renewals = (ws(tmp_path) / "renewals.json").read_text(encoding="utf-8")
    assert renewals == (TEMPLATES / "renewals.json").read_text(encoding="utf-8")
    # A file already there is kept: the open fine stays as it was.
    fines = (ws(tmp_path) / "fines.json").read_text(encoding="utf-8")
    assert fines == '{"amount": 7, "status": "open"}\n'
    assert state_file(tmp_path)["renewal_count"] == 0  # Reset renewal_count
    notes = (ws(tmp_path) / "notes" / "__desk__.md").read_text(encoding="utf-8")
    assert re.fullmatch(f"checked out {DATE}\n", notes), notes  # empty, then one line


def test_checkout_appends_to_desk_notes_already_there(machine: ModuleType, tmp_path: Path) -> None:
    files = {**BASES["AVAILABLE"], "notes/__desk__.md": "open as usual\n"}
    cast(desk(tmp_path, machine, "AVAILABLE", files), "Checkout", "K3", "ON_LOAN")
    notes = (ws(tmp_path) / "notes" / "__desk__.md").read_text(encoding="utf-8")
    assert re.fullmatch(f"open as usual\nchecked out {DATE}\n", notes), notes


def test_renewing_counts_sets_the_json_field_and_stops_at_two(
    machine: ModuleType, tmp_path: Path
) -> None:
    flow = desk(tmp_path, machine, "ON_LOAN", ON_LOAN)
    cast(flow, "Renew", "N7", "ON_LOAN")
    assert state_file(tmp_path)["renewal_count"] == 1
    # The JSON file keeps its layout: two spaces of indent, one key a line.
    renewals = (ws(tmp_path) / "renewals.json").read_text(encoding="utf-8")
    assert renewals == RENEWALS.replace("false", "true")
    cast(flow, "Renew", "N7", "ON_LOAN")
    assert state_file(tmp_path)["renewal_count"] == 2
    cast(flow, "Renew", "N6", "ON_LOAN")  # the limit
    assert state_file(tmp_path)["renewal_count"] == 2
    notes = (ws(tmp_path) / "notes" / "__desk__.md").read_text(encoding="utf-8").splitlines()
    assert notes[0] == "checked out 2026-11-20"
    assert [re.fullmatch(f"renewed {DATE}", line) is not None for line in notes[1:]] == [1, 1]


def test_setting_a_field_keeps_a_one_line_file_on_one_line(
    machine: ModuleType, tmp_path: Path
) -> None:
    flow = desk(tmp_path, machine, "ON_LOAN", ON_LOAN)
    cast(flow, "ReportLost", "L1", "LOST")
    fines = (ws(tmp_path) / "fines.json").read_text(encoding="utf-8")
    # One line, as it was; the file is written again from its values, so the spaces
    # inside its braces are not kept (docs/guide/reading-specs.md says so).
    assert fines == '{"amount": 30, "status": "open"}\n'


def test_a_state_named_as_its_own_next_state_stays_and_the_reading_says_so(
    machine: ModuleType, tmp_path: Path
) -> None:
    """N7's Next State is ON_LOAN, the state it fires in: as with `Same state`, the loan
    stays where it is, its time in the state kept; `--explain` says it stays."""
    from codegen.analyse.reading import read_spec

    flow = desk(tmp_path, machine, "ON_LOAN", ON_LOAN, in_state=20 * DAYS)
    before = state_file(tmp_path)["entered_at"]
    cast(flow, "Renew", "N7", "ON_LOAN")
    assert state_file(tmp_path)["entered_at"] == before
    options = ReadOptions(vocabulary="", folder=str(FIXTURES), templates=str(BY_NAME))
    spec = parse_spec_text(SPEC.read_text(encoding="utf-8"), str(SPEC), options=options)
    (n7,) = [r for r in read_spec(spec, options).rows if r.id == "N7"]
    assert n7.next == "ON_LOAN (it stays, as with Same state)"


def test_same_state_keeps_the_time_the_state_was_entered(
    machine: ModuleType, tmp_path: Path
) -> None:
    files = {**ON_LOAN, "holds/bob.hold": ""}
    flow = desk(tmp_path, machine, "ON_LOAN", files, in_state=20 * DAYS)
    before = state_file(tmp_path)["entered_at"]
    cast(flow, "Renew", "N3", "ON_LOAN")  # Same state
    assert state_file(tmp_path)["entered_at"] == before
    cast(flow, "Remind", "M1", "OVERDUE")


def test_a_fine_refuses_the_renewal_and_is_noted(machine: ModuleType, tmp_path: Path) -> None:
    flow = desk(tmp_path, machine, "ON_LOAN", {**ON_LOAN, "fines.json": OPEN_FINE})
    cast(flow, "Renew", "N5", "ON_LOAN")
    notes = (ws(tmp_path) / "notes" / "__desk__.md").read_text(encoding="utf-8")
    assert notes == "checked out 2026-11-20\nrenewal refused: fine 3\n"
    assert state_file(tmp_path)["renewal_count"] == 0


def test_remind_sends_the_notice_and_ends_renewals(machine: ModuleType, tmp_path: Path) -> None:
    flow = desk(tmp_path, machine, "ON_LOAN", ON_LOAN, in_state=15 * DAYS)
    cast(flow, "Remind", "M1", "OVERDUE")
    notice = (ws(tmp_path) / "notice.md").read_text(encoding="utf-8")
    assert notice == (BY_NAME / "notice.md").read_text(encoding="utf-8")
    assert state_file(tmp_path)["renewal_count"] == 2  # Set renewal_count to 2
    assert flow.state == "OVERDUE"


def test_a_stale_notice_goes_to_the_trash_and_a_new_one_out(
    machine: ModuleType, tmp_path: Path
) -> None:
    files = {**BASES["OVERDUE"], "notice.md": "old notice\n"}
    flow = desk(tmp_path, machine, "OVERDUE", files)
    age({"notice.md": 600, "loans/current.loan.md": 60}, tmp_path)
    cast(flow, "Remind", "M4", "OVERDUE")
    notice = (ws(tmp_path) / "notice.md").read_text(encoding="utf-8")
    assert notice == (BY_NAME / "notice.md").read_text(encoding="utf-8")
    trashed = [p.read_text(encoding="utf-8") for p in (ws(tmp_path) / ".trash").rglob("notice*")]
    assert trashed == ["old notice\n"]


def test_return_creates_the_checklist_and_loads_the_loan(
    machine: ModuleType, tmp_path: Path
) -> None:
    result = cast(desk(tmp_path, machine, "ON_LOAN", ON_LOAN), "Return", "T1", "RETURNING")
    returned = (ws(tmp_path) / "return.md").read_text(encoding="utf-8")
    assert returned == (BY_NAME / "return.md").read_text(encoding="utf-8")
    assert "Copy BC-1234 of the book." in result.response  # Load ... content


def test_report_lost_opens_a_fine_and_records_the_barcode(
    machine: ModuleType, tmp_path: Path
) -> None:
    loan = LOAN.replace("Copy BC-1234", "Copy BC-1234 (was BC-0042)")
    flow = desk(tmp_path, machine, "OVERDUE", {**BASES["OVERDUE"], "loans/current.loan.md": loan})
    cast(flow, "ReportLost", "L1", "LOST")
    lost = (ws(tmp_path) / "lost.md").read_text(encoding="utf-8")
    assert lost == (TEMPLATES / "lost.md").read_text(encoding="utf-8")
    fines = json.loads((ws(tmp_path) / "fines.json").read_text(encoding="utf-8"))
    assert fines == {"amount": 30, "status": "open"}
    ledger = (ws(tmp_path) / "lost-ledger.txt").read_text(encoding="utf-8")
    assert ledger.splitlines() == ["BC-1234", "BC-0042"]
    notes = (ws(tmp_path) / "notes" / "__desk__.md").read_text(encoding="utf-8").splitlines()
    assert re.fullmatch(f"lost by Ann Lee on {DATE}", notes[-1]), notes


def test_recording_again_adds_only_what_the_ledger_lacks(
    machine: ModuleType, tmp_path: Path
) -> None:
    files = {**ON_LOAN, "lost-ledger.txt": "BC-1234\n"}
    cast(desk(tmp_path, machine, "ON_LOAN", files), "ReportLost", "L1", "LOST")
    ledger = (ws(tmp_path) / "lost-ledger.txt").read_text(encoding="utf-8")
    assert ledger == "BC-1234\n"


def test_a_found_copy_moves_its_report_aside_and_is_checked(
    machine: ModuleType, tmp_path: Path
) -> None:
    cast(desk(tmp_path, machine, "LOST", BASES["LOST"]), "Return", "F1", "RETURNING")
    assert not (ws(tmp_path) / "lost.md").exists()
    (found,) = (ws(tmp_path) / "found").iterdir()
    assert re.fullmatch(f"lost-{DATE}.md", found.name), found.name
    assert found.read_text(encoding="utf-8") == "# Reported lost\n\nOn the bus.\n"
    returned = (ws(tmp_path) / "return.md").read_text(encoding="utf-8")
    assert returned == (BY_NAME / "return.md").read_text(encoding="utf-8")


def test_a_move_onto_a_file_already_there_stops_the_cast(
    machine: ModuleType, tmp_path: Path
) -> None:
    flow = desk(tmp_path, machine, "LOST", BASES["LOST"])
    earlier = flow.cast("Return")  # found once, then lost again the same day
    assert earlier.rule == "F1"
    (ws(tmp_path) / "return.md").unlink()
    (ws(tmp_path) / "lost.md").write_text("# Reported lost again\n", encoding="utf-8")
    flow = desk(tmp_path, machine, "LOST", {})  # the state file says LOST again
    with pytest.raises(ActionError, match="already there"):
        flow.cast("Return")
    assert (ws(tmp_path) / "lost.md").read_text(encoding="utf-8") == "# Reported lost again\n"
    assert not (ws(tmp_path) / "return.md").exists()
    assert flow.state == "LOST"


def test_shelving_files_the_loan_under_its_borrower(machine: ModuleType, tmp_path: Path) -> None:
    files = {**BASES["RETURNING"], "notice.md": "# Overdue notice\n"}
    flow = desk(tmp_path, machine, "RETURNING", files, renewals=2)
    cast(flow, "Shelve", "S1", "AVAILABLE")
    (folder,) = (ws(tmp_path) / "history").iterdir()
    assert re.fullmatch(f"ann-lee-{DATE}", folder.name), folder.name
    assert sorted(p.name for p in folder.iterdir()) == [
        "current.loan.md",
        "fines.json",
        "return.md",
    ]
    assert (folder / "current.loan.md").read_text(encoding="utf-8") == LOAN
    trashed = sorted(p.name for p in (ws(tmp_path) / ".trash").rglob("*") if p.is_file())
    assert trashed == ["notice.md", "renewals.json"]
    left = sorted(p.name for p in ws(tmp_path).iterdir() if not p.name.startswith("."))
    assert left == ["history", "loans", "notes", "state.json"]
    assert list((ws(tmp_path) / "loans").iterdir()) == []
    assert state_file(tmp_path)["renewal_count"] == 0  # Reset renewal_count to 0


def test_shelving_a_damaged_copy_keeps_a_copy_and_fines_it(
    machine: ModuleType, tmp_path: Path
) -> None:
    returned = checklist(3, 0, damage="The cover is torn.")
    files = {**BASES["RETURNING"], "return.md": returned}
    cast(desk(tmp_path, machine, "RETURNING", files), "Shelve", "S2", "AVAILABLE")
    (copy,) = (ws(tmp_path) / "damage").iterdir()
    assert re.fullmatch(f"return-{DATE}.md", copy.name), copy.name
    assert copy.read_text(encoding="utf-8") == returned
    (folder,) = (ws(tmp_path) / "history").iterdir()
    assert sorted(p.name for p in folder.iterdir()) == ["current.loan.md", "return.md"]
    fines = json.loads((ws(tmp_path) / "fines.json").read_text(encoding="utf-8"))
    assert fines == {"amount": 5, "status": "none"}  # left at the desk, fined


def test_inspect_loads_what_it_names(machine: ModuleType, tmp_path: Path) -> None:
    overdue = desk(tmp_path / "o", machine, "OVERDUE", BASES["OVERDUE"])
    assert "# Overdue notice" in cast(overdue, "Inspect", "I7", "OVERDUE").response
    lost = desk(tmp_path / "l", machine, "LOST", BASES["LOST"])
    assert "On the bus." in cast(lost, "Inspect", "I9", "LOST").response
    on_loan = desk(tmp_path / "n", machine, "ON_LOAN", ON_LOAN)
    assert "Copy BC-1234 of the book." in cast(on_loan, "Inspect", "I5b", "ON_LOAN").response


def _lend_and_shelve(root: Path, machine: ModuleType) -> Workflow:
    """A whole loan, cast by cast: checkout, the borrower named, returned, checked, shelved."""
    flow = desk(root, machine, "AVAILABLE", BASES["AVAILABLE"])
    cast(flow, "Checkout", "K3", "ON_LOAN")
    (ws(root) / "loans" / "current.loan.md").write_text(LOAN, encoding="utf-8")
    cast(flow, "Return", "T1", "RETURNING")
    cast(flow, "Shelve", "S3", "RETURNING")
    (ws(root) / "return.md").write_text(checklist(3, 0), encoding="utf-8")
    cast(flow, "Shelve", "S1", "AVAILABLE")
    return flow


def test_the_last_run_of_the_sync_decides_what_inspect_says(
    machine: ModuleType, tmp_path: Path
) -> None:
    """Two desks after one whole loan each; one then fails a checkout's sync."""
    passed = _lend_and_shelve(tmp_path / "passed", machine)
    failed = _lend_and_shelve(tmp_path / "failed", machine)
    (ws(tmp_path / "failed") / "desk.json").write_text('{"sync_command": "false"}\n')
    cast(failed, "Checkout", "K4", "AVAILABLE")
    result = cast(passed, "Inspect", "I2", "AVAILABLE")
    assert "checked out" in result.response  # Load notes/__desk__.md content
    cast(failed, "Inspect", "I3", "AVAILABLE")
