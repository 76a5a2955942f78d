"""How every struct a Case file holds decodes, in one place so they never disagree.

The Case, its Expectation kinds, its fixture blocks and its recording are one JSON document: all
frozen, keyword-only, camelCase, strict about a field nobody declared, defaults left out when
written back.
"""

from __future__ import annotations

from typing import Any

CASE_JSON: dict[str, Any] = {
    "frozen": True,
    "kw_only": True,
    "forbid_unknown_fields": True,
    "omit_defaults": True,
    "rename": "camel",
}
