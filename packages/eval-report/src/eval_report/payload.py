"""The page's data: every Trial and every transcript as recorded, in one deflated document.

Why as recorded: re-shaping 10,000 transcripts in Python would cost seconds; the page lays one
out when its Case is opened, and a transcript's JSON is already what the log holds. Why
deflated: transcripts repeat themselves (the system prompt in every request, the same Tools,
the same guard details), so ~100 MB of JSON for 10,000 Trials deflates to a few MB, which the
browser inflates (``DecompressionStream``) when the page opens. An identical transcript (a
repeat) is stored once, and so is a prompt its transcripts stored apart (format 3).

The document: ``models`` (Sweep order), ``families`` (kind -> distribution), ``legs`` (per
Sweep: its Trials as the Scorecard keeps them, and per Trial the index of its transcript or
null), ``cases`` (per row of the table: ``[leg, Trial index]`` pairs), ``transcripts``,
``prompts`` (each prompt stored apart, by its SHA-256, which its transcripts' ``prompt`` names).
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import Mapping, Sequence

import msgspec

from eval_core.records import TrialResult
from eval_report.saved import Recorded

LEVEL = 3  # deflate: within 1.5x of level 9's size at a third of level 6's time

_ENCODER = msgspec.json.Encoder()


class Payload:
    def __init__(self, models: Sequence[str], families: Mapping[str, str]) -> None:
        self._head = _ENCODER.encode({"models": list(models), "families": dict(families)})
        self._legs: list[bytes] = []
        self._cases: list[list[tuple[int, int]]] = []
        self._transcripts: list[bytes] = []
        self._stored: dict[str, int] = {}
        self._prompts: dict[str, bytes] = {}

    def leg(
        self, trials: Sequence[TrialResult], recorded: Mapping[tuple[str, int], Recorded]
    ) -> dict[tuple[str, int], int]:
        """Add one Sweep's Trials; where each Trial is in it, by (Case, Trial)."""
        pointers: list[int | None] = []
        for trial in trials:
            found = recorded.get((trial.case_id, trial.trial))
            if found is None:
                pointers.append(None)
                continue
            index = self._stored.get(found.sha256)
            if index is None:
                index = self._stored[found.sha256] = len(self._transcripts)
                self._transcripts.append(found.raw)
                if found.prompt_sha256 is not None and found.prompt is not None:
                    self._prompts[found.prompt_sha256] = found.prompt
            pointers.append(index)
        self._legs.append(
            b'{"trials":' + _ENCODER.encode(trials) + b',"t":' + _ENCODER.encode(pointers) + b"}"
        )
        return {(t.case_id, t.trial): i for i, t in enumerate(trials)}

    def case(self, trials: list[tuple[int, int]]) -> None:
        """Add the next row of the table: its Trials, as (leg, index in that leg)."""
        self._cases.append(trials)

    def encode(self) -> str:
        """The document, deflated (zlib format) and in base64: inert text inside the page."""
        document = b"".join(
            [
                self._head[:-1],
                b',"legs":[',
                b",".join(self._legs),
                b'],"cases":',
                _ENCODER.encode(self._cases),
                b',"transcripts":[',
                b",".join(self._transcripts),
                b'],"prompts":{',
                b",".join(b'"%s":%s' % (sha.encode(), text) for sha, text in self._prompts.items()),
                b"}}",
            ]
        )
        return base64.b64encode(zlib.compress(document, LEVEL)).decode("ascii")
