"""Stage package (modules moved here; see codegen/__init__.py)."""
