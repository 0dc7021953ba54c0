"""The cast: a machine run against one workspace, with its commit point, its preview, its
repair, and the judging of moves made by hand."""
