"""Entry point of the files family (kinds and Case fields are registered here)."""
