"""The test suite: cross-cutting tests at the top; compiler/, runtime/ and cli/ hold a
file for each module they test, support/ the helpers they share, data/ what they read."""
