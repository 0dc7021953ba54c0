"""The test suite: shared helpers and cross-cutting tests at the top; compiler/, runtime/
and cli/ hold a file for each module they test."""
