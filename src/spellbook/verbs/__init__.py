"""Verbs: what an action does to the workspace's files, each verb carried out once."""
