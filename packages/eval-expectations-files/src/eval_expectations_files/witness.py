"""The files family's witness check: a File the runtime announced as attached was sent.

The runtime says what it attached with ``file.attached`` events (its testimony); the binding's
requests, attributed to the seeded Files by digest or by the document's own text part
(:class:`~eval_expectations_files.record.FilesRecord`), say what the provider received.
"""

from __future__ import annotations

from collections.abc import Iterator

from eval_core.kinds import Evidence, WitnessCheck
from eval_expectations_files.record import FilesRecord


def attached_but_not_sent(evidence: Evidence) -> Iterator[str]:
    """Every announced File reaches some request the binding sent (none sent: nothing to say,
    the Turn ended before the model, which the kinds score)."""
    record = evidence.record(FilesRecord)
    if record is None or not record.requests:
        return
    carried = {p.file_id for parts in record.requests for p in parts if p.file_id is not None}
    announced: list[str] = []
    for event in evidence.events or ():
        payload = event.payload if isinstance(event.payload, dict) else {}
        file_id = payload.get("fileId")
        if event.type == "file.attached" and isinstance(file_id, str) and file_id not in announced:
            announced.append(file_id)
    for file_id in announced:
        seeded = record.seeded(file_id)
        if seeded is not None and file_id not in carried:
            yield (
                f"the runtime announced File {file_id} ({seeded.name}) as attached, but none "
                f"of the {len(record.requests)} request(s) the binding sent carries it"
            )


CHECKS = [WitnessCheck("announced attachment not sent", attached_but_not_sent, reads=FilesRecord)]
