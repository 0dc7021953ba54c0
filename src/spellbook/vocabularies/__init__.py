"""The vocabularies of the workflows this package ships with, each a file of words.

`spell_workflow/vocabulary.md`: the AI Engineer workflow of `spec/STATE_MACHINE.md`
(plans, acceptance criteria, Atlassian links, PR review files; its `templates/` beside
it). `coding_session/vocabulary.md`: the coding session of
`spec/SESSION_STATE_MACHINE.md` (a feature list, a test command). They are data, read
by the compiler (`codegen.read.vocabulary_file`); nothing here is imported to run a
machine. See `spellbook.records.vocabulary` for what a vocabulary may say.
"""
