"""JUnit XML for CI: a failed Expectation is a ``<failure>`` (a verdict), a vendor or harness
fault an ``<error>``; an unexercised or never-run Trial is ``<skipped>`` with its reason.

Every attribute and text passes through :func:`~eval_core.safe_text.clean` on its way out, so
the document stays well-formed XML 1.0 whatever a model said or a Case file was named.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from eval_core.case import CaseBase
from eval_core.safe_text import clean
from eval_core.scorecard import Scorecard
from eval_core.witness import WITNESSED


def render(cards: Sequence[Scorecard], planned: Sequence[tuple[CaseBase, int]] = ()) -> bytes:
    """One ``<testsuite>`` per Sweep (per Matrix leg), one ``<testcase>`` per planned Trial."""
    root = ET.Element("testsuites")
    for card in cards:
        root.append(_suite(card, planned))
    for element in root.iter():
        if element.text is not None:
            element.text = clean(element.text)
        for name, value in list(element.attrib.items()):
            element.set(name, clean(value))
    ET.indent(root)
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data + b"\n"


def _suite(card: Scorecard, planned: Sequence[tuple[CaseBase, int]]) -> ET.Element:
    suite = ET.Element(
        "testsuite",
        name=f"eval.{card.suite}.{card.model_id}",
        timestamp=card.started_at,
        time=f"{card.duration_ms / 1000:.3f}",
    )
    ran = {(t.case_id, t.trial) for t in card.trials}
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    classname = f"eval.{card.suite}.{card.model_id}"
    for trial in card.trials:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=classname,
            name=f"{trial.case_id}#{trial.trial}",
            time=f"{trial.duration_ms / 1000:.3f}",
        )
        counts["tests"] += 1
        if trial.outcome == "failed":
            counts["failures"] += 1
            failing = [f"{WITNESSED}: {line}" for line in trial.contradictions]
            failing += [f"{r.kind}: {r.detail}" for r in trial.expectations if not r.passed]
            node = ET.SubElement(case, "failure", message=failing[0] if failing else "failed")
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
        case = ET.SubElement(
            suite, "testcase", classname=classname, name=f"{planned_case.id}#{number}", time="0"
        )
        counts["tests"] += 1
        counts["skipped"] += 1
        reason = card.aborted_reason or "not run"
        ET.SubElement(case, "skipped", message=f"never ran: {reason}")
    for key, value in counts.items():
        suite.set(key, str(value))
    return suite
