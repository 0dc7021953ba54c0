"""Helpers the tests share: spec builders, workspaces, sessions, worlds, faults."""
