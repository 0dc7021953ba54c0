"""A spec's regular expressions at run time (`spellbook.facts.patterns`): each match ends in
time that grows with the text, in every fact that runs one and through every door (a
cast, status, the judge of a move, a cast in a worker thread as the MCP server makes
it); a pattern RE2 cannot take is never run another way; a vocabulary's own pattern
runs with Python's `re`."""

from __future__ import annotations

import json
import types
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codegen import parse_spec_text
from codegen.render import render_machine
from spellbook import Workflow
from spellbook.disk.state_file import Record
from spellbook.disk.store import READ_LIMIT, Workspace
from spellbook.facts.answers import Facts
from spellbook.facts.json_values import comparison_param
from spellbook.records.errors import Undefined
from tests.support.fuzzing import fuzz
from tests.support.specs import row, spec_text

# A line that almost matches, over and over: a backtracking engine tries every start
# and every length of the run of capitals (hours for a line this long; 18 s for 40,000
# characters), and `(A+)+-` every way of splitting the run (exponential).
ALMOST = "A" * (READ_LIMIT - 100)
SLOW = (r"[A-Z]+-\d+", r"(A+)+-", r"^(\w+\s?)+!$")


def facts(tmp_path: Path, files: dict[str, str]) -> Facts:
    folder = tmp_path / "ws"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return Facts(Workspace(str(tmp_path), "ws"), Record("S"))


@pytest.mark.timeout(120)
@pytest.mark.parametrize("pattern", SLOW)
def test_every_fact_that_runs_a_pattern_ends_on_a_line_that_almost_matches(
    tmp_path: Path, pattern: str
) -> None:
    found = facts(
        tmp_path,
        {"notes.md": ALMOST + "\n", "r.json": json.dumps({"key": ALMOST + "a"}), ".seen": ""},
    )
    assert found.check("matches", "notes.md", pattern) is False
    assert found.check("unlisted", "notes.md", f".seen {pattern}") is False
    assert found.check("value", "r.json", comparison_param("key", "~", pattern)) is False


SPEC = spec_text(
    ["A", "B"],
    ["Go"],
    [
        row("T1", "A", "Go", r"notes.md matches `[A-Z]+-\d+`", "B", "Update state to B"),
        row("T2", "A", "Go", r"notes.md does not match `[A-Z]+-\d+`"),
        row("T3", "B", "Go", nxt="A", action="Update state to A"),
    ],
)


def machine() -> types.ModuleType:
    module = types.ModuleType("pattern_machine")
    source = render_machine(parse_spec_text(SPEC), "pattern_machine")
    exec(compile(source, "pattern_machine.py", "exec"), module.__dict__)
    return module


@pytest.mark.timeout(120)
def test_a_cast_status_the_judge_and_a_worker_thread_end_on_a_long_line(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text(ALMOST + "\n", encoding="utf-8")
    flow = Workflow(tmp_path, machine=machine())  # type: ignore[arg-type]
    assert flow.cast("go").rule == "T2"  # no match: the state stays
    assert flow.status()["spells"] == {"Go": "no state change: say so"}
    assert flow.judge("A", "B")[0] is False  # the hook's judge: no rule moves A to B now
    with ThreadPoolExecutor(1) as pool:  # as `spell mcp` casts: no signal reaches it
        assert pool.submit(flow.cast, "go").result().rule == "T2"
    (tmp_path / "notes.md").write_text(ALMOST + "-1\n", encoding="utf-8")
    assert flow.cast("go").after == "B"


@pytest.mark.parametrize(
    "pattern", [r"(\w+) \1", "(?<=v)[0-9]+", "TODO(?!:)", r"end\Z", "(a|b)*a(a|b){400}x"]
)
def test_a_pattern_re2_cannot_run_is_never_run_another_way(tmp_path: Path, pattern: str) -> None:
    from spellbook.facts import patterns

    # A module written by hand, or before the verifier refused such patterns.
    found = facts(tmp_path, {"notes.md": "word word v1 TODO end", "r.json": '{"k": "v1"}'})
    with pytest.raises(Undefined, match="cannot run in linear time"):
        found.check("matches", "notes.md", pattern)
    with pytest.raises(Undefined, match="cannot run in linear time"):
        found.check("value", "r.json", comparison_param("k", "~", pattern))
    assert patterns.problem(pattern)


def test_a_vocabulary_pattern_runs_with_python_re(tmp_path: Path) -> None:
    from spellbook.facts import patterns

    found = facts(tmp_path, {"notes.md": "see https://acme.atlassian.net/browse/ENG-1.\n"})
    from tests.support.vocabularies import ATLASSIAN_URL

    assert found.check("matches", "notes.md", patterns.VOCABULARY + ATLASSIAN_URL)
    assert patterns.found(patterns.VOCABULARY + ATLASSIAN_URL, "x https://a.atlassian.net/x.") == [
        "https://a.atlassian.net/x"
    ]
    assert patterns.problem(patterns.VOCABULARY + "x")  # a spec cannot write the mark


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (r"^## \d+\.\d+\.\d+", "# Log\n## 1.2.3\n"),
        (r"^## \d+\.\d+\.\d+", "# Log\n### 1.2.3\n"),
        (r"^task_name: ", "---\ntask_name: x\n"),
        (r"done$", "not done\nyet\n"),
        (r"(?i)todo", "a ToDo here"),
        (r"github\.com/[\w.-]+/[\w.-]+/issues/\d+", "see github.com/a/b/issues/12."),
        (r"[A-Z]+-\d+", "ENG-42"),
        (r"é+", "café"),
        (r"^$", "a\n\nb"),
        (r"x*", "axxb"),
        (r"^- \[[xX ]\] ([A-Za-z0-9_.-]+)", "- [x] requests\n- [ ] flask\n  - [x] no\n"),
        (r"(a)|b", "ab"),
    ],
)
def test_a_pattern_means_what_python_re_says(pattern: str, text: str) -> None:
    import re

    from spellbook.facts import patterns

    assert patterns.search(pattern, text) == bool(re.search(pattern, text, re.MULTILINE))
    # What a ledger records: each match's first group if it has one (`re.findall`).
    assert patterns.found(pattern, text) == [
        m for m in re.findall(pattern, text, re.MULTILINE) if m
    ]
    assert patterns.found(patterns.VOCABULARY + pattern, text) == patterns.found(pattern, text)


def test_re2_is_loaded_only_when_a_spec_pattern_runs() -> None:
    import subprocess
    import sys

    from tests.support.vocabularies import ATLASSIAN_URL

    code = (
        "import sys\n"
        "from spellbook.facts import patterns\n"
        f"ATLASSIAN_URL = {ATLASSIAN_URL!r}\n"
        "patterns.search(patterns.VOCABULARY + ATLASSIAN_URL, 'https://a.atlassian.net/')\n"
        "print('re2' in sys.modules)\n"
        "patterns.search('[A-Za-z0-9]', 'ship-it', lines=False)\n"  # no choice in it
        "print('re2' in sys.modules)\n"
        "patterns.search('x+', 'xx')\n"
        "print('re2' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["False", "False", "True"], done.stderr


PLAIN = st.lists(
    st.sampled_from(["a", "b", ".", "^", "$", "[ab]", "[^a]", "[]a]", r"\.", r"\-", " ", "(", ")"]),
    max_size=8,
).map("".join)


@fuzz(300)
@given(PLAIN, st.text("ab.- \n]", max_size=12), st.booleans())
def test_a_pattern_with_no_choice_means_the_same_in_python_re_and_re2(
    pattern: str, text: str, lines: bool
) -> None:
    """Such a pattern runs with Python's `re` (already loaded); RE2 would say the same."""
    import re

    from spellbook.facts import patterns

    if not patterns._without_choices(pattern, lines):
        return
    try:
        re.compile(pattern)
    except re.error:
        return
    assert not patterns.problem(pattern)
    python = patterns._python(pattern, lines)
    program = patterns._compiled(pattern, lines)
    assert (python.search(text) is None) == (program.search(text.encode()) is None)
    if lines:
        ours = [m.group(1 if python.groups else 0) for m in python.finditer(text)]
        theirs = [
            (m.group(1 if program.groups else 0) or b"").decode()
            for m in program.finditer(text.encode())
        ]
        assert [m for m in ours if m] == [m for m in theirs if m]


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_a_pattern_s_lines_end_where_markdown_s_do(end: str) -> None:
    """`^` and `$` match at every line ending markdown reads (CR and CRLF too), with
    either engine: an unchecked item in a file of CR line ends is never hidden."""
    from spellbook.facts import patterns

    text = end.join(["# Plan", "", "- [x] done", "- [ ] open item", ""])
    assert patterns.search(r"^- \[ \]", text)  # no choice in it: Python's re
    assert patterns.search(r"^- \[ \] \w+ \w+$", text)  # RE2
    assert patterns.found(r"^- \[.\] (\w+)", text) == ["done", "open"]
    assert not patterns.search(r"^item$", text)
