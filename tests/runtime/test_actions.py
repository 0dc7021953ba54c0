"""The core's verbs at run time: task frontmatter read safely, whatever its bytes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from spellbook.errors import ActionError
from spellbook.frontmatter import frontmatter
from tests.fuzzing import fuzz


@st.composite
def task_files(draw: st.DrawFn) -> str:
    body = draw(
        st.lists(
            st.sampled_from(
                [
                    "task_name: ", "a", "../", "/", "&a [*a, *a]", "*a", "!!python/object:os",
                    "[", "]", "{", "}", "- ", "\n", "  ", "'", '"', "\x00", "\udcff", "---", "...",
                    "7", "~", "null", "key: value",
                ]
            )
            | st.text(max_size=6),
            max_size=30,
        ).map("".join)
    )  # fmt: skip
    close = draw(st.sampled_from(["\n---\n", "\n...\n", ""]))
    return "---\n" + body + close + draw(st.text(max_size=10))


@fuzz(3_000)
@given(task_files())
def test_frontmatter_reader_returns_a_mapping_or_an_action_error(text: str) -> None:
    try:
        data = frontmatter(text, "task.md")
    except ActionError as err:
        assert str(err).startswith("task.md")
    else:
        assert isinstance(data, dict) and all(isinstance(k, str) for k in data)
