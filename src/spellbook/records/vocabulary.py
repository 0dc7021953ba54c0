"""Vocabularies: a workflow's own words, which the compiler reads and the runtime may load.

The compiler and the runtime know only the generic core (`spellbook.facts.probes` for
facts, `spellbook.verbs.actions` for file actions). What a workflow calls things is
in its vocabulary, chosen per machine in `[tool.spellbook]` (`vocabulary = NAME`):

- most often a file of words, data: a markdown file of `Nouns`, `Terms` and `File
  groups` tables, with a `templates/` folder beside it (`codegen.read.vocabulary_file`
  reads it; docs/guide/your-own-workflow.md shows one). `NAME` is a vocabulary that ships
  with Spellbook (`spellbook/vocabularies/NAME/vocabulary.md`: `spell_workflow`,
  `coding_session`), or the path of the project's own file, ending in `.md`. Being data,
  it needs no `--trust`; the generated module carries the templates it needs, so the
  runtime never reads the file;
- or, for a team whose workflow needs code, a Python module (`my_project.words`),
  imported only from the project a command runs in (or with `--trust`), never one of
  Python's standard library. A module defines at least one of (`DEFINES`):

- `NOUNS`: facts about a file's content, each named by a `Noun` (a pattern of
  words, the core probe and parameter that check it, the file it is usually
  about). Conditions then read `≥1 NOUN in FILE`, `no NOUN in FILE`, `NOUN found`,
  `FILE has a NOUN`, `Counts NOUN (finds ≥1)`, `Extracts NOUN from content (finds
  none)` and so on. (A vocabulary file's Nouns table says the same.)
- `TERMS`: phrases defined by other phrases, `{"tests pass": "the command
  `test_command` of tasks.json passes"}`, as a spec's Terms table does.
- `FILE_GROUPS`: names for groups of files in actions (`Archive review files ...`).
- `VERBS`: actions of the workflow's own, each a `Verb` (a pattern with the
  groups `file` and `target`) and a `plan_<name>(step, action)` function of the
  module that plans it at run time (see `spellbook.verbs.actions.Step`), and the state
  file's fields that plan sets (`writes`): the verifier refuses a condition that reads
  a field nothing sets.
- `TEMPLATES`: the folder of templates that `create` actions write new files from.
- `JUDGED` and `judge_write(name, before, after)`: workspace files that only the
  workflow's casts may change in some way, and why a hand-made write of one (its
  text before and after) is refused, or None; the hook
  (`check-transition --claude-hook`) asks it.

A vocabulary module imports nothing of the compiler, so the runtime can load it.
"""

from __future__ import annotations

import os
from importlib import import_module

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

PACKAGE = "spellbook.vocabularies"
# A file named in an action phrase, for a Verb's pattern: `list.json`, `.ai/task/a.md`;
# a name without an extension in backticks (`VERSION`, `.refs`).
FILE = r"`?(?P<file>(?<=`)[\w.\-/]*[\w\-](?=`)|[\w.\-/]*\w\.\w+)`?"


class Noun:
    """A fact about a file's content that a workflow has a name for.

    `pattern` is a regular expression over the words (matched whole, ignoring case);
    `name` is how findings and responses say it (`{file} has {name}`), unless `yes`
    and `no` say it better.
    """

    __slots__ = ("name", "pattern", "probe", "param", "file", "yes", "no")

    def __init__(
        self,
        name: str,
        pattern: str,
        probe: str,
        param: str,
        file: str = "",
        yes: str = "",
        no: str = "",
    ) -> None:
        self.name = name
        self.pattern = pattern
        self.probe = probe
        self.param = param
        self.file = file
        self.yes = yes or "{file} has " + name
        self.no = no or "{file} has no " + name


class Verb:
    """An action a workflow has a name for: `pattern` (matched whole, ignoring case) may
    have the groups `file` (relative to the workspace) and `target`. `writes` names the
    state file's fields its plan sets (`step.fields`), which conditions may then read."""

    __slots__ = ("name", "pattern", "writes")

    def __init__(self, name: str, pattern: str, writes: tuple[str, ...] = ()) -> None:
        self.name = name
        self.pattern = pattern
        self.writes = tuple(writes)


def module_name(name: str) -> str:
    """The module a vocabulary name means, for a vocabulary in Python: a module of
    `spellbook.vocabularies` of that name, else the module of that name (a project's
    own, `words` or `my_project.words`). (The vocabularies Spellbook ships are files of
    words, which `codegen.read.lexicon` finds first.)"""
    if "." in name:
        return name
    from importlib.util import find_spec

    return f"{PACKAGE}.{name}" if find_spec(f"{PACKAGE}.{name}") is not None else name


# What a vocabulary module defines (the module's doc says what each is): one at least.
DEFINES = ("NOUNS", "TERMS", "FILE_GROUPS", "VERBS", "TEMPLATES", "JUDGED")


class NotAVocabulary(ValueError):
    """A module named as a vocabulary that is none: one of Python's own, or one that
    defines none of `DEFINES`."""


def load(name: str) -> ModuleType | None:
    """The vocabulary module called `name` ("" for none). A module of Python's standard
    library is never imported as one (`vocabulary = "this"` would run it), nor a
    program's entry (`black.__main__`, any name with a part beginning with `_`), nor a
    module of Spellbook's or its compiler's but its vocabularies (`spellbook.__main__`
    would run `spell`); a module whose import exits (a program's `SystemExit`) is
    refused, and one that defines none of a vocabulary's names too, never read as no
    words."""
    if not name:
        return None
    import sys

    top = name.partition(".")[0]
    if top in sys.stdlib_module_names or top in sys.builtin_module_names:
        raise NotAVocabulary(f"{top!r} is a module of Python's standard library, not a vocabulary")
    if any(part.startswith("_") for part in name.split(".")):
        raise NotAVocabulary("a module whose name has a part beginning with `_` is no vocabulary")
    if top in ("spellbook", "codegen") and not name.startswith(f"{PACKAGE}."):
        raise NotAVocabulary(f"{name!r} is a module of Spellbook's own, not a vocabulary")
    try:
        module = import_module(module_name(name))
    except SystemExit as err:  # a program's entry: it ran, and exited
        raise NotAVocabulary(
            f"importing it ran a program, which exited ({err.code!r}): a vocabulary only "
            "defines words"
        ) from None
    except Exception:
        raise  # its own code failed: the caller says so
    except BaseException as err:  # `KeyboardInterrupt`, `GeneratorExit` raised on import
        raise NotAVocabulary(
            f"importing it stopped the program ({type(err).__name__}): a vocabulary only "
            "defines words"
        ) from None
    if not any(hasattr(module, defined) for defined in DEFINES):
        raise NotAVocabulary(
            f"the module {module.__name__!r} defines none of {', '.join(DEFINES)}, so it "
            "is no vocabulary"
        )
    return module


def template_file(folder: str, name: str) -> str:
    """The path of the template for a file (by the file's name) in `folder`, or ""."""
    if not folder:
        return ""
    path = os.path.join(folder, os.path.basename(name))
    return path if os.path.isfile(path) else ""


def template(vocabulary: ModuleType | None, name: str) -> str:
    """The vocabulary's template for a file, by the file's name; empty if there is none.
    Read once: templates ship with the vocabulary and do not change while it runs."""
    folder = getattr(vocabulary, "TEMPLATES", "") or ""
    found = _TEMPLATES.get((folder, name))
    if found is None:
        path = template_file(folder, name)
        text = ""
        if path:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        found = _TEMPLATES[(folder, name)] = text
    return found


_TEMPLATES: dict[tuple[str, str], str] = {}
