"""What a transcript stores once: the parts every model request of a Trial repeats.

A Trial's requests each carry the assembled system prompt and the Tool declarations offered,
and the runtime's testimony repeats the prompt again: most of a transcript's bytes, encoded,
scanned, hashed and written every Trial. :func:`strip` empties each repeat of the Trial's own
prompt (``evidence.system_prompt``) and each request's ``offered`` equal to the first
request's, and says which it emptied (:class:`Shared`, kept in the transcript); the reader
(``eval_report.transcripts``) puts them back, so it sees the Evidence as observed.
"""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from eval_core._case.evidence import Evidence


class Shared(msgspec.Struct, kw_only=True, rename="camel", omit_defaults=True):
    """Which parts were stored once: the requests whose prompt is the Trial's (``system``),
    whose Tools offered are the first request's (``offered``), and the testimony's prompt."""

    system: list[int] = msgspec.field(default_factory=list)
    offered: list[int] = msgspec.field(default_factory=list)
    testimony: bool = False


def strip(evidence: Evidence) -> tuple[Evidence, Shared]:
    """``evidence`` with each repeat emptied (a copy: the Trial's own is never changed)."""
    prompt, requests = evidence.system_prompt, list(evidence.model_requests or [])
    first = requests[0].offered if requests else None
    shared = Shared(
        system=[i for i, r in enumerate(requests) if prompt is not None and r.system == prompt],
        offered=[i for i, r in enumerate(requests) if i and first and r.offered == first],
    )
    for i in shared.system:
        requests[i] = replace(requests[i], system="")
    for i in shared.offered:
        requests[i] = replace(requests[i], offered=None)
    if shared.system or shared.offered:
        evidence = replace(evidence, model_requests=requests)
    said = evidence.testimony
    if said is not None and prompt is not None and said.system_prompt == prompt:
        shared.testimony = True
        evidence = replace(evidence, testimony=replace(said, system_prompt=""))
    return evidence, shared
