"""`python -m codegen --check` passes only the generator's output, token for token
(layout aside): a module changed at the byte level (an encoding declared, a byte order
mark, a comment, a header line, trailing data) is stale even when whoever changed it
recomputed the fingerprint's second hash, which anyone can. (A `# -*- coding: utf-7 -*-`
line made a comment's tail a statement that ran on import while the check said fresh.)"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from codegen import load_spec
from codegen.cli.generate import Made, _as_written
from codegen.render import machine_source
from codegen.render.freshness import FINGERPRINT, _hash, _header

ROOT = Path(__file__).resolve().parents[2]
SOURCE = machine_source(
    load_spec(ROOT / "spec" / "STATE_MACHINE.md", "spec/STATE_MACHINE.md"), "spell_machine"
)
MADE = Made(source=SOURCE)
TEXT = (ROOT / "generated" / "spell_machine.py").read_text(encoding="utf-8")


def refingerprinted(text: str) -> str:
    """`text` with the fingerprint's second hash made to fit it, as an attacker can."""
    head, rest = _header(text)
    if not rest.startswith(FINGERPRINT):
        return text
    line, _, body = rest.partition("\n")
    made = line[len(FINGERPRINT) :].partition(" ")[0]
    return f"{head}{FINGERPRINT}{made} {_hash(head + body)}\n{body}"


def checked(tmp_path: Path, data: bytes) -> bool:
    path = tmp_path / "spell_machine.py"
    path.write_bytes(data)
    return MADE.matches(_as_written(path))


def test_the_committed_module_is_fresh_and_the_utf7_attack_is_not(tmp_path: Path) -> None:
    assert checked(tmp_path, TEXT.encode())
    attack = refingerprinted("# -*- coding: utf-7 -*-\n" + TEXT + "# +AAo-import os\n")
    assert not checked(tmp_path, attack.encode())


LINES = TEXT.split("\n")
MUTATIONS = st.one_of(
    st.tuples(st.just("coding"), st.sampled_from(["utf-7", "latin-1", "utf-8", "cp1252"])),
    st.tuples(st.just("bom"), st.just("")),
    st.tuples(st.just("comment"), st.integers(0, len(LINES) - 1)),
    st.tuples(st.just("header"), st.sampled_from(["# note", "#!/usr/bin/env python", "# x"])),
    st.tuples(st.just("trailing"), st.sampled_from(["# end", "\n\n", "x = 1", "\x0c"])),
    st.tuples(st.just("crlf"), st.just("")),
    st.tuples(st.just("byte"), st.integers(0, len(TEXT) - 1)),
)


def mutated(kind: str, arg: object) -> bytes:
    if kind == "coding":
        return refingerprinted(f"# -*- coding: {arg} -*-\n" + TEXT).encode()
    if kind == "bom":
        return b"\xef\xbb\xbf" + TEXT.encode()
    if kind == "comment":
        lines = list(LINES)
        lines.insert(int(str(arg)), "# a comment")
        return refingerprinted("\n".join(lines)).encode()
    if kind == "header":
        return refingerprinted(f"{arg}\n" + TEXT).encode()
    if kind == "trailing":
        return refingerprinted(TEXT + str(arg)).encode()
    if kind == "crlf":
        return TEXT.replace("\n", "\r\n").encode()  # a checkout on Windows: the same text
    at = int(str(arg))
    data = bytearray(TEXT.encode())
    data[at % len(data)] ^= 0x20
    return bytes(data)


@settings(max_examples=60, deadline=None)
@given(MUTATIONS)
def test_only_the_generator_s_exact_text_is_fresh(mutation: tuple[str, object]) -> None:
    import tempfile

    data = mutated(*mutation)
    with tempfile.TemporaryDirectory() as folder:
        fresh = checked(Path(folder), data)
    # Layout alone (Windows line ends, blank lines or a form feed at the end) leaves the
    # same tokens; every other change is stale, the fingerprint recomputed or not.
    layout = mutation[0] == "crlf" or mutation in (("trailing", "\n\n"), ("trailing", "\x0c"))
    assert fresh == layout, mutation
