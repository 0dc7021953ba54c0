"""The disk: the repository, the project's settings, the workspace folder, its lock and its
state file."""
