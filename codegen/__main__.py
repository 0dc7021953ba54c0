"""`python -m codegen`: generate the machines from the specs, or check they are fresh."""

import sys

from .cli.generate import main

if __name__ == "__main__":
    sys.exit(main())
