"""A Markdown file's YAML frontmatter read safely (`spellbook.facts.frontmatter`): aliases
that would make it huge, and values PyYAML reads but cannot build, are an error naming
the file, through every reader of frontmatter (a fact, an extracted value, `spell
status` and a cast), never a hang or an internal error."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spellbook import Workflow
from spellbook.disk.state_file import Record
from spellbook.disk.store import Workspace
from spellbook.facts.answers import Facts
from spellbook.facts.frontmatter import frontmatter
from spellbook.facts.sections import fenced
from spellbook.records.errors import ActionError, BadFile
from spellbook.records.exits import EXIT_BAD_INPUT, EXIT_OK
from tests.support.commands import clean, spell
from tests.support.fuzzing import fuzz
from tests.support.workspaces import TASK, executed, plan, set_state, write


def laughs(levels: int = 9, use: str = "readers: [{verdict: *a%d}]") -> str:
    """Frontmatter of about 500 bytes whose aliases stand for 10**levels values."""
    lines = ["a0: &a0 [approve]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, levels + 1)]
    return "---\n" + "\n".join([*lines, use % levels]) + "\n---\n\n# Review\n"


@pytest.mark.timeout(60)
def test_a_filter_query_on_aliases_that_expand_to_a_billion_values_is_a_clear_error(
    tmp_path: Path,
) -> None:
    text = laughs()
    assert len(text) < 600
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "review.md").write_text(text, encoding="utf-8")
    found = Facts(Workspace(str(tmp_path), "ws"), Record("S"))
    with pytest.raises(BadFile, match=r"ws/review\.md: its frontmatter's aliases"):
        found.check("field", "review.md", "readers[verdict=approve]")


@pytest.mark.parametrize(
    "text",
    [
        laughs(),
        laughs(5, "readers: *a%d"),  # 100,000 values: past the bound
        "---\nloop: &a [*a]\n---\n",  # a list that holds itself
        "---\nloop: &a {x: *a}\n---\n",
    ],
)
def test_aliases_past_the_bound_are_refused_naming_the_file(text: str) -> None:
    with pytest.raises(ActionError, match=r"^task\.md: its frontmatter's aliases"):
        frontmatter(text, "task.md")


def test_aliases_within_the_bound_are_read() -> None:
    data = frontmatter(laughs(3, "readers: *a%d"), "task.md")
    assert len(data["readers"]) == 10  # type: ignore[arg-type]
    flat = "---\nitems: [" + ", ".join(["x"] * 20_000) + "]\n---\n"  # no alias: 20,001 values
    assert len(frontmatter(flat, "task.md")["items"]) == 20_000  # type: ignore[arg-type]
    from spellbook.facts.frontmatter import VALUES_LIMIT

    assert VALUES_LIMIT > 20_001


# Scalars YAML reads and Python cannot build (or write out): dates and times out of
# range, numbers of thousands of digits (decimal, hex, sexagesimal), bad base64.
BROKEN = [
    "2024-02-30",
    "0000-01-01",
    "2024-13-01",
    "2024-01-01T25:00:00",
    "2024-01-01 10:00:00 +99:00",
    "9999-12-31T23:59:60",
    "9" * 5_000,
    "0x" + "f" * 5_000,
    "0b" + "1" * 20_000,
    ":".join(["59"] * 3_000),
    "!!binary abc",
    "!!int 12x",
    "!!float abc",
    "!!timestamp 2024-02-30",
]


@pytest.mark.parametrize("scalar", BROKEN, ids=[s[:20] for s in BROKEN])
def test_a_value_python_cannot_build_is_an_error_naming_the_file(scalar: str) -> None:
    for text in (f"---\ntask_name: {scalar}\n---\n", f"---\nlist: [a, {scalar}]\n---\n"):
        with pytest.raises(ActionError, match=r"^task\.md: its frontmatter"):
            frontmatter(text, "task.md")


@st.composite
def broken_scalars(draw: st.DrawFn) -> str:
    year = draw(st.integers(0, 9999))
    month = draw(st.integers(0, 13))
    day = draw(st.integers(0, 32))
    date = f"{year:04d}-{month:02d}-{day:02d}"
    hour, minute, second = (draw(st.integers(0, 99)) for _ in range(3))
    time = f"{hour:02d}:{minute:02d}:{second:02d}"
    zone = draw(st.sampled_from(["", "Z", " +99:00", "-23:59", " +05"]))
    digits = draw(st.integers(1, 6_000))
    return draw(
        st.sampled_from(
            [
                date,
                f"{date}T{time}{zone}",
                f"{date} {time}.{'1' * draw(st.integers(1, 40))}{zone}",
                "9" * digits,
                "-0x" + "f" * digits,
                "0o" + "7" * digits,
                ":".join(["59"] * draw(st.integers(1, 4_000))),
                "!!binary " + draw(st.text("abc=+/", max_size=12)),
                "!!int " + draw(st.text("0123x_", max_size=8)),
                "!!float " + draw(st.text("0123.e-+_inf", max_size=8)),
                "!!timestamp " + date,
            ]
        )
    )


@fuzz(300)
@given(broken_scalars(), st.sampled_from(["task_name: {}", "list: [a, {}]", "m: {{k: {}}}"]))
def test_frontmatter_of_scalars_that_break_constructors_is_read_or_refused(
    scalar: str, line: str
) -> None:
    try:
        data = frontmatter("---\n" + line.format(scalar) + "\n---\n", "task.md")
    except ActionError as err:
        assert str(err).startswith("task.md: its frontmatter")
    else:  # what is read can be written out, as facts and names do
        json.dumps(data, default=str)


@pytest.mark.parametrize("scalar", ["2024-02-30", "9" * 5_000])
def test_status_and_a_cast_name_the_file_never_an_internal_error(
    tmp_path: Path, scalar: str
) -> None:
    executed(tmp_path)
    write(tmp_path, "task.md", f"---\ntask_name: {scalar}\n---\n\n# Task\n")
    status = spell(tmp_path, "status")
    assert status.returncode == EXIT_OK, clean(status)
    assert "Accio: refused now: .ai/task/task.md: its frontmatter" in status.stdout
    cast = spell(tmp_path, "accio")
    assert cast.returncode == EXIT_BAD_INPUT
    assert ".ai/task/task.md: its frontmatter" in clean(cast)
    assert "internal error" not in cast.stderr


@pytest.mark.timeout(60)
def test_a_wide_list_that_holds_itself_is_refused_without_walking_it() -> None:
    text = "---\nloop: &a [" + ", ".join(["*a"] * 16_000) + "]\n---\n"  # 64 KB
    with pytest.raises(ActionError, match="aliases"):
        frontmatter(text, "task.md")


@pytest.mark.parametrize(
    ("written", "read"), [("0x1f", "31"), ("017", "15"), ("1:20", "80"), ("1.5e+3", "1500.0")]
)
def test_a_name_yaml_reads_as_another_number_is_refused_not_renamed(
    tmp_path: Path, written: str, read: str
) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
    write(tmp_path, "plan.md", plan(unchecked=1))
    write(tmp_path, "task.md", f"---\ntask_name: {written}\n---\n")
    write(tmp_path, "task-results.md", "results\n")
    with pytest.raises(ActionError, match=re.escape(f"`{written}` is read by YAML as {read}")):
        Workflow(tmp_path).cast("accio")
    assert (tmp_path / TASK / "task.md").is_file()  # nothing moved


def test_a_number_written_as_yaml_reads_it_names_the_folder(tmp_path: Path) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
    write(tmp_path, "plan.md", plan(unchecked=1))
    write(tmp_path, "task.md", "---\ntask_name: 42\n---\n")
    write(tmp_path, "task-results.md", "results\n")
    assert Workflow(tmp_path).cast("accio").archive.startswith(f"{TASK}/tasks/task-42-")


@pytest.mark.parametrize(
    "text",
    [
        "---\n\ntitle: Orders\n---\n\n# Orders\n",  # a thematic break, then a blank line
        "  ---\ntitle: Orders\n---\n",  # indented: a thematic break, not frontmatter
    ],
)
def test_a_first_line_that_is_a_thematic_break_opens_no_frontmatter(text: str) -> None:
    assert frontmatter(text, "f.md") == {}


def test_the_closing_line_may_end_in_spaces_but_not_start_with_them() -> None:
    lines = ["---", "title: Orders", "  ---", "--- ", "# Orders"]
    assert fenced(lines) == 3
    assert frontmatter("\n".join(lines), "f.md") == {"title": "Orders ---"}  # YAML folds it
