"""Acme Outdoor's help centre as an MCP server (official SDK, stdio): the agent searches it
through pydantic-ai's own MCP client."""

from __future__ import annotations

from mcp.server.fastmcp import FastMCP

ARTICLES = {
    "returns": (
        "Returns: unused items can be returned within 30 days of delivery for a full refund."
    ),
    "shipping": "Shipping: orders leave our warehouse within 2 working days; Parcelways delivers.",
    "warranty": "Warranty: tents and stoves carry a 2 year warranty against manufacturing faults.",
}

server = FastMCP("acme-help", log_level="WARNING")


@server.tool()
def search_help(query: str) -> str:
    """Search the help centre; the best matching article, or a note that none matched."""
    words = query.lower().split()
    for topic, article in ARTICLES.items():
        if any(word.rstrip("s") in topic for word in words):
            return article
    return "No help article matches that question."


if __name__ == "__main__":
    server.run("stdio")
