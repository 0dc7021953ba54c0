#!/usr/bin/env python3
"""Verify a markdown state-machine spec: coverage matrix, findings, verdict.

Usage: python verify-state-machine.py [--spec PATH] [--format text|json|markdown|sarif]
       [--strict] [--against OLD_SPEC] ...  (--help lists every option)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

try:
    from codegen.cli.verify import main
except KeyboardInterrupt:  # Ctrl-C while it starts: nothing was read, nothing to say
    sys.exit(130)
except ModuleNotFoundError as err:  # a Python without the project installed
    from codegen.cli import not_installed

    sys.exit(not_installed(err, "verify-state-machine.py"))

if __name__ == "__main__":
    sys.exit(main())
