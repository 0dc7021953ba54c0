"""The front doors: `spell`, the MCP server, the Claude Code hook, and the repository each
is about."""
