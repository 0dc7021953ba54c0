"""A Markdown file's YAML frontmatter, read safely: the mapping between the `---` lines
that open it, for a value an action extracts (`actions.extract`) or a fact checks
(`facts`). Plain `key: value` lines are read without PyYAML; anything else with its
safe loader, bounded in size and nesting, and in what it holds once read: aliases
(`*name`) may not make it more than VALUES_LIMIT values (557 bytes of them make a
billion), and no number may be too long for Python to write out. Whatever PyYAML
cannot read or build (a bad date, a number of 5,000 digits, bad base64) is an
ActionError naming the file."""

from __future__ import annotations

import re

from spellbook.records.errors import ActionError

FRONTMATTER_LIMIT = 65_536
NESTING_LIMIT = 64  # brackets nested in frontmatter
# Values the frontmatter may hold, an alias counted as all it stands for each time:
# no more than 64 KB of YAML can write out without aliases.
VALUES_LIMIT = FRONTMATTER_LIMIT
# Bits of the largest number read: Python writes out at most 4,300 digits of an int
# (`sys.get_int_max_str_digits`); 14,000 bits are about 4,200.
NUMBER_BITS = 14_000


class NotAMapping(ActionError):
    """Frontmatter YAML reads as something other than names and values (a list, a
    sentence): a spec's reader takes such `---` lines for no frontmatter at all."""


def frontmatter(text: str, shown: str, written: bool = False) -> dict[str, object]:
    """The YAML mapping between the `---` lines that open a file; {} if there are none.
    `written`: every value as the file writes it (YAML's base loader: `yes`, `1.10` and
    `12:30` are that text, not true, 1.1 and 750), at any depth."""
    from spellbook.facts.sections import fenced, lines_of

    lines = lines_of(text.lstrip("\ufeff"))
    end = fenced(lines)
    if end is None:
        return {}
    if not end:
        raise ActionError(f"{shown}: its frontmatter has no closing --- line")
    block = "\n".join(lines[1:end])
    if len(block) > FRONTMATTER_LIMIT:
        raise ActionError(f"{shown}: its frontmatter is larger than {FRONTMATTER_LIMIT} bytes")
    plain = _plain(block)
    if plain is not None:
        return plain  # text only, as written
    if _flow_depth(block) > NESTING_LIMIT:
        # libyaml recurses on the C stack for `[[[...]]]`: thousands deep, it crashes
        # the process instead of raising.
        raise ActionError(f"{shown}: its frontmatter is nested too deeply")
    import yaml  # only casts that read frontmatter pay for PyYAML

    try:
        # libyaml's safe loader where PyYAML was built with it: the same YAML, faster.
        loader = (
            getattr(yaml, "CBaseLoader", yaml.BaseLoader)
            if written
            else getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        )
        data = yaml.load(block, Loader=loader)
    except yaml.YAMLError as err:
        raise ActionError(f"{shown}: its frontmatter is not valid YAML ({err})") from None
    except RecursionError:
        raise ActionError(f"{shown}: its frontmatter is nested too deeply") from None
    except UnicodeError:  # libyaml takes UTF-8 only; text read from a file always is
        raise ActionError(f"{shown}: its frontmatter is not valid text") from None
    except Exception as err:  # PyYAML's constructors raise whatever Python raises
        # A value YAML reads but Python cannot build: `2024-02-30`, 5,000 digits, `25:00`,
        # `!!int` with no digits (an IndexError).
        raise ActionError(
            f"{shown}: its frontmatter has a value YAML cannot read ({type(err).__name__}: {err})"
        ) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise NotAMapping(f"{shown}: its frontmatter is not a mapping of names to values")
    _bounded(data, shown)
    return {str(k): v for k, v in data.items()}


def as_written(text: str, key: str) -> str:
    """The value of `key: value` in a file's frontmatter as written (quotes and a
    comment aside), "" if it has none or it is no text: what the author sees, where
    YAML reads `yes` as true, `1.10` as 1.1 and `12:30` as 750. The last line of the
    key counts, as the last is the one YAML keeps."""
    try:
        value = frontmatter(text, "", written=True).get(key)
    except ActionError:
        return ""
    return value if isinstance(value, str) else ""


def _bounded(data: object, shown: str) -> None:
    """Refuse frontmatter that holds more than VALUES_LIMIT values, each alias counted
    as all it stands for every time it is used (so a structure that holds itself too),
    or a number longer than NUMBER_BITS. Walks at most VALUES_LIMIT values, and holds
    at most that many waiting plus the last one's items."""
    stack, count = [data], 0
    while stack:
        value = stack.pop()
        count += 1
        if count + len(stack) > VALUES_LIMIT:  # each one waiting is counted in its turn
            raise ActionError(
                f"{shown}: its frontmatter's aliases (`*name`) make it more than "
                f"{VALUES_LIMIT} values; write the values out"
            )
        if isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, (list, tuple, set)):
            stack.extend(value)
        elif isinstance(value, int) and value.bit_length() > NUMBER_BITS:
            raise ActionError(
                f"{shown}: its frontmatter has a number of more than 4,000 digits; quote it "
                "to read it as text"
            )


# A frontmatter line YAML reads as a string key and a string value, whatever resolver:
# `task_name: greet-cli`. Anything else (quotes, lists, a number, a date, yes/no,
# null, 0x1f) goes to PyYAML. Compiled when first used, not by every cast's import.
_PLAIN_LINE = r"([A-Za-z_][A-Za-z0-9_-]*): +([a-z0-9]+(?:-[a-z0-9]+)*) *"
_YAML_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})


def _plain(block: str) -> dict[str, object] | None:
    """The frontmatter as PyYAML would read it, when every line is a `key: value` of
    plain words YAML can only read as strings; None otherwise. A cast that only needs
    `task_name` need not load PyYAML (16 ms of a 50 ms start)."""
    found: dict[str, object] = {}
    plain_line = re.compile(_PLAIN_LINE).fullmatch
    for line in block.split("\n"):  # joined by line feeds (`frontmatter`)
        if not line.strip():
            continue
        m = plain_line(line)
        if m is None:
            return None
        key, value = m.groups()
        words = {key.lower(), value}
        if key in found or words & _YAML_WORDS or not re.search("[a-z]", value):
            return None
        if value.startswith(("0x", "0b", "0o")):
            return None
        found[key] = value
    return found or None


def _flow_depth(text: str) -> int:
    """How deep `[` and `{` nest in `text`, counted as if no bracket were quoted (so
    never less than YAML would nest them)."""
    depth = deepest = 0
    for char in text:
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth = max(0, depth - 1)
    return deepest
