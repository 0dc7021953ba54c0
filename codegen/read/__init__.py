"""Reading a spec: its markdown, its sections and tables, and the words of its cells.

`markdown` (the only mistune importer) gives located blocks; `document` reads the
Spells and States lists, the Terms and the transition tables, whose rows `rows`
reads by column role; the cells' words are read by `conditions` (facts) and
`action_phrases` (verbs), with the words of `lexicon` (the workflow's vocabulary
and the spec's own Terms).
"""

# The reader of vocabularies that are data plugs itself into `lexicon` as it is imported.
from . import vocabulary_file as _vocabulary_file  # noqa: F401
