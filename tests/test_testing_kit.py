"""The testing kit, used as a plug-in author uses it: the ``eval_kit`` fixture (registered by
eval-kit's ``pytest11`` entry point), :func:`evidence`, :func:`assert_kind_conforms`, and
``eval plugins --check`` over every installed plug-in. The family under test is the outbox
family of ``tests/outbox``, installed as a real distribution.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import Phase, settings
from hypothesis import strategies as st

from eval_core._case.evidence import Evidence
from eval_core._case.kinds import Expectation, KindSpec, Verdict, failed, passed
from eval_kit import Agent, CaseRefused, Kit, assert_kind_conforms, evidence
from tests.conftest import Site
from tests.test_outbox_family import CONFIRM, SEND, SENT
from tests.test_outbox_family import installed as installed  # noqa: PLC0414 - a fixture


def outbox_case(kit: Kit, call: dict[str, Any], expect: dict[str, Any]) -> dict[str, Any]:
    return kit.case(
        expect,
        tools=[SEND],
        outbox={"tool": "send_message"},
        script=[
            {"kind": "tool_calls", "calls": [{"callId": "c1", "name": "send_message",
                                              "arguments": call}]},
            {"kind": "text", "text": "Done."},
        ],
    )  # fmt: skip


def test_a_case_dict_runs_end_to_end_through_the_reference_host(
    installed: Path, eval_kit: Kit
) -> None:
    result = eval_kit.run(outbox_case(eval_kit, CONFIRM, SENT))
    assert result.outcome == "passed", result
    assert result.expectations[0].detail == "sent to ana@example.com: 'Order 4471 confirmed'"
    wrong = eval_kit.run(outbox_case(eval_kit, {**CONFIRM, "to": "bob@example.com"}, SENT))
    assert wrong.outcome == "failed"
    assert wrong.expectations[0].detail.startswith("no message to ana@example.com")


def test_a_case_dict_is_checked_to_its_problems(installed: Path, eval_kit: Kit) -> None:
    assert eval_kit.problems(outbox_case(eval_kit, CONFIRM, SENT)) == []
    case = outbox_case(eval_kit, CONFIRM, SENT)
    case["outbox"] = {"tool": "fax_message"}
    assert eval_kit.problems(case) == [
        "$.outbox.tool: 'fax_message' is not a Tool this Case declares"
    ]
    with pytest.raises(CaseRefused, match="fax_message"):
        eval_kit.run(case)


def test_one_fixture_per_task(
    installed: Path, eval_kit: Kit, eval_evidence: Any, eval_run: Any, eval_problems: Any
) -> None:
    case = outbox_case(eval_kit, CONFIRM, SENT)
    assert eval_problems(case) == []
    assert eval_run(case).outcome == "passed"
    assert eval_evidence(output_text="hi").output_text == "hi"


def test_the_kit_soul_has_the_agents_a_test_asks_for(installed: Path, tmp_path: Path) -> None:
    kit = Kit(tmp_path, agents={"mailer": Agent(), "clerk": Agent(tools=[])})
    case = outbox_case(kit, CONFIRM, SENT)
    assert kit.run(case).outcome == "passed"
    quiet = kit.run({**case, "agent": "clerk", "expect": [{"kind": "outbox_empty"}]})
    assert quiet.outcome == "passed"  # the clerk may not call send_message: nothing is sent


def test_the_outbox_kinds_conform_with_their_records_and_a_schema_snapshot(
    installed: Path, tmp_path: Path
) -> None:
    from eval_expectations_outbox.plugin import Mailbox, Sent, eval_kinds

    names = st.sampled_from(["ana@example.com", "bob@example.com"])
    for spec in eval_kinds():
        snapshot = tmp_path / f"{spec.name}.schema.json"
        assert_kind_conforms(spec, examples=30, records=[Mailbox], snapshot=snapshot)
        assert snapshot.exists()  # written the first time, compared after
        assert_kind_conforms(spec, examples=5, fields={"to": names}, snapshot=snapshot)
    sent = Mailbox(sent=[Sent(to="ana@example.com", subject="Order 4471", body="")])
    [sent_kind, _] = eval_kinds()
    verdict = sent_kind.scorer(
        sent_kind.struct(to="ana@example.com", subject_contains="4471"),  # type: ignore[call-arg]
        evidence(records=[sent]),
    )
    assert verdict.passed


class Shout(Expectation, tag="acme_shout", frozen=True):
    word: str


def fragile(e: Shout, ev: Evidence) -> Verdict:
    if ev.output_text is None:
        return failed("no answer observed")
    return passed(f"{ev.output_text.upper()[0]} said")  # IndexError on an empty answer


def generous(e: Shout, ev: Evidence) -> Verdict:
    return passed("it would have been said")  # passes with nothing observed


@pytest.mark.parametrize(
    ("scorer", "reason"),
    [(fragile, "IndexError"), (generous, "passed with nothing observed")],
)
def test_conformance_finds_a_scorer_that_breaks_the_contract(scorer: Any, reason: str) -> None:
    with pytest.raises(AssertionError) as broken:
        # the failure, not its smallest example; derandomized, so the search is the same each run
        quick = settings(phases=[Phase.generate], derandomize=True)
        spec = KindSpec(struct=Shout, scorer=scorer, witness="answer")
        assert_kind_conforms(spec, examples=400, settings=quick)
    assert reason in str(broken.value)
    assert "contract(" in str(broken.value)  # hypothesis's failing example


def believes(e: Shout, ev: Evidence) -> Verdict:
    """Takes the runtime's word: any event it recorded counts as the shout."""
    return passed("the runtime recorded events") if ev.events else failed("nothing recorded")


@pytest.mark.parametrize(
    ("witness", "reason"),
    [
        (None, "the kind declares no witness"),
        ("tool", "passed on the runtime's own record alone"),
    ],
)
def test_conformance_refuses_a_kind_that_takes_the_runtimes_word(
    witness: str | None, reason: str
) -> None:
    with pytest.raises(AssertionError) as broken:
        quick = settings(phases=[Phase.generate], derandomize=True)  # the same 50, each run
        spec = KindSpec(struct=Shout, scorer=believes, witness=witness)
        assert_kind_conforms(spec, examples=50, settings=quick)
    assert reason in str(broken.value)


def test_a_kind_about_the_record_itself_may_read_the_events() -> None:
    assert_kind_conforms(KindSpec(struct=Shout, scorer=believes, witness="events"), examples=30)


def test_a_schema_that_moved_from_its_snapshot_fails(tmp_path: Path) -> None:
    snapshot = tmp_path / "acme_shout.schema.json"
    spec = KindSpec(struct=Shout, scorer=lambda e, ev: failed("never"), witness="answer")
    assert_kind_conforms(spec, examples=5, snapshot=snapshot)
    snapshot.write_text(snapshot.read_text().replace('"word"', '"words"'))
    with pytest.raises(AssertionError, match="its schema differs from the snapshot"):
        assert_kind_conforms(spec, examples=5, snapshot=snapshot)


def test_a_plugin_under_test_need_not_be_installed(tmp_path: Path) -> None:
    import eval_expectations_turn.output as module  # any module with hooks will do

    kit = Kit(tmp_path, plugins=[_Shouting()])
    case = kit.case({"kind": "acme_shout", "word": "Hello"})
    assert kit.run(case).expectations[0].detail == "HELLO! HAPPY TO HELP WITH YOUR ORDER."
    assert module is not None


class _Shouting:
    from eval_core._plugins.hookspecs import hookimpl

    @hookimpl
    def eval_kinds(self) -> list[KindSpec]:
        def score(e: Shout, ev: Evidence) -> Verdict:
            if ev.output_text is None:
                return failed("no answer observed")
            return passed(ev.output_text.upper())

        return [KindSpec(struct=Shout, scorer=score, witness="answer")]


NONCONFORMING = """
from eval_core._plugins.hookspecs import hookimpl
from eval_core._case.kinds import Expectation, KindSpec, Verdict


class Echo(Expectation, tag="acme_echo", frozen=True):
    text: str


def score(e, evidence):
    return Verdict(True, "")


@hookimpl
def eval_kinds():
    return [KindSpec(struct=Echo, scorer=score, witness="answer")]
"""


@pytest.fixture
def nonconforming(site: Site) -> Iterator[Site]:
    site.install("acme-echo", "0.3", "acme_echo", NONCONFORMING)
    yield site


def test_eval_plugins_check_runs_the_contract_over_every_installed_plugin(
    nonconforming: Site,
) -> None:
    result = nonconforming.eval("plugins", "--check", "--examples", "3", timeout=300)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert "acme-echo 0.3  [acme_echo]  code " in result.stdout
    assert "    FAIL  kind   acme_echo" in lines
    assert "    ok    kind   output_contains" in lines
    assert "    ok    field  journey" in lines
    failures = [line for line in lines if line.startswith("    FAIL")]
    assert failures == ["    FAIL  kind   acme_echo"]  # every installed family conforms
    assert "empty detail" in result.stdout
    assert lines[-1].startswith("NOT CONFORMING  1 problem(s) in ")
