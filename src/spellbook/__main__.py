"""`python -m spellbook`: the `spell` command."""

import sys

from spellbook.cli import main

sys.exit(main())
