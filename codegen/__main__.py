"""`python -m codegen`: generate the machines from the specs, or check they are fresh."""

import sys

try:
    from .cli.generate import main
except ModuleNotFoundError as err:  # a Python without the project installed
    from .cli import not_installed

    sys.exit(not_installed(err, "-m codegen"))

if __name__ == "__main__":
    sys.exit(main())
