"""Tests of the runtime, `src/spellbook/`: a file for each module it names."""
