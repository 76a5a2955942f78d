"""The routine family: a deterministic Routine Tool State run with no model (``routine``)."""
