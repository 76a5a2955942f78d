"""MCP: integrations published in the Soul, the account authority, and the client that calls
their servers."""
