"""A call's arguments on the Tool's footing: as pydantic-ai's own validator hands them over.

The witness (:mod:`.boundary`) sees each call after pydantic-ai validated its arguments: a
default filled in, ``"2"`` read as ``2``, an enum's value as its member. pydantic-ai's message
history, its testimony, holds the model's arguments as the model sent them. Compared as they
are, every call that leaves a default out would contradict the witness. So the history's
arguments are read through the same validator of the same Tool (with the run's validation
context) before the core compares them: a default or a coercion is then no contradiction, while
an argument changed between the model and the Tool (a hook, a wrapper) still is. Arguments the
validator refuses are kept as the model sent them (pydantic-ai never passed them on). Both
sides are kept as JSON data (an enum as its value, a model as its fields), which is what a
Case's Expectations and scripted ``when`` are written in.
"""

from __future__ import annotations

from typing import Any

from pydantic_ai.toolsets.abstract import ToolsetTool
from pydantic_core import to_jsonable_python


def jsonable(arguments: Any) -> Any:
    """The arguments as JSON data; a value with no JSON form as its ``repr``."""
    return to_jsonable_python(arguments, fallback=repr)


def validated(tool: ToolsetTool[Any] | None, raw: str | dict[str, Any] | None, context: Any) -> Any:
    """``raw`` as the Tool's validator hands it to the Tool, as JSON data; ``None`` when there
    is no such Tool or the validator refuses ``raw`` (the caller keeps the model's own)."""
    if tool is None:
        return None
    validator = tool.args_validator
    try:  # pydantic-ai's own reading (ToolManager._validate_tool_args), without its hooks
        if isinstance(raw, str):
            args = validator.validate_json(raw or "{}", context=context)
        else:
            args = validator.validate_python(raw or {}, context=context)
    except Exception:  # refused (or a team's validator raised): the Tool never received it
        return None
    return jsonable(args)
