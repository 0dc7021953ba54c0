"""The machines generated from the specs in `spec/`, one module each.

An installed wheel carries the generated modules in this package. In a source
checkout they live in the repository's `generated/` folder, which is added to
this package's path, so `spellbook.machines.spell_machine` imports the same way
in both.
"""

import os

_src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.basename(_src) == "src":
    _generated = os.path.join(os.path.dirname(_src), "generated")
    if os.path.isdir(_generated):
        __path__.append(_generated)
