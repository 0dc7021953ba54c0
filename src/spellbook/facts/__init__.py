"""Facts: every kind of fact a guard can ask about a workspace, and the answers for one cast."""
