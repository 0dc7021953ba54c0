"""A checklist kept in a file's template, told apart from the user's by content: while
the section is the template's, untouched, it is not filled in; once anything in it is
ticked or changed, every item counts, the template's own too. A gate written as `has
checklist items AND has no unchecked items` holds until every item is ticked."""

# ruff: noqa: E501 (the spec's table rows are one line each)
from __future__ import annotations

from pathlib import Path

from spellbook.records.exits import EXIT_OK
from tests.cli.test_project_machines import compiler, generate, spell
from tests.support.commands import clean

LAUNCH = """\
# Launch

## Machine

### Spells

1. **Prepare**
   - *Description*: write the launch checklist from its template
2. **Launch**
   - *Description*: launch once every item of the checklist is ticked

### States

1. **IDLE**
    - *Description*: nothing is being launched
    - *Indicators*: list.md missing
    - *Valid Actions*: Prepare
2. **READY**
    - *Description*: the checklist is being worked through
    - *Indicators*: list.md exists
    - *Valid Actions*: Launch
3. **LAUNCHED**
    - *Description*: launched
    - *Indicators*: -
    - *Valid Actions*: Prepare
    - *Goal*: yes

### State Persistence

The state is kept in `.launch/state.json`.

### Terms

| Phrase | Means |
|---|---|
| every check is ticked | list.md has checklist items under "Checks" AND list.md has no unchecked items under "Checks" |

### Transition Rules

| ID | Current State | Spell | Condition | Next State | Action | Response |
|----|---------------|-------|-----------|------------|--------|----------|
| P1 | IDLE, LAUNCHED | Prepare | - | READY | (1) Delete list.md; (2) Create list.md from templates/list.md | Work through .launch/list.md. |
| L1 | READY | Launch | every check is ticked | LAUNCHED | - | Launched. |
| L2 | READY | Launch | NOT every check is ticked | Same state | No state change | Tick every check in .launch/list.md first. |
| B1 | IDLE, LAUNCHED | Launch | - | [BLOCKED] | - | Prepare first. |
| B2 | READY | Prepare | - | [BLOCKED] | - | A launch is being prepared. |
"""

TEMPLATE = "# Launch checklist\n\n## Checks\n\n- [ ] backups taken\n- [ ] on-call told\n"


def _project(tmp_path: Path) -> Path:
    """A project of the launch machine and its template, not generated yet."""
    root = tmp_path / "launch"
    (root / "spec" / "templates").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "spec" / "LAUNCH.md").write_text(LAUNCH)
    (root / "spec" / "templates" / "list.md").write_text(TEMPLATE)
    (root / "pyproject.toml").write_text(
        '[tool.spellbook.machines]\nlaunch = { spec = "spec/LAUNCH.md", vocabulary = "" }\n'
    )
    return root


def test_a_template_s_checklist_gates_until_every_item_is_ticked(tmp_path: Path) -> None:
    root = _project(tmp_path)
    verified = compiler(root, "verify", "--spec", "spec/LAUNCH.md")
    assert verified.returncode == 0, verified.stdout + clean(verified)
    generate(root)
    checklist = root / ".launch" / "list.md"

    def launch() -> str:
        done = spell(root, "--machine", "launch", "launch")
        assert done.returncode == EXIT_OK, done.stdout + clean(done)
        return done.stdout

    assert spell(root, "--machine", "launch", "prepare").returncode == EXIT_OK
    assert checklist.read_text() == TEMPLATE
    assert "Tick every check" in launch()  # untouched: not filled in, so it does not pass
    # An item of the user's own ticked does not let the template's unticked ones through.
    checklist.write_text(TEMPLATE + "- [x] status page updated\n")
    assert "Tick every check" in launch()
    checklist.write_text(TEMPLATE.replace("[ ] backups", "[x] backups"))
    assert "Tick every check" in launch()  # one ticked: the other, the template's, counts
    # Every item of the template ticked, none of the user's own: that is a checklist done.
    checklist.write_text(TEMPLATE.replace("[ ]", "[x]"))
    assert "Launched" in launch()


def test_next_steps_say_the_template_s_own_items_count_as_none(tmp_path: Path) -> None:
    """The developer sees the template's unticked items: Next Steps say the checklist
    needs items of its own, every one ticked, never that it has no unchecked item to
    keep (it has none only while they do not count)."""
    root = _project(tmp_path)
    generate(root)
    assert spell(root, "--machine", "launch", "prepare").returncode == EXIT_OK
    done = spell(root, "--machine", "launch", "launch")
    steps = done.stdout.split("### Next Steps\n", 1)[1]
    # ... and none unchecked, said of the section kept, never "has no section ... with
    # unchecked items", which reads as "delete the section"
    assert (
        '- Once list.md has checklist items of its own under "Checks" (its template\'s, '
        'untouched, count as none) and list.md has no unchecked items under "Checks"'
    ) in steps, steps
    assert '(keeping: list.md has a section "Checks")' in steps, steps  # not its items
