"""The file operations a rule's plan is made of, and carrying them out once: the files as
the operations planned so far leave them (`Files`), and `apply`, which any cast may
repeat after a crash with the same result."""

from __future__ import annotations

from spellbook.disk.own_files import folded
from spellbook.disk.store import READ_LIMIT, Workspace
from spellbook.records.errors import ActionError

TYPE_CHECKING = False
if TYPE_CHECKING:
    pass


# The file operations a plan is made of, with the number of texts each carries:
# ["folder", path], ["move", from, to], ["create", path, text],
# ["update", path, new text, checksum of the text it replaces].
OPERATIONS = {"folder": 1, "move": 2, "create": 2, "update": 3}


def paths_of(operation: list[str]) -> list[str]:
    """The workspace paths an operation touches (a move has two)."""
    return operation[1:3] if operation[0] == "move" else operation[1:2]


class Files:
    """The workspace's files as the operations planned so far will leave them."""

    def __init__(self, workspace: Workspace, operations: list[list[str]]) -> None:
        self.workspace = workspace
        self.operations = operations
        self.located: dict[str, str] = {}  # a file's name -> where earlier operations put it
        self.origin: dict[str, str] = {}  # a planned path -> the file on disk it will be
        self.written: dict[str, str] = {}  # a planned path -> the text it will be created with
        self.gone: set[str] = set()
        self.taken: set[str] = set()

    def where(self, name: str) -> str:
        return self.located.get(name, name)

    def exists(self, path: str) -> bool:
        if path in self.gone:
            return False
        return path in self.origin or path in self.written or self.workspace.exists(path)

    def new_folder(self, folder: str) -> str:
        """A folder that does not exist: `folder`, or `folder-2`, `folder-3`, ..."""
        for n in range(1, 10_000):
            candidate = folder if n == 1 else f"{folder}-{n}"
            if candidate not in self.taken and not self.workspace.exists(candidate):
                self.taken.add(candidate)
                self.operations.append(["folder", candidate])
                return candidate
        raise ActionError(f"no free folder name for {self.workspace.shown(folder)}")

    def move(self, name: str, dest: str) -> None:
        src = self.where(name)
        if src not in self.written:  # a file on disk: one the move can take, or we stop now
            self.workspace.is_file(self.origin.get(src, src), "moving")
        self.operations.append(["move", src, dest])
        if src in self.written:
            self.written[dest] = self.written.pop(src)
        else:
            self.origin[dest] = self.origin.pop(src, src)
        self.gone.add(src)
        self.gone.discard(dest)
        self.located[name] = dest

    def create(self, name: str, text: str) -> bool:
        if name not in self.written and name not in self.origin and name not in self.gone:
            # a folder or a link by its name is no file kept: refused now, nothing changed
            self.workspace.is_file(name, "creating")
        if self.exists(name):
            return False
        self.operations.append(["create", name, text])
        self.written[name] = text
        self.gone.discard(name)
        self.located.pop(name, None)
        return True

    def read(self, name: str) -> str | None:
        path = self.where(name)
        if path in self.written:
            return self.written[path]
        if path in self.gone:
            return None
        return self.workspace.read_text(self.origin.get(path, path), READ_LIMIT)

    def read_exact(self, name: str) -> str | None:
        """`read`, for a text the cast writes again: a file that is not UTF-8 text is an
        ActionError, since rewriting it would change bytes that are not its text's."""
        path = self.where(name)
        if path in self.written or path in self.gone:
            return self.read(name)
        data = self.workspace.read_bytes(self.origin.get(path, path), READ_LIMIT)
        if data is None:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise ActionError(
                f"{self.workspace.shown(name)} is not UTF-8 text (byte 0x{data[err.start]:02X} "
                f"at offset {err.start}); a cast would change its bytes by writing it again, "
                "so it does not"
            ) from None


def apply(
    operations: list[list[str]], workspace: Workspace, unmoved: list[str] | None = None
) -> list[str]:
    """Carry out planned operations; applying them again, after an interruption at any
    point, finishes the work without doing any of it twice. Returns notes on anything
    found changed since the plan (left as it was: no file is overwritten); `unmoved`
    gets the files a move finds where they were, beside a destination written meanwhile
    (whether or not the move was made before an interruption), or gone: the response
    then never says they were moved, and the notes say what was left."""
    notes: list[str] = []
    workspace.hold_syncs()  # each folder synced once, after all the operations
    try:
        _apply(operations, workspace, notes, unmoved if unmoved is not None else [])
    finally:
        workspace.release_syncs()
    return notes


def _apply(
    operations: list[list[str]], workspace: Workspace, notes: list[str], unmoved: list[str]
) -> None:
    for at, operation in enumerate(operations):
        verb, path, *texts = operation
        if verb == "folder":
            workspace.ensure(path)
        elif verb == "move":
            dest = texts[0]
            if workspace.exists(dest):
                # Moved before an interruption. A file by the old name now is a newer
                # one, made later in the plan: it stays. One the plan does not make is
                # the file not moved, or one written since: both stay, and that is said.
                later = {op[1] for op in operations[at + 1 :] if op[0] in ("create", "move")}
                later |= {op[2] for op in operations[at + 1 :] if op[0] == "move"}
                if workspace.exists(path) and path not in later:
                    unmoved.append(path)
                    notes.append(
                        f"{workspace.shown(dest)} already holds a file and "
                        f"{workspace.shown(path)} is there too: both are left as they are, "
                        "the move not made again"
                    )
                continue
            if workspace.exists(path):
                workspace.move(path, dest)
            else:
                unmoved.append(path)
                notes.append(f"{workspace.shown(path)} is gone; there was nothing to move")
        elif verb == "create":
            workspace.create(path, texts[0])  # there already: made before an interruption
        elif verb == "update":
            text, checksum = texts
            current = workspace.read_text(path, READ_LIMIT)
            if current is not None and checksum_of(current) == checksum:
                workspace.replace(path, text.encode("utf-8"))
            elif current != text:
                notes.append(f"{workspace.shown(path)} changed since the cast read it; not updated")


def distinct_names(paths: tuple[str, ...]) -> list[str]:
    """The names the files `paths` take in the one folder they are moved into: each its
    own, but where files of several folders share a name (`a/notes.md`, `b/notes.md`),
    the later ones `-2`, `-3`... before the extension (`notes-2.md`), no two alike as a
    filesystem that ignores case tells names apart (`schema.folded`)."""
    names = [path.rsplit("/", 1)[-1] for path in paths]
    first: dict[tuple[str, ...], int] = {}
    for at, name in enumerate(names):
        first.setdefault(folded(name), at)
    taken = set(first)
    found = []
    for at, name in enumerate(names):
        if first[folded(name)] != at:
            dotted = "." in name.lstrip(".")  # `.env` has no extension
            stem, dot, extension = name.rpartition(".") if dotted else (name, "", "")
            count = 2
            while folded(f"{stem}-{count}{dot}{extension}") in taken:
                count += 1
            name = f"{stem}-{count}{dot}{extension}"
            taken.add(folded(name))
        found.append(name)
    return found


def checksum_of(text: str) -> str:
    """Tells a file's text from another it might have become (not a security measure)."""
    import zlib  # a library of its own to load: only casts that update a file need it

    data = text.encode("utf-8", "surrogatepass")
    return f"{len(data)}:{zlib.crc32(data):08x}"
