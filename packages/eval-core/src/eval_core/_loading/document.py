"""A Case document checked as the loader checks a Case file, with no Host and no Corpus.

The kind reference (``eval plugins --kind``, docs/kinds.md) shows each kind's and Case field's
example inside a minimal Case, and an example the loader would refuse teaches a refusal; so the
front-end asks the loader itself (:func:`document_problems`): the document decoded into the
installed set's Case type, the Case's own rules, its script's, then each Expectation's tier,
its own check and its grounding rule, and (for a Case field's example) the field's text
functions. Not asked: what needs a Host (the agent, the Tools, the context keys, the
services), the cross-field rules of ``eval_check_case``, and what spans files.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from eval_core._case.case import CaseBase
from eval_core._case.kinds import KindSpec
from eval_core._loading import rules
from eval_core._loading.checks import expectation_problems
from eval_core._loading.decode import Decoder
from eval_core._loading.grounding import given_text
from eval_core._loading.problem import Problem
from eval_core._plugins.plugin_set import PluginSet
from eval_core._util.guard import PluginFault


def document_problems(
    plugins: PluginSet,
    document: dict[str, Any],
    kinds: Mapping[str, KindSpec] | None = None,
    expects: bool = True,
) -> list[str]:
    """Why the loader would refuse the Case ``document`` (nothing when it loads), one line
    each. ``kinds`` replaces the installed kinds (a kind checked without its grounding, say);
    with ``expects`` false, an empty ``expect`` is allowed and the Case fields' text
    functions are asked, as for a field's example in a Case that expects nothing."""
    where = f"in {document['id']!r}, a {document['tier']} Case"
    case, problems = Decoder(plugins).detailed(where, document)
    if case is None:
        return [f"{p.path}: {p.reason} ({where})" for p in problems]
    kinds = plugins.kinds if kinds is None else kinds
    checked = _checked(plugins, kinds, case, where, expects)
    return [f"{p.path}: {p.reason} ({where})" for p in checked]


def _checked(
    plugins: PluginSet,
    kinds: Mapping[str, KindSpec],
    case: CaseBase,
    where: str,
    expects: bool,
) -> Iterator[Problem]:
    for problem in rules.values(where, case.id, case):  # the document's id is its stem
        if expects or problem.path != "$.expect":  # a field's minimal Case expects nothing
            yield problem
    yield from rules.script(where, case, plugins.fields)
    given = given_text(case, lambda: (), {}, plugins.fields.values())
    yield from expectation_problems(where, case, kinds, lambda: given)
    if not expects:
        try:
            given.plugin_text()  # a Case field's text functions, as the loader asks them
        except PluginFault as exc:
            yield Problem(where, "$", str(exc))
