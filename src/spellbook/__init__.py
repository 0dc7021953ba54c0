"""Spellbook runtime: cast spells against a workspace with the machines generated from the specs."""

__version__ = "0.1.0"
