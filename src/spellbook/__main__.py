"""`python -m spellbook`: the `spell` command."""

from spellbook.cli import run

run()
