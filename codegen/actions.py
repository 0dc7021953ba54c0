"""The action vocabulary: what an Action cell can ask the runtime to do.

An Action cell is one phrase, or numbered phrases `(1) ...; (2) ...`. Each
phrase is matched against the verbs below, which the runtime implements once
each:

- `create`: `Create new task.md template`, `Create empty comments.md`: write the
  file from its template, or empty.
- `archive`: `Archive task.md and task-results.md to tasks/task-${task_name}/`:
  move the files into a new folder.
- `delete`: `Delete existing comments.md`: remove the files.
- `load`: `Load task-results.md content into memory`: put the file's text in the
  response for the AI.
- `extract`: `Extract task_name from task.md frontmatter`: read a frontmatter
  value for folder names like `${task_name}`.
- `mark`: `Mark the current feature tested in feature-list.json`: set the status
  (`tested`, `blocked` or `pending`) of the session's current feature.
- `select`: `Select the next pending feature in feature-list.json`: make the first
  pending feature the current one (`feature_id`) and start its attempts at 1.
- `increment`: `Increment attempts`: add one to a counter of the state file.
- `set_state`: `Update state to STATE`: the rule's Next State.
- `no_change`: `No state change`: nothing.
- `instruct`: any other phrase, kept as an instruction for the AI.

Files are named relative to the workspace folder (a leading `.ai/task/` is
dropped). Folder patterns may use `${date}` (or `<date>`) and any key an
earlier `extract` of the same cell reads.
"""

from __future__ import annotations

import re

from .model import Action

_FILE = r"`?(?P<file>[\w.\-/]*\w\.\w+)`?"

# Names the spell workflow gives to groups of its files.
FILE_GROUPS: dict[str, tuple[str, ...]] = {
    "review files": ("comments.md", "review-task.md", "review-task-results.md"),
    "existing review files": ("comments.md", "review-task.md", "review-task-results.md"),
}

_NUMBERED = re.compile(r"\(\d+\)\s*")
_CREATE = re.compile(rf"create (?:an? )?(?:new )?(?P<empty>empty )?{_FILE}(?P<rest>.*)", re.I)
_ARCHIVE = re.compile(
    r"archive (?P<files>.+?) (?:in)?to `?(?P<folder>[^\s`]+)`?(?: folder)?"
    r"(?: \(passed to (?:the )?AI as \[(?P<token>\w+)\]\))?",
    re.I,
)
_DELETE = re.compile(r"delete (?:the )?(?:existing )?(?P<files>.+)", re.I)
_LOAD = re.compile(rf"load {_FILE}(?: content)?(?: into memory)?", re.I)
_EXTRACT = re.compile(rf"extract (?P<key>\w+) from {_FILE} frontmatter", re.I)
_SET_STATE = re.compile(r"update state to `?(?P<state>[\w\[\]/]+)`?", re.I)
_MARK = re.compile(
    rf"mark the (?:current )?feature (?:as )?(?P<status>tested|blocked|pending) in {_FILE}", re.I
)
_SELECT = re.compile(rf"select the next pending feature (?:in|from) {_FILE}", re.I)
_INCREMENT = re.compile(r"increment (?:the )?(?P<counter>\w+)", re.I)
_NO_CHANGE = re.compile(r"no state change", re.I)
_ANGLE_VARIABLE = re.compile(r"<(\w+)>")
_VARIABLE = re.compile(r"\$\{(\w+)\}")
BUILTIN_VARIABLES = frozenset({"date"})


def split_phrases(text: str) -> list[str]:
    """`(1) a; (2) b` -> ['a', 'b']; an unnumbered cell is one phrase."""
    text = " ".join(text.split())
    if not _NUMBERED.match(text):
        return [text.strip().rstrip(".;").strip()] if text.strip() else []
    parts = _NUMBERED.split(text)
    return [p.strip().rstrip(";.").strip() for p in parts if p.strip().rstrip(";.").strip()]


def parse_actions(text: str, workspace: str) -> tuple[Action, ...]:
    """Parse an Action cell (plain text) into verbs; unknown phrases become `instruct`."""
    actions: list[Action] = []
    extracted: set[str] = set()
    for phrase in split_phrases(text):
        action = parse_action(phrase, workspace, extracted)
        if action.verb == "extract":
            extracted.add(action.target)
        actions.append(action)
    return tuple(actions)


def parse_action(phrase: str, workspace: str, extracted: set[str] | None = None) -> Action:
    m = _NO_CHANGE.fullmatch(phrase)
    if m:
        return Action("no_change", phrase)
    m = _SET_STATE.fullmatch(phrase)
    if m:
        return Action("set_state", phrase, target=m.group("state"))
    m = _MARK.fullmatch(phrase)
    if m:
        file = _relative(m.group("file"), workspace)
        return _checked(Action("mark", phrase, (file,), m.group("status").lower()))
    m = _SELECT.fullmatch(phrase)
    if m:
        return _checked(Action("select", phrase, (_relative(m.group("file"), workspace),)))
    m = _INCREMENT.fullmatch(phrase)
    if m:
        return Action("increment", phrase, target=m.group("counter"))
    m = _EXTRACT.fullmatch(phrase)
    if m:
        return _checked(
            Action("extract", phrase, (_relative(m.group("file"), workspace),), m["key"])
        )
    m = _LOAD.fullmatch(phrase)
    if m:
        return _checked(Action("load", phrase, (_relative(m.group("file"), workspace),)))
    m = _CREATE.fullmatch(phrase)
    if m:
        file = _relative(m.group("file"), workspace)
        template = "" if m.group("empty") or "template" not in m.group("rest").lower() else file
        return _checked(Action("create", phrase, (file,), template))
    m = _ARCHIVE.fullmatch(phrase)
    if m:
        files = _files(m.group("files"), workspace)
        if files is not None:
            folder = _ANGLE_VARIABLE.sub(r"${\1}", _relative(m.group("folder"), workspace))
            action = _checked(Action("archive", phrase, files, folder.rstrip("/") + "/"))
            unknown = set(_VARIABLE.findall(folder)) - BUILTIN_VARIABLES - (extracted or set())
            if unknown and not action.problem:
                names = ", ".join("${" + v + "}" for v in sorted(unknown))
                action = Action(
                    "archive", phrase, files, action.target, f"{names} is not known here"
                )
            return action
    m = _DELETE.fullmatch(phrase)
    if m:
        files = _files(m.group("files"), workspace)
        if files is not None:
            return _checked(Action("delete", phrase, files))
    return Action("instruct", phrase)


def _files(text: str, workspace: str) -> tuple[str, ...] | None:
    """`a.md and b.md`, `a.md, b.md` or a named group; None if not all are files."""
    group = FILE_GROUPS.get(" ".join(text.lower().split()))
    if group is not None:
        return group
    names = [n.strip().strip("`") for n in re.split(r",\s*|\s+and\s+", text) if n.strip()]
    if not names or not all(re.fullmatch(r"[\w.\-/]*\w\.\w+", n) for n in names):
        return None
    return tuple(_relative(n, workspace) for n in names)


def _relative(path: str, workspace: str) -> str:
    path = path.strip("`")
    if workspace and path.startswith(workspace.rstrip("/") + "/"):
        path = path[len(workspace.rstrip("/")) + 1 :]
    while path.startswith("./"):
        path = path[2:]
    return path


def _checked(action: Action) -> Action:
    """Refuse paths that would leave the workspace folder."""
    for path in (*action.files, action.target if action.verb == "archive" else ""):
        parts = path.split("/")
        if path.startswith(("/", "~")) or ".." in parts or "\\" in path:
            return Action(
                action.verb,
                action.text,
                action.files,
                action.target,
                f"{path} is outside the workspace folder",
            )
    return action
