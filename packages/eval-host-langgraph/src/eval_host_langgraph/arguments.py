"""A call's arguments on the Tool's footing: as the Tool's own validation hands them over.

A LangChain Tool validates what arrives against its ``args_schema`` before its body runs: a
default filled in, ``"2"`` read as ``2``, an enum's value as its member. The witness
(:mod:`.tools`) records a call in that form, what the Tool's body receives; LangGraph's own
record, its testimony, holds the model's arguments as the model sent them. The Host reads the
testimony's arguments through the same validation of the same Tool before the core compares
them, so a default or a coercion is no contradiction while an argument changed between the
model and the Tool (a ToolNode middleware, a wrapper) still is. Arguments the Tool's
validation refuses are kept as they came (the Tool never ran on them). Both sides are JSON
data (an enum as its value, a model as its fields), what a Case's Expectations are written in.
"""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool
from pydantic_core import to_jsonable_python


def jsonable(arguments: Any) -> Any:
    """The arguments as JSON data; a value with no JSON form as its ``repr``."""
    return to_jsonable_python(arguments, fallback=repr)


def validated(
    tool: BaseTool, arguments: dict[str, Any], call_id: str, injected: frozenset[str]
) -> dict[str, Any] | None:
    """``arguments`` as ``tool``'s own input parsing hands them to its body, as JSON data
    without the ``injected`` values (LangGraph's, never the model's); ``None`` where the parsing
    refuses them or the Tool has none.

    The parsing is LangChain's ``BaseTool._parse_input``, the step ``BaseTool.run`` takes before
    the body (its ``args_schema``, its validators, its rule for defaults): the framework's own
    reading, not ours.
    """
    parse = getattr(tool, "_parse_input", None)
    if not callable(parse):
        return None
    try:
        read = parse(dict(arguments), call_id or None)
    except Exception:  # refused (or a team's validator raised): the body never runs on it
        return None
    if not isinstance(read, dict):
        return None
    found = jsonable({k: v for k, v in read.items() if k not in injected})
    return found if isinstance(found, dict) else None
