"""The hashing rule, as properties: what must move corpusHash, and what must not."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_core._case.case import ToolDecl
from eval_core._case.kinds import Expectation, KindSpec, Verdict
from eval_core._loading.loader import Loader
from eval_core._plugins.hookspecs import hookimpl
from eval_core._plugins.plugins import PluginSet, build, discover
from tests.conftest import SOUL

TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=12
).filter(str.strip)  # the loader refuses whitespace-only text, rightly


@st.composite
def cases(draw: st.DrawFn) -> list[dict[str, Any]]:
    ids = draw(
        st.lists(
            st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True),
            min_size=1,
            max_size=4,
            unique=True,
        )
    )
    return [
        {
            "id": case_id,
            "tier": draw(st.sampled_from(["l2", "l3"])),
            "agent": draw(st.sampled_from(["support", "finance", "triage"])),
            "input": [{"role": "user", "content": draw(TEXT)}],
            "platformTools": ["lookup_ticket"],
            "toolResults": [
                {"name": "lookup_ticket", "output": {"note": draw(TEXT), "n": draw(st.integers())}}
            ],
            "script": [{"kind": "text", "text": draw(TEXT)}],
            "trials": draw(st.integers(1, 3)),
            "expect": [
                {"kind": "output_contains", "text": draw(TEXT), "ungrounded": "generated"},
                {"kind": "tool_called", "name": "lookup_ticket"},
            ],
        }
        for case_id in ids
    ]


def shuffled(value: Any, rng: random.Random) -> Any:
    """The same value with every object's keys in another order."""
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {k: shuffled(v, rng) for k, v in items}
    if isinstance(value, list):
        return [shuffled(v, rng) for v in value]
    return value


def write(
    directory: Path, corpus: list[dict[str, Any]], style: str = "json", seed: int = 0
) -> None:
    for path in directory.glob("*.*"):
        path.unlink()
    rng = random.Random(seed)
    order = list(corpus)
    rng.shuffle(order)  # files are written in any order
    for case in order:
        value = shuffled(case, rng) if seed else case
        if style == "yaml":
            (directory / f"{case['id']}.yaml").write_text(
                yaml.safe_dump(value, sort_keys=False, allow_unicode=True)
            )
        else:
            indent = [None, 1, 4][seed % 3]
            (directory / f"{case['id']}.json").write_text(
                json.dumps(value, indent=indent, ensure_ascii=seed % 2 == 0)
            )


def string_leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, str):
        return [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in string_leaves(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in string_leaves(v, (*path, i))]
    return []


FREE_LEAVES = {
    "content",
    "text",
    "note",
    "ungrounded",
}  # free text: any change keeps the Case valid


def with_leaf(value: Any, path: tuple[Any, ...], leaf: str) -> Any:
    if not path:
        return leaf
    head, *rest = path
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = with_leaf(value[head], tuple(rest), leaf)
    return copy


SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SETTINGS
@given(corpus=cases(), seed=st.integers(1, 10_000))
def test_hash_ignores_key_order_whitespace_file_order_and_yaml_spelling(
    loader: Loader, corpus_dir: Path, corpus: list[dict[str, Any]], seed: int
) -> None:
    write(corpus_dir, corpus)
    reference = loader.load(corpus_dir).hash
    write(corpus_dir, corpus, seed=seed)
    assert loader.load(corpus_dir).hash == reference
    write(corpus_dir, corpus, style="yaml", seed=seed)
    assert loader.load(corpus_dir).hash == reference


@SETTINGS
@given(corpus=cases(), data=st.data())
def test_hash_moves_with_any_leaf_and_with_adding_or_removing_a_case(
    loader: Loader, corpus_dir: Path, corpus: list[dict[str, Any]], data: st.DataObject
) -> None:
    write(corpus_dir, corpus)
    reference = loader.load(corpus_dir).hash
    index = data.draw(st.integers(0, len(corpus) - 1))
    leaves = [p for p in string_leaves(corpus[index]) if p[-1] in FREE_LEAVES]
    leaf = data.draw(st.sampled_from(leaves))
    changed = [dict(c) for c in corpus]
    old = changed[index]
    for step in leaf[:-1]:
        old = old[step]
    changed[index] = with_leaf(changed[index], leaf, old[leaf[-1]] + "!")
    write(corpus_dir, changed)
    assert loader.load(corpus_dir).hash != reference
    number = corpus[index]
    changed = [dict(c) for c in corpus]
    changed[index] = {**number, "trials": number["trials"] % 3 + 1}
    write(corpus_dir, changed)
    assert loader.load(corpus_dir).hash != reference
    if len(corpus) > 1:
        write(corpus_dir, corpus[:index] + corpus[index + 1 :])
        assert loader.load(corpus_dir).hash != reference
    write(corpus_dir, [*corpus, {**corpus[0], "id": "zz-added"}])
    assert loader.load(corpus_dir).hash != reference


def a_case(case_id: str = "c", text: str = "hello") -> dict[str, Any]:
    return {
        "id": case_id,
        "tier": "l2",
        "agent": "support",
        "input": [{"role": "user", "content": text}],
        "platformTools": ["lookup_ticket"],
        "script": [{"kind": "text", "text": "ok"}],
        "expect": [{"kind": "tool_not_called", "name": "lookup_ticket"}],
    }


def an_attack(case_id: str, text: str = "hello") -> dict[str, Any]:
    """A red-team Case: the same Case with what it attacks with."""
    red = {"outcome": "model_resisted", "class": "excessive_agency", "payload": text}
    return {**a_case(case_id, text), "redTeam": red}


def test_a_soul_file_edit_moves_the_hash(loader: Loader, corpus_dir: Path) -> None:
    write(corpus_dir, [a_case()])
    reference = loader.load(corpus_dir).hash
    skill = next((corpus_dir / "soul" / "skills").rglob("SKILL.md"))
    skill.write_text(skill.read_text() + "\n")
    assert loader.load(corpus_dir).hash != reference


def test_a_reworded_platform_tool_description_moves_the_hash(
    plugins: PluginSet, corpus_dir: Path
) -> None:
    write(corpus_dir, [a_case()])
    host = plugins.hosts["agent-runtime"](corpus_dir / "soul")
    reference = Loader(plugins, host, judge="no-judge").load(corpus_dir).hash

    class Reworded(type(host)):  # type: ignore[misc]
        def platform_tools(self) -> dict[str, ToolDecl]:
            tools = dict(super().platform_tools())
            old = tools["lookup_ticket"]
            tools["lookup_ticket"] = ToolDecl(
                name=old.name,
                input_schema=old.input_schema,
                description=(old.description or "") + " Reworded.",
                mutating=old.mutating,
            )
            return tools

    reworded = Reworded(corpus_dir / "soul")
    assert Loader(plugins, reworded, judge="no-judge").load(corpus_dir).hash != reference


class _Unused(Expectation, tag="thirdparty_unused", frozen=True):
    text: str


class _ThirdParty:
    @hookimpl
    def eval_kinds(self) -> list[KindSpec]:
        return [KindSpec(struct=_Unused, scorer=lambda e, ev: Verdict(True, "ok"))]


def plugin_set(core_version: str, third_party_version: str) -> PluginSet:
    found = [
        (ep, dist, core_version if dist == "eval-expectations-turn" else version, plugin)
        for ep, dist, version, plugin in discover()
    ]
    found.append(("unused", "thirdparty-unused", third_party_version, _ThirdParty()))
    return build(found)


def test_plugin_versions_move_the_hash_only_when_their_kinds_are_used(corpus_dir: Path) -> None:
    write(corpus_dir, [a_case()])

    def hash_with(core: str, third: str) -> str:
        plugins = plugin_set(core, third)
        host = plugins.hosts["agent-runtime"](corpus_dir / "soul")
        return Loader(plugins, host, judge="no-judge").load(corpus_dir).hash

    reference = hash_with("0.1.0", "1.0")
    assert hash_with("0.1.0", "2.0") == reference  # its kind is unused by this Corpus
    assert hash_with("0.2.0", "1.0") != reference  # tool_not_called ships in eval-expectations-turn


def test_the_judge_identity_is_in_the_hash(plugins: PluginSet, corpus_dir: Path) -> None:
    write(corpus_dir, [a_case()])
    host = plugins.hosts["agent-runtime"](corpus_dir / "soul")
    a = Loader(plugins, host, judge="no-judge").load(corpus_dir).hash
    b = Loader(plugins, host, judge="http://127.0.0.1:9|judge-1").load(corpus_dir).hash
    assert a != b


def test_red_team_and_capability_hashes_are_independent(loader: Loader, corpus_dir: Path) -> None:
    red = corpus_dir / "red-team"
    red.mkdir()
    write(corpus_dir, [a_case("cap")])
    write(red, [an_attack("attack")])
    capability, red_team = loader.load(corpus_dir), loader.load(red)
    assert red_team.suite == "red-team"
    assert capability.hash != red_team.hash
    write(red, [an_attack("attack", text="a different attack")])
    red_team_after = loader.load(red).hash
    assert red_team_after != red_team.hash
    assert loader.load(corpus_dir).hash == capability.hash  # unmoved by the red-team edit
    write(corpus_dir, [a_case("cap", text="a different request")])
    assert loader.load(corpus_dir).hash != capability.hash
    assert loader.load(red).hash == red_team_after  # unmoved by the capability edit


def test_the_shipped_soul_is_what_is_hashed(loader: Loader, corpus_dir: Path) -> None:
    write(corpus_dir, [a_case()])
    corpus = loader.load(corpus_dir)
    shutil.rmtree(corpus_dir / "soul")
    shutil.copytree(SOUL, corpus_dir / "soul")
    assert loader.load(corpus_dir).soul_hash == corpus.soul_hash


def test_each_case_digest_moves_with_its_case_alone_and_the_hash_rule_is_unchanged(
    loader: Loader, corpus_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hashlib

    from eval_core._util.hashing import canonical, case_digests, judge_identity

    monkeypatch.setenv("EVAL_CACHE_DIR", str(tmp_path / "cache"))
    write(corpus_dir, [a_case("a"), a_case("b")])
    first = loader.load(corpus_dir)  # checked, then kept
    assert list((tmp_path / "cache").rglob("*.bin"))  # kept: the next load is a cache hit
    kept = loader.load(corpus_dir)  # the checked-Corpus cache's copy
    assert first.case_hashes == kept.case_hashes == case_digests(first.cases)
    assert first.files == kept.files == {"a": "a.json", "b": "b.json"}
    assert first.file("a") == corpus_dir / "a.json"
    digest = hashlib.sha256(canonical(sorted(first.cases, key=lambda c: c.id)))
    for part in (b"\0platform\0", canonical([loader._platform["lookup_ticket"]]), b"\0soul\0"):
        digest.update(part)
    digest.update(first.soul_hash.encode())
    digest.update(b"\0plugins\0" + canonical(list(first.plugins)) + b"\0judge\0")
    digest.update(judge_identity({}).encode())
    assert first.hash == digest.hexdigest()  # the digests cost the corpusHash nothing
    write(corpus_dir, [a_case("a"), a_case("b", text="changed")])
    edited = loader.load(corpus_dir)
    assert edited.case_hashes["a"] == first.case_hashes["a"]
    assert edited.case_hashes["b"] != first.case_hashes["b"]
