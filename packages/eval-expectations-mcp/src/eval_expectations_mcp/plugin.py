"""Entry point of the mcp family (kinds and Case fields are registered here)."""
