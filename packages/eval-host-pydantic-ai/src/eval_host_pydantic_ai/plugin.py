"""Entry point: registers the pydantic-ai Host (filled in by issue 31)."""
