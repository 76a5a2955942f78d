"""The server's own list of the models it serves: who a pinned model id really is.

Asked once per leg as it starts (``GET {base_url}/models``, Chat Completions and Messages alike),
and for the Judge when it shares a server with a model under test. Each listed model is a group
of the names it answers to: its ``id``, and the ``aliases`` llama.cpp lists beside it. A pinned
model the server does not list is refused before the first Trial (a wrong id would otherwise be
served silently by a local server, or err every Trial); two names in one group are one model.

A server that does not answer a list (no such route, refused, not JSON) is not judged by it:
:func:`groups` returns ``None`` and the pin is trusted as written.
"""

from __future__ import annotations

import json
from typing import Any

from eval_core.hosts import TooDeep, check_json_depth

MAX_BYTES = 1 << 20  # a model list, not a corpus
TIMEOUT_S = 10.0


def groups(base_url: str, wire: str, api_key: str) -> list[frozenset[str]] | None:
    """Each served model's names, or ``None`` when the server gives no readable list."""
    import httpx

    if wire == "anthropic":
        headers = {"x-api-key": api_key, "anthropic-version": "2023-06-01"}
    else:
        headers = {"Authorization": f"Bearer {api_key}"}
    body = b""
    url = base_url.rstrip("/") + "/models"
    try:
        with (
            httpx.Client(trust_env=False, follow_redirects=False, timeout=TIMEOUT_S) as client,
            client.stream("GET", url, headers=headers) as answer,
        ):
            if answer.status_code != 200:
                return None
            for chunk in answer.iter_bytes():  # read no further than a list can be
                body += chunk
                if len(body) > MAX_BYTES:
                    return None
    except httpx.HTTPError:
        return None
    try:
        check_json_depth(body)
        listed = json.loads(body) if body else None
    except (ValueError, TooDeep):
        return None
    return read(listed)


def read(listed: Any) -> list[frozenset[str]] | None:
    """The name groups of a ``/models`` reply (OpenAI, Anthropic and llama.cpp shapes)."""
    entries = listed.get("data") if isinstance(listed, dict) else None
    if not isinstance(entries, list):
        return None
    found = []
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            continue
        aliases = entry.get("aliases")
        names = {entry["id"], *(a for a in aliases or () if isinstance(a, str))}
        found.append(frozenset(names))
    return found


def names_of(model: str, listed: list[frozenset[str]]) -> frozenset[str] | None:
    """Every name ``model`` answers to on that server, or ``None`` when it is not listed."""
    return next((names for names in listed if model in names), None)
