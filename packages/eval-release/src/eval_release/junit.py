"""JUnit XML for CI: a failed Expectation is a ``<failure>`` (a verdict), a vendor or harness
fault an ``<error>``; an unexercised or never-run Trial is ``<skipped>`` with its reason.

One ``<testsuite>`` per Sweep (per Matrix leg), its ``<properties>`` the ``corpusHash``, the
``suite``, the ``model``, the ``corpusCommit`` and ``notes`` (how many Trials carry a NOTE,
such as a recorded script that drifted); one ``<testcase>`` per planned Trial, its
``classname`` the Sweep and the Case's file (``eval.capability.scripted.<file stem>``: a
variant is its source Case's), its ``file`` that file's path from the repository's root, its
``<properties>`` a ``note`` property per NOTE of the Trial. A
``<failure>``'s ``type`` is what failed: ``witness`` when testimony contradicts a witness (it
fails the Trial on its own, see :mod:`eval_core._case.witness`), else the first failing kind.

Compared with a Baseline (``--baseline``), a ``<failure>``'s ``type`` says instead how the Case
stands against it, so CI can tell a new break from an old one: ``regression`` (it passed in the
Baseline: this fails the gate), ``known`` (it did not pass in the Baseline either), ``flapping``
(its verdict is noise over ``--repeat``: no signal) or ``unbaselined`` (the Baseline has no
comparable verdict for it); the failing kind stays first in the ``message``. The suite's
``baseline`` property then reads ``compared``.

Every attribute and text passes through :func:`~eval_core._util.safe_text.clean` on its way out, so
the document stays well-formed XML 1.0 whatever a model said or a Case file was named.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath

from eval_core.kinds import WITNESSED, CaseBase
from eval_core.records import Scorecard, clean


def render(
    cards: Sequence[Scorecard],
    planned: Sequence[tuple[CaseBase, int]] = (),
    files: Mapping[str, str] | None = None,
    against: Sequence[Mapping[str, str] | None] = (),
) -> bytes:
    """One ``<testsuite>`` per Sweep (per Matrix leg), one ``<testcase>`` per planned Trial.
    ``files`` maps each Case id to its file's path from the repository's root (a Case not
    in it is classed by its Sweep alone, with no ``file``); ``against``, per Sweep, each
    Case's state against the Baseline (a delta's ``regressed``, ``unchanged``...) or ``None``
    when it was not compared."""
    root = ET.Element("testsuites")
    for index, card in enumerate(cards):
        states = against[index] if index < len(against) else None
        root.append(_suite(card, planned, files or {}, states))
    for element in root.iter():
        if element.text is not None:
            element.text = clean(element.text)
        for name, value in list(element.attrib.items()):
            element.set(name, clean(value))
    ET.indent(root)
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data + b"\n"


WITNESS = "witness"
"""A ``<failure>``'s ``type`` when testimony contradicts a witness."""
AGAINST_BASELINE = {
    "regressed": "regression",
    "unchanged": "known",
    "no-signal": "flapping",
    "not-comparable": "unbaselined",
}
"""A ``<failure>``'s ``type`` by its Case's state against the Baseline (``fixed`` never fails)."""


def _suite(
    card: Scorecard,
    planned: Sequence[tuple[CaseBase, int]],
    files: Mapping[str, str],
    states: Mapping[str, str] | None = None,
) -> ET.Element:
    prefix = f"eval.{card.suite}.{card.model_id}"
    suite = ET.Element(
        "testsuite",
        name=prefix,
        timestamp=card.started_at,
        time=f"{card.duration_ms / 1000:.3f}",
    )
    properties = ET.SubElement(suite, "properties")
    for key, recorded in (
        ("corpusHash", card.corpus_hash),
        ("suite", card.suite),
        ("model", card.model_id),
        ("corpusCommit", card.corpus_commit),
        ("notes", str(card.noted)),
        *((("baseline", "compared"),) if states is not None else ()),
    ):
        ET.SubElement(properties, "property", name=key, value=recorded)

    def testcase(case_id: str, number: int, seconds: str) -> ET.Element:
        where = files.get(case_id)
        attributes = {
            "classname": f"{prefix}.{PurePosixPath(where).name.rsplit('.', 1)[0]}"
            if where
            else prefix,
            "name": f"{case_id}#{number}",
            "time": seconds,
        }
        if where:
            attributes["file"] = where
        return ET.SubElement(suite, "testcase", attributes)

    ran = {(t.case_id, t.trial) for t in card.trials}
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for trial in card.trials:
        case = testcase(trial.case_id, trial.trial, f"{trial.duration_ms / 1000:.3f}")
        counts["tests"] += 1
        if trial.notes:  # a NOTE never changes the verdict: a property, not a failure
            noted = ET.SubElement(case, "properties")
            for line in trial.notes:
                ET.SubElement(noted, "property", name="note", value=line)
        if trial.outcome == "failed":
            counts["failures"] += 1
            failing = [f"{WITNESSED}: {line}" for line in trial.contradictions]
            kinds = [r.kind for r in trial.expectations if not r.passed]
            failing += [f"{r.kind}: {r.detail}" for r in trial.expectations if not r.passed]
            what = WITNESS if trial.contradictions else kinds[0] if kinds else "failed"
            if states is not None:
                what = AGAINST_BASELINE.get(states.get(trial.case_id, ""), "unbaselined")
            node = ET.SubElement(
                case, "failure", message=failing[0] if failing else "failed", type=what
            )
            node.text = "\n".join(failing)
        elif trial.outcome == "errored":
            counts["errors"] += 1
            ET.SubElement(case, "error", message=trial.error or "errored").text = trial.error
        elif trial.outcome == "unexercised":
            counts["skipped"] += 1
            ET.SubElement(case, "skipped", message=f"unexercised: {trial.unexercised}")
    for planned_case, number in planned:
        if (planned_case.id, number) in ran:
            continue
        case = testcase(planned_case.id, number, "0")
        counts["tests"] += 1
        counts["skipped"] += 1
        reason = card.aborted_reason or "not run"
        ET.SubElement(case, "skipped", message=f"never ran: {reason}")
    for key, count in counts.items():
        suite.set(key, str(count))
    return suite
