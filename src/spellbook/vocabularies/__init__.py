"""The vocabularies of the workflows this package ships with, one module each.

`spell_workflow`: the AI Engineer workflow of `spec/STATE_MACHINE.md` (plans,
acceptance criteria, tasks, PR review). `coding_session`: the coding session of
`spec/SESSION_STATE_MACHINE.md` (a feature list, a test command). See
`spellbook.vocabulary` for what a vocabulary module may define.
"""
