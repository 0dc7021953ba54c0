"""Tests of the commands as a user runs them: `spell`, the verifier, `python -m codegen`,
the MCP server and the pre-commit hooks."""
