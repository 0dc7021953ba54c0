"""Ctrl-C ends `spell` with one line and exit status 130, never a traceback; the hook,
interrupted, blocks (exit 2), since it could not judge."""

from __future__ import annotations

import pytest

from spellbook import cli
from spellbook.exits import EXIT_HOOK_BLOCK, EXIT_INTERRUPTED


def interrupted(argv: list[str] | None = None) -> int:
    raise KeyboardInterrupt


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["spell", "accio"], EXIT_INTERRUPTED),
        (["spell", "session", "check-transition"], EXIT_HOOK_BLOCK),
    ],
)
def test_ctrl_c_is_one_line_and_an_exit_status(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str], code: int
) -> None:
    monkeypatch.setattr(cli, "main", interrupted)
    monkeypatch.setattr("sys.argv", argv)
    with pytest.raises(SystemExit) as ended:
        cli.run()
    assert ended.value.code == code
    err = capsys.readouterr().err
    assert err == "spell: interrupted; nothing half done is lost\n" and "Traceback" not in err
