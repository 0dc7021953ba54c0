"""The compiler's commands: `verify` (`verify-state-machine.py`, `spellbook-verify`) and
`generate` (`python -m codegen`, `spellbook-codegen`). Each parses its arguments, calls
the stages, and maps outcomes to exit statuses."""
