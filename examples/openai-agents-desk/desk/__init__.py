"""A small support desk on the OpenAI Agents SDK: the agent (``desk.agent``) and its order
desk's Tools (``desk.orders_server``, an MCP server of its own)."""
