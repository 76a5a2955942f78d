"""Acme Outdoor's support agents: a pydantic-ai Agent with Tools of its own and a help centre
served over MCP, and one that files messages as tickets (a structured answer)."""
