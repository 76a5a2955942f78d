"""Acme Outdoor's support agent: a pydantic-ai Agent with two Tools of its own and a help
centre served over MCP."""
