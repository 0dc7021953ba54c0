"""`spellbook-verify` (in a checkout, `verify-state-machine.py`): coverage matrix and
findings for a spec, or for every machine the project configures, as text or JSON."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn

from spellbook.disk.project import PYPROJECT
from spellbook.records.exits import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK

from ..analyse import Finding, analyse
from ..analyse.report import is_ok
from ..budget import (
    StoppedBySignal,
    add_arguments,
    budget,
    ending,
    out_of_memory,
    pending,
    saying,
    signals,
)
from ..config import (
    SPEC_DIR,
    forget_configs,
    load_config,
    options_for,
    project_of,
    targets,
    unlisted_note,
)
from ..pipeline import SectionSpec, SeveralMachines, load_machines, load_spec, quick, shared_state
from ..read.lexicon import ReadOptions
from ..read.sections import Section
from ..spec_error import NoSection, SpecError
from .formats import DEFAULT, FORMATS, Format, Gathered, Ran, Said, formats_help
from .streams import SafeArgumentParser, UnwrittenOutput, cannot_write, emit, say

DEFAULT_SPEC = "spec/STATE_MACHINE.md"
SIGNALLED = 128  # an exit status from 128 up: a run stopped by a signal (128 + its number)
# The formats whose entry in FORMATS has a `diff` form (a test holds the two together).
AGAINST_FORMATS = "--against reports as text, markdown or json"


class _Parser(SafeArgumentParser):
    """The verifier's arguments: a usage error is said on stdout too, in the error form
    of the format the command line asks for, where that can be told (as a run that
    cannot read its spec says it)."""

    def __init__(self, argv: Sequence[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.argv = argv

    def error(self, message: str) -> NoReturn:
        options = [name for action in self._actions for name in action.option_strings]
        flags = [n for a in self._actions if a.nargs == 0 for n in a.option_strings]
        asked = _asked(self.argv, options, flags)
        said = FORMATS[asked.format].failure_of(asked)
        if said is not None:
            with contextlib.suppress(UnwrittenOutput):  # argparse says it on stderr next
                emit(said(asked, SpecError(message, 0).locate(asked.spec, None)))
        super().error(message)


def _asked(
    argv: Sequence[str], options: Sequence[str], flags: Sequence[str] = ()
) -> argparse.Namespace:
    """What a command line argparse cannot take says of its format, spec and older spec,
    read as argparse reads them (an option may be shortened to a prefix of no other of
    `options`, its value given after `=`; the first word that is no option's value is
    the spec; `flags` are the options that take no value)."""
    found = {"format": DEFAULT, "spec": DEFAULT_SPEC, "against": None}
    items = list(argv)
    value_next = False
    positional = ""
    for at, item in enumerate(items):
        if value_next:
            value_next = False
            continue
        name, equals, value = item.partition("=")
        whole = [o for o in options if name == o] or [
            o for o in options if name.startswith("--") and o.startswith(name)
        ]
        key = whole[0].removeprefix("--") if len(whole) == 1 else ""
        if key in found and (equals or at + 1 < len(items)):
            found[key] = value if equals else items[at + 1]
        value_next = bool(whole) and not equals and whole[0] not in flags
        if not whole and not item.startswith("-") and not positional:
            positional = item
    if positional:
        found["spec"] = positional
    if found["format"] not in FORMATS:
        found["format"] = DEFAULT
    return argparse.Namespace(**found)


def _arguments(argv: Sequence[str] | None, prog: str, default: str | None) -> argparse.Namespace:
    given = sys.argv[1:] if argv is None else list(argv)
    parser = _Parser(
        given,
        prog=prog,
        description="Check that a markdown state-machine spec defines every "
        "(state, spell) combination, and report what it finds.",
        epilog=f"Exit status: {EXIT_OK} no errors, {EXIT_FAILED} errors found "
        f"(or warnings with --strict; with --against, a change that can break existing "
        f"workspaces), {EXIT_BAD_INPUT} unusable input.",
    )
    parser.add_argument(
        "spec_file",
        nargs="?",
        metavar="SPEC",
        help="spec file to verify, as --spec says (give it one way, not both)",
    )
    parser.add_argument(
        "--spec",
        help=f"spec file to verify (default: {default})"
        if default
        else "spec file to verify (default: every machine [tool.spellbook.machines] in "
        "pyproject.toml lists, or every spec/*.md where it lists none, each on its own)",
    )
    parser.add_argument(
        "--format",
        choices=tuple(FORMATS),
        default=DEFAULT,
        help=formats_help(),
    )
    parser.add_argument("--strict", action="store_true", help="fail on warnings too")
    parser.add_argument(
        "--brief",
        action="store_true",
        help="text format: only the findings that fail, then a one-line verdict (for hooks)",
    )
    parser.add_argument(
        "--explain",
        action="store_true",
        help="text format: also every row's and every term's reading in the core's words "
        "(the json and markdown reports always carry it, and --against always names the "
        "rows whose reading changed)",
    )
    parser.add_argument(
        "--against",
        metavar="OLD_SPEC",
        help="compare the spec's behaviour with an older revision of it instead: a file, a "
        "git revision and path (origin/main:spec/STATE_MACHINE.md), or a revision alone "
        "(origin/main:) for the same file there; exit status 1 when the change can break "
        "existing workspaces (a state removed or renamed with no migration)",
    )
    parser.add_argument(
        "--section",
        metavar="TEXT",
        help="in a file of several machines, one per section, verify only the section whose "
        "heading is TEXT (without its number, in any case); without it, each machine is "
        "verified on its own",
    )
    parser.add_argument(
        "--vocabulary",
        metavar="NAME",
        help="the workflow's vocabulary module (default: the one [tool.spellbook] in "
        "pyproject.toml names for this spec; '' for the core alone)",
    )
    add_arguments(parser, "checking the spec")
    parser.add_argument(
        "--trust",
        action="store_true",
        help="import the vocabulary module a spec's own project names even when that is "
        "not the project this command runs in (importing it runs its code; without this "
        "flag such a spec is read with the shipped vocabularies only)",
    )
    args = parser.parse_args(given)
    if args.spec_file is not None and args.spec is not None:
        parser.error(f"the spec is given twice, as {args.spec_file} and --spec {args.spec}")
    args.spec = args.spec_file if args.spec_file is not None else args.spec
    args.spec = default if args.spec is None else args.spec
    return args


def main(
    argv: Sequence[str] | None = None,
    prog: str = "verify-state-machine.py",
    default: str | None = DEFAULT_SPEC,
) -> int:
    """The verifier, as `prog`; with no --spec it reads `default`, or where that is None
    every machine of the project it runs in (`_project`)."""
    try:
        with quick(), signals():  # from the first: a signal is said as the run's ending
            return _main(argv, prog, default)
    except UnwrittenOutput as err:
        return cannot_write(err, "the report")
    except StoppedBySignal as err:  # before any spec was read (reading the arguments)
        say(f"error: {err}")
        return err.exit_code
    except MemoryError:  # past what the budget's checks could catch
        say("error: out of memory; nothing more could be said")
        return EXIT_BAD_INPUT


def _main(argv: Sequence[str] | None, prog: str, default: str | None) -> int:
    forget_configs()  # a run reads the project's files afresh
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    args = _arguments(argv, prog, default)
    if args.spec is None:
        return _project(args)
    return _verify(args)


def _project(args: argparse.Namespace) -> int:
    """Every machine the project in the current folder configures (or every spec/*.md
    where it lists none), each verified and reported on its own; the exit status is the
    worst of theirs."""
    cwd = Path.cwd()
    try:
        root = project_of(cwd / PYPROJECT) or cwd
    except SpecError as err:  # a pyproject.toml that is a symbolic link
        return _refused(args, err)
    where = os.path.relpath(root / PYPROJECT if (root / PYPROJECT).is_file() else root)
    try:
        chosen = targets(root, load_config(root), None)
        said = FORMATS[args.format].failure_of(args)
        on_end = None if said is None else (lambda message: _said_here(said, args, where, message))
        with budget(args.budget, where, args.memory, on_end):  # it reads every spec
            shared_state(root, chosen)
    except SpecError as err:
        return _refused(args, err)
    if not chosen:
        return _refused_here(
            args,
            where,
            f"no spec to verify: pass --spec PATH (the markdown file of the machine), "
            f"or run this in a project whose pyproject.toml lists its machines under "
            f"[tool.spellbook.machines] (or that keeps its specs in {SPEC_DIR}/)",
        )
    runs = [
        _for(args, os.path.relpath(root / m.spec), m.options.section or args.section, m.module)
        for m in chosen
    ]
    form = FORMATS[args.format]
    if args.against is not None and form.diff is None:  # said once, not once per machine
        return _refused_here(args, where, f"{AGAINST_FORMATS}, not {form.name}")
    if len(runs) > 1 and _one_file(args.against):
        listed = ", ".join(dict.fromkeys(run.spec for run in runs))
        message = f"this project configures {len(runs)} machines ({listed}); --against "
        return _refused_here(
            args, where, f"{message}{args.against} is one file: pass --spec PATH for each"
        )
    with signals():  # a signal between two machines, or while the document is closed
        return _each(form, {"project": where}, runs)


def _each(form: Format, head: dict[str, str], runs: list[argparse.Namespace]) -> int:
    """Each of a project's machines verified on its own, its output written as its run
    ends (`Format.between` before it, or as an entry of the one document `Format.gathered`
    writes); the exit status is the worst of theirs. A signal ends the run at the machine
    it came in: the machines after it are not verified."""
    global _gathering
    gathering = None
    if len(runs) > 1 and form.gathered is not None:
        _gathering = gathering = _Gathering(form.gathered, head)
    worst = EXIT_OK
    try:
        for at, run in enumerate(runs):
            signum = pending()  # came while the machine before said how it ended
            if signum is not None:
                stopped = StoppedBySignal(signum)
                say(f"error: {stopped}: the machines from {run.spec} on were not verified")
                worst = stopped.exit_code
                break
            if len(runs) > 1 and form.between is not None:
                emit(form.between(at, run))
            if gathering is not None:
                gathering.run = run
            code = _verify(run)
            worst = max(worst, code)
            saying()  # its entry is written whole: a signal now is noted (`pending`)
            if gathering is not None:
                gathering.ended(code == EXIT_OK)
            if code >= SIGNALLED:  # stopped by a signal, and said so
                break
    except StoppedBySignal as err:  # between two machines
        say(f"error: {err}")
        worst = err.exit_code
    finally:
        _gathering = None
        saying()  # from here a signal is noted, never cuts the document short
    if gathering is not None:
        gathering.close()
    return worst


class _Gathering:
    """The outputs of a project's machines as one document (`Format.gathered`), each
    written as its run ends: nothing of a machine is kept once its entry is written."""

    def __init__(self, form: Gathered, head: dict[str, str]) -> None:
        self.form, self.head = form, head
        self.run: argparse.Namespace | None = None  # the run under way
        self.said: Said | None = None  # what it has said, not yet written
        self.written = 0  # entries written
        self.ok = True

    def keep(self, said: Said) -> None:
        """The output of the run under way, written when it ends (`ended`)."""
        self.said = said

    def ended(self, ok: bool) -> None:
        """The run under way has ended: its output written as the document's next entry."""
        if self.run is not None and self.said is not None:
            entry = self.form.entry(Ran(self.run, self.said, ok))
            if entry:
                if not self.written:
                    emit(self.form.opening(self.head))
                emit((",\n" if self.written else "") + entry)
                self.written += 1
        self.ok = self.ok and ok
        self.run, self.said = None, None

    def close(self) -> None:
        """The document's end, saying whether every machine passed."""
        if not self.written:
            emit(self.form.opening(self.head))
        emit(("\n" if self.written else "") + self.form.closing(self.ok))


_gathering: _Gathering | None = None  # while a project's outputs are gathered


def _out(said: Said) -> None:
    """A run's report or failure form: written now, or kept as the document's next entry
    while a project's outputs are gathered into one."""
    if _gathering is None or _gathering.run is None:
        emit(said)
    else:
        _gathering.keep(said)


def _one_file(against: str | None) -> bool:
    """Whether --against names one older file (not a revision alone, `REV:`)."""
    return against is not None and not against.endswith(":")


def _for(
    args: argparse.Namespace, spec: str, section: str | None, machine: str | None = None
) -> argparse.Namespace:
    """`args`, for the spec `spec` (and its `section`; `machine`: the project's name for
    it, where it is a project's machine)."""
    return argparse.Namespace(
        **{**vars(args), "spec": spec, "section": section or None, "machine": machine}
    )


def _verify(args: argparse.Namespace) -> int:
    """One spec (`--spec`) verified, or compared with --against."""
    said = FORMATS[args.format].failure_of(args)
    on_end = None if said is None else (lambda message: _say_error(said, args, message))
    try:
        with signals():
            try:
                with budget(args.budget, args.spec, args.memory, on_end):
                    try:
                        return _run(args)
                    except MemoryError:  # writing the report, say: the checks catch their own
                        return _failed(args, out_of_memory())
            except StoppedBySignal as err:  # a signal, wherever it came: said while the handlers
                return _failed(args, err)  # are still ours, so no other one cuts it short
    except StoppedBySignal as err:  # one that came while they were being set
        return _failed(args, err)


def _run(args: argparse.Namespace) -> int:
    if args.against is not None:
        return _against(args)
    try:
        options = _read_options(args)
        found = load_machines(args.spec, options=options)
        checked = [(m, analyse(m.spec)) for m in found]
    except MemoryError:
        return _failed(args, out_of_memory())
    except SpecError as err:
        return _failed(args, err)
    ending()
    if len(checked) > 1:
        return _several(args, options, checked)
    spec, findings = checked[0][0].spec, checked[0][1]
    if args.vocabulary is None and any(f.kind.startswith("unknown_") for f in findings):
        note = unlisted_note(args.spec, options)
        if note:
            say(f"note: {note}")
    _out(FORMATS[args.format].report(args, spec, findings, options))
    return EXIT_OK if is_ok(findings, args.strict) else EXIT_FAILED


def _several(
    args: argparse.Namespace,
    options: ReadOptions,
    checked: list[tuple[SectionSpec, list[Finding]]],
) -> int:
    """The reports of a file of several machines, each verified on its own: one per
    machine, headed by its section (json: one object holding them; sarif: one run
    each); the exit status is the worst of theirs."""
    _out(FORMATS[args.format].sections(args, options, checked))
    ok = all(is_ok(findings, args.strict) for _, findings in checked)
    return EXIT_OK if ok else EXIT_FAILED


def _against(args: argparse.Namespace) -> int:
    """The behavioural diff of `--spec` against `--against`."""
    from ..diff import compare
    from ..diff.revisions import NewSince, OldSpecError, load_old

    form = FORMATS[args.format]
    if form.diff is None:
        return _failed(args, *_said_at(args.spec, f"{AGAINST_FORMATS}, not {form.name}"))
    try:
        options = _read_options(args)
        try:
            new = load_spec(args.spec, options=options)
        except SeveralMachines as err:  # each section against the same section of the old
            return _against_each(args, options, err.sections)
        old, borrowed, vocabularies = load_old(args.against, new, options, args.spec)
        diff = compare(old, new, borrowed)
        diff.vocabularies = vocabularies
    except MemoryError:
        return _failed(args, out_of_memory())
    except NewSince as err:  # a machine new since the revision: nothing can break
        assert form.diff_new is not None  # a format with a diff has this form too
        ending()
        _out(form.diff_new(args, err.shown))
        return EXIT_OK
    except OldSpecError as err:
        return _failed(args, SpecError(str(err), 0).locate(args.against, None), shown=str(err))
    except SpecError as err:
        return _failed(args, err)
    ending()
    _out(form.diff(diff))
    return EXIT_FAILED if diff.breaking else EXIT_OK


def _against_each(
    args: argparse.Namespace, options: ReadOptions, sections: Sequence[Section]
) -> int:
    """The diff of each machine of a file of several, one per section, against the same
    section of `--against`, said as a project's machines are (`Format.between` or
    `Format.gathered`); the exit status is the worst of theirs."""
    from ..diff import compare
    from ..diff.revisions import load_old

    form = FORMATS[args.format]
    assert form.diff is not None and form.diff_sections is not None  # `_against` refused
    ran = []
    missing: list[NoSection] = []
    for section in sections:
        chosen = replace(options, section=section.name)
        new = load_spec(args.spec, options=chosen)
        on = _for(args, args.spec, section.name)
        try:
            old, borrowed, vocabularies = load_old(args.against, new, chosen, args.spec)
        except NoSection as err:  # a machine new since: nothing to compare, nothing can break
            assert form.diff_new is not None  # a format with a diff has this form too
            shown = f"{args.against} (no section {section.name!r} there)"
            ran.append(Ran(on, form.diff_new(on, shown), True))
            missing.append(err)
            continue
        diff = compare(old, new, borrowed)
        diff.vocabularies = vocabularies
        ran.append(Ran(on, form.diff(diff), not diff.breaking))
    if len(missing) == len(sections):  # none is there: not the same file's machines
        raise missing[0]
    ran += _gone(args, options, sections)
    ending()
    _out(form.diff_sections(args, ran))
    return EXIT_OK if all(r.ok for r in ran) else EXIT_FAILED


def _gone(args: argparse.Namespace, options: ReadOptions, sections: Sequence[Section]) -> list[Ran]:
    """The machines of the older file (`--against`) that are no section of the spec
    now: each a machine removed, which breaks the workspaces in its states."""
    from ..diff.revisions import load_old

    form = FORMATS[args.format]
    assert form.diff_gone is not None  # a format with a diff has this form too
    new = load_spec(args.spec, options=replace(options, section=sections[0].name))
    try:
        load_old(args.against, new, options, args.spec)
    except SeveralMachines as err:
        gone = [old for old in err.sections if not any(s.matches(old.name) for s in sections)]
        return [
            Ran(on, form.diff_gone(on, f"{args.against} (section {old.name!r})"), False)
            for old in gone
            for on in [_for(args, args.spec, old.name)]
        ]
    return []


def _failed(args: argparse.Namespace, err: SpecError, shown: str | None = None) -> int:
    """The spec could not be checked, or the run was stopped: the error on stderr (and,
    for a format a machine or a pull request reads, its error form on stdout), exit 2
    (128 + the signal's number for a signal)."""
    ending()
    if err.path == "<spec>":
        err.locate(args.spec, None)
    return _refused(args, err, shown)


def _refused(args: argparse.Namespace, err: SpecError, shown: str | None = None) -> int:
    """A run that ends without its report: `shown` (or the error) on stderr, the
    format's failure form on stdout, exit 2 (128 + its number for a signal)."""
    say(f"error: {shown or err}")
    said = FORMATS[args.format].failure_of(args)
    if said is not None:
        _out(said(args, err))
    return err.exit_code if isinstance(err, StoppedBySignal) else EXIT_BAD_INPUT


def _refused_here(args: argparse.Namespace, where: str, message: str) -> int:
    """A run refused before it reads a spec, said of the file or folder `where`."""
    return _refused(args, *_said_at(where, message))


def _said_at(where: str, message: str) -> tuple[SpecError, str]:
    """An error of the file `where` as a whole, and its words on stderr (`message`)."""
    return SpecError(message, 0).locate(where, None), message


def _say_error(
    said: Callable[[argparse.Namespace, SpecError], Said], args: argparse.Namespace, message: str
) -> None:
    """The error the budget's watchdog ends the run with, in the run's format."""
    _out(said(args, SpecError(message, 0).locate(args.spec, None)))
    if _gathering is not None:  # the process ends next: the project's document now
        _gathering.ended(False)
        _gathering.close()


def _said_here(
    said: Callable[[argparse.Namespace, SpecError], Said],
    args: argparse.Namespace,
    where: str,
    message: str,
) -> None:
    """The error the budget's watchdog ends a project's run with before any machine's,
    in the run's format, said of the project (`where`)."""
    emit(said(args, SpecError(message, 0).locate(where, None)))


def _read_options(args: argparse.Namespace) -> ReadOptions:
    """How to read the spec: as the project that holds it configures it, or else the
    project in the current folder; another project's own vocabulary only with --trust."""
    return options_for(args.spec, Path.cwd(), args.trust, args.vocabulary, args.section)
