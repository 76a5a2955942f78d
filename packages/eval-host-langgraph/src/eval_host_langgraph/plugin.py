"""Entry point: registers the langgraph Host (filled in by issue 31)."""
