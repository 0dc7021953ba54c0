"""The machines generated from the specs in `spec/`, one module each.

An installed wheel carries the generated modules in this package. In a source
checkout they live in the repository's `generated/` folder, which is this package's
path there, so `spellbook.machines.spell_machine` imports the same way in both; and
there, as a repository's files, they run from their source alone
(`spellbook.disk.loading.source_only`): no bytecode beside them, nor a compiled file in
this folder, ever runs in their place.
"""

import os

_src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.basename(_src) == "src":
    _generated = os.path.join(os.path.dirname(_src), "generated")
    if os.path.isdir(_generated):
        from spellbook.disk.loading import source_only

        source_only(_generated)
        __path__[:] = [_generated]
