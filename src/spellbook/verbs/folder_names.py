"""Names made from values: a frontmatter or JSON value, or `${date}`, as part of a
folder's or a file's name, by one documented rule (`folder_name`)."""

from __future__ import annotations

import re

from spellbook.records.errors import ActionError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from spellbook.records.outcome import Done

NAME = r"[a-z0-9]+(?:[-.][a-z0-9]+)*"  # `greet-me`, `1.2.0`; never `..` or a leading dot
_VARIABLE = r"\$\{(\w+)\}"


def folder_name(value: str) -> str:
    """A frontmatter value as part of a folder's name: lower case; a run of anything but
    ASCII letters, digits and dots is one dash; dots only between letters and digits
    (`Greet Me` is `greet-me`, `v1.2.0` stays); "" if nothing is left (`..`, `!!!`)."""
    text = re.sub(r"[^a-z0-9.]+", "-", value.lower())
    text = re.sub(r"[-.]*-[-.]*", "-", text)  # a dash beside dots is a dash
    text = re.sub(r"\.{2,}", ".", text).strip("-.")
    return text if re.fullmatch(NAME, text) else ""


def folder_of(pattern: str, variables: dict[str, str], done: Done) -> str:
    """A folder or file name with `${name}`s filled, each value made a folder's name
    (`folder_name`); a value that changes so is said in the response's Notes."""

    def fill(m: re.Match[str]) -> str:
        if m.group(1) not in variables:
            raise ActionError(f"{pattern!r} uses ${{{m.group(1)}}}, which is not known")
        value = variables[m.group(1)]
        named = folder_name(value)
        if named != value:
            note = f"{m.group(1)} {value!r} names the folder {named!r}"
            if note not in done.notes:
                done.notes.append(note)
        return named

    return re.sub(_VARIABLE, fill, pattern)
