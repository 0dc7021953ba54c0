"""Vocabulary modules of the tests' own: Python a team may write when its words need code."""
