"""Entry point of the native family (kinds and Case fields are registered here)."""
