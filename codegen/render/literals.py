"""Python literals for values from the spec: every value enters generated code here.

`py` prints a string as its `repr` (a long or many-line text in pieces, one per
line, so a changed word of the spec changes about one line of generated code), a
tuple, list or dict of such, and a record of `spellbook.schema` as a call with its
arguments. A guard (`spellbook.schema.Guard`) inside a row or a state is printed as
its name in the module, which the compiler made and checks again here.
"""

from __future__ import annotations

import inspect
import keyword
import re
import textwrap

from spellbook import schema as runtime

# A text whose literal is longer than ONE_LINE characters, or that has a newline inside,
# is printed in pieces of at most PIECE characters, each on a line of its own: the
# deepest a piece is printed (an action's text in a row) is 20 columns in, which leaves
# black's 120 for the piece.
ONE_LINE = 98
PIECE = 100


def py(value: object) -> str:
    """A Python literal for a value from the spec (or a table record made of them)."""
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, (int, bool)) or value is None:
        return repr(value)
    if isinstance(value, tuple):
        items = [py(v) for v in value]
        return f"({items[0]},)" if len(items) == 1 else "(" + ", ".join(items) + ")"
    if isinstance(value, list):
        return "[" + ", ".join(py(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{py(k)}: {py(v)}" for k, v in value.items()) + "}"
    if isinstance(value, runtime.Guard):  # in a row or a state: the guard's module name
        return _identifier(value.name)
    if isinstance(value, runtime.Literal):
        return ("" if value.holds else "~") + _identifier(value.guard.name)
    if isinstance(value, runtime._Record):
        return _record(value)
    raise TypeError(f"no literal for {type(value).__name__}")


def one_line(text: str) -> str:
    """A string literal on one line, as a comment holds it (`py` cuts a long text, or a
    path of 99 or 100 characters, over several lines)."""
    return repr(str(text))


def _identifier(name: str) -> str:
    """A name the compiler made (`_Names`), checked again before it enters code as such."""
    if not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(f"{name!r} is not a name the generated code can use")
    return name


def declare(guard: runtime.Guard) -> str:
    """`Guard(...)`: the guard's record, as the module declares it."""
    return _record(guard)


def _text(text: str) -> str:
    """A string literal; a long or many-line text as pieces on lines of their own."""
    literal = repr(text)
    if len(literal) <= ONE_LINE and "\n" not in text.rstrip("\n"):
        return literal
    pieces = _pieces(text)
    if len(pieces) == 1 and len(literal) > PIECE:  # one word: it stays whole, where it is
        return literal
    return "(\n" + "".join(f"    {p!r}\n" for p in pieces) + "    )"


def _pieces(text: str) -> list[str]:
    """`text` cut after each line (blank lines kept with the line next to them), a line
    longer than PIECE after each sentence or clause (`. `, `; `, `? `, `! `; in a clause
    longer than PIECE, `, `), and at spaces where a piece's literal would be longer than
    PIECE; a single word longer than that stays whole. Cutting at clauses first keeps a
    changed word from moving the words of other clauses."""
    pieces: list[str] = []
    parts = [
        part
        for line in _LINES.findall(text)
        for clause in ([line] if len(repr(line)) <= PIECE else _CLAUSES.findall(line))
        for part in (_COMMAS.findall(clause) if len(repr(clause)) > PIECE else [clause])
    ]
    for part in parts:
        words = part.split(" ")
        if len(words) > 1 and not words[-1]:  # a clause's space stays with its last word
            words.pop()
            words[-1] += " "
        piece = words[0]
        for word in words[1:]:
            joined = f"{piece} {word}"
            if len(repr(joined)) > PIECE and piece.strip():
                pieces.append(piece + " ")
                piece = word
            else:
                piece = joined
        pieces.append(piece)
    return pieces or [""]


_LINES = re.compile(r"\n*[^\n]+(?:\n+|$)|\n+")
_CLAUSES = re.compile(r"\n*(?:[^\n]+?(?:[.;?!] (?=\S)|\n+|$))|\n+")
_COMMAS = re.compile(r"[^\n]+?(?:, (?=\S)|\n+|$)|\n+")

# How many of a record's arguments are printed by position; the rest by keyword,
# and only where they differ from the default.
_POSITIONAL = {"State": 1, "Row": 2, "Action": 4, "Guard": 4, "Kept": 1}


_PARAMETERS: dict[str, list[inspect.Parameter]] = {}


def _parameters(cls: type) -> list[inspect.Parameter]:
    found = _PARAMETERS.get(cls.__name__)
    if found is None:
        found = _PARAMETERS[cls.__name__] = list(inspect.signature(cls).parameters.values())
    return found


def _record(value: runtime._Record) -> str:
    """`Name(...)`: the first arguments by position (trailing defaults left out), the rest
    by keyword where they differ from their default."""
    name = type(value).__name__
    params = _parameters(type(value))
    positional = params[: _POSITIONAL[name]]
    values = [getattr(value, p.name) for p in positional]
    while values and values[-1] == positional[len(values) - 1].default:
        values.pop()
    args = [py(v) for v in values]
    for param in params[len(positional) :]:
        field = getattr(value, param.name)
        if param.default is inspect.Parameter.empty or field != param.default:
            args.append(f"{param.name}={py(field)}")
    return f"{name}(" + ", ".join(args) + ")"


def word(text: str) -> str:
    """A word printed inside a comment or docstring of the generated module (what the
    spec calls its spells): plain lowercase letters, or refused."""
    if not re.fullmatch(r"[a-z]+(?: [a-z]+)*", text):
        raise ValueError(f"not a plain word for generated text: {text!r}")
    return text


def docstring(text: str, indent: int = 8) -> str:
    """A docstring literal: the text wrapped in triple quotes, where it can be."""
    if any(c in text for c in '"\\') or not text.isprintable():
        return repr(text)
    width = 100 - indent - 6
    return '"""' + ("\n" + " " * indent).join(textwrap.wrap(text, width)) + '"""'
