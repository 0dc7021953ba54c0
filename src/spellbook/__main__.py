"""`python -m spellbook`: the `spell` command."""

from spellbook.doors.cli import run

run()
