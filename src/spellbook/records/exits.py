"""Every exit status a Spellbook command returns, by what it means."""

EXIT_OK = 0  # done: a cast's transition or no-op; status, repair, diagram; a spec verified
EXIT_FAILED = 1  # could not be done: another cast holds the lock, a disk error; a spec
# with errors, generated files that are stale
EXIT_BAD_INPUT = 2  # unusable input: unknown spell, unusable state file, unsafe path, bad
# frontmatter, a condition the spec does not define; a spec that cannot be read
EXIT_NOT_INSTALLED = 2  # an optional part is missing: `spell mcp` without the MCP SDK, the
# compiler's commands without the `codegen` extra
EXIT_BLOCKED = 3  # a cast the spec refuses in this state
EXIT_UNHANDLED = 4  # a cast no rule of the spec covers for the files as they are
EXIT_REFUSED = 1  # check-transition: the spec does not allow the move
EXIT_HOOK_BLOCK = 2  # check-transition --claude-hook: Claude Code's "block this tool call"
EXIT_INTERRUPTED = 130  # Ctrl-C (SIGINT), as shells report it
