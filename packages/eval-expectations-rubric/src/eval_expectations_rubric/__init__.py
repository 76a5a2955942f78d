"""Rubric kinds: what ``==`` cannot score, scored by a pinned Judge."""
