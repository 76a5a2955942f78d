"""Model pins and preflight: refusals name the file, key path or variable, never a value."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eval_bindings import listing
from eval_bindings.pins import PinError, load_pins, select_pin
from eval_bindings.preflight import PreflightError, credential, judge, no_overrides
from eval_bindings.wire.options import RequestOptions

GOOD = """
[models.local]
wire = "openai"
model = "m-1"
base_url = "http://127.0.0.1:9/v1/"
credential = "env://LOCAL_KEY"
dated = false
effort = "low"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "models.toml"
    path.write_text(text)
    return path


def test_the_checked_in_models_file_loads() -> None:
    pins = load_pins(Path(__file__).parents[3] / "models.toml")
    assert {"local-smollm2", "sonnet"} <= set(pins)
    assert pins["local-smollm2"].credential_env == "EVAL_LOCAL_API_KEY"


def test_a_good_pin(tmp_path: Path) -> None:
    pin = select_pin(write(tmp_path, GOOD), "local")
    assert (pin.wire, pin.base_url, pin.credential_env, pin.dated) == (
        "openai",
        "http://127.0.0.1:9/v1",
        "LOCAL_KEY",
        False,
    )
    assert not pin.priced and pin.effort == "low"


def test_a_pins_request_switches(tmp_path: Path) -> None:
    """Unset, a pin sends ``tool_choice`` "auto" only; set, each switch is kept as written."""
    assert select_pin(write(tmp_path, GOOD), "local").options == RequestOptions()
    switches = (
        'tool_choice = "required"\ntool_choice_after_result = "none"\n'
        "parallel_tool_calls = false\ntemperature = 0\nseed = 7\n"
    )
    pin = select_pin(
        write(tmp_path, GOOD.replace("dated = false", "dated = false\n" + switches)), "local"
    )
    assert pin.options == RequestOptions("required", "none", False, 0.0, 7)
    assert isinstance(pin.options.temperature, float)


@pytest.mark.parametrize(
    ("change", "where", "why"),
    [
        (
            ('credential = "env://LOCAL_KEY"', 'credential = "sk-abc123"'),
            "models.local.credential",
            "env://NAME",
        ),
        (('wire = "openai"', 'wire = "grpc"'), "models.local.wire", "'openai' or 'anthropic'"),
        (("dated = false", ""), "models.local.dated", "required"),
        (
            ("dated = false", "dated = false\nprice_input_per_mtok = 1.0"),
            "models.local.price_output_per_mtok",
            "both",
        ),
        (
            (
                "dated = false",
                "dated = false\nprice_input_per_mtok = nan\nprice_output_per_mtok = 1",
            ),
            "models.local.price_input_per_mtok",
            "finite",
        ),
        (("dated = false", "dated = false\ncolour = 1"), "models.local.colour", "unknown key"),
        (("[models.local]", "[models.'bad name']"), "models.bad name", "letters, digits"),
        (
            ('base_url = "http://127.0.0.1:9/v1/"', 'base_url = "127.0.0.1"'),
            "models.local.base_url",
            "http",
        ),
        (("dated = false", "dated = false\ntimeout_s = -1"), "models.local.timeout_s", "> 0"),
        *(
            (('base_url = "http://127.0.0.1:9/v1/"', f'base_url = "{url}"'), "base_url", why)
            for url, why in [
                ("http://[::1/v1", "not a URL"),
                ("http://127.0.0.1:port/v1", "not a URL"),
                ("http:///v1", "names no host"),
                ("http://exa mple.com/v1", "whitespace"),
                ("ftp://example.com/v1", "http"),
            ]
        ),
        (
            ("dated = false", "dated = false\nmax_response_bytes = 10"),
            "models.local.max_response_bytes",
            "1024",
        ),
        *(
            (("dated = false", f"dated = false\n{line}"), f"models.local.{key}", why)
            for line, key, why in [
                ('tool_choice = "any"', "tool_choice", "'auto', 'required', 'none'"),
                ("tool_choice = true", "tool_choice", "'auto', 'required', 'none'"),
                ('tool_choice_after_result = "x"', "tool_choice_after_result", "'none'"),
                ('parallel_tool_calls = "no"', "parallel_tool_calls", "true or false"),
                ("temperature = 2.5", "temperature", "from 0 to 2"),
                ("temperature = nan", "temperature", "from 0 to 2"),
                ("temperature = true", "temperature", "from 0 to 2"),
                ("seed = -1", "seed", "integer from 0"),
                ("seed = 1.5", "seed", "integer from 0"),
                ("trial_timeout_s = 0", "trial_timeout_s", "> 0"),
                ("trial_timeout_s = inf", "trial_timeout_s", "> 0"),
            ]
        ),
        (
            ('wire = "openai"', 'wire = "anthropic"\nseed = 7'),
            "models.local.seed",
            "no seed",
        ),
        (
            ('wire = "openai"', 'wire = "anthropic"\ntemperature = 1.5'),
            "models.local.temperature",
            "0 to 1",
        ),
    ],
)
def test_refusals_name_file_key_and_reason(
    tmp_path: Path, change: tuple[str, str], where: str, why: str
) -> None:
    path = write(tmp_path, GOOD.replace(*change))
    with pytest.raises(PinError) as caught:
        load_pins(path)
    message = str(caught.value)
    assert str(path) in message and where in message and why in message
    assert "sk-abc123" not in message


def test_unknown_model_and_bad_toml(tmp_path: Path) -> None:
    with pytest.raises(PinError, match="no model 'other'; pinned: local"):
        select_pin(write(tmp_path, GOOD), "other")
    with pytest.raises(PinError, match="cannot be read as TOML"):
        load_pins(write(tmp_path, "[models"))
    with pytest.raises(PinError, match="no such models file"):
        load_pins(tmp_path / "absent.toml")


SECRET = "sk-live-0123456789abcdef"


@pytest.mark.parametrize(
    ("value", "why"),
    [
        (None, "is not set"),
        ("", "is empty"),
        (SECRET + "\n", "line break"),
        (" " + SECRET, "whitespace"),
        ("sk-1", "truncated"),
        ("sk-live-0123...", "truncated"),
        ("<your-key-here>", "placeholder"),
    ],
)
def test_credential_refusals_name_the_variable_never_the_value(value: str | None, why: str) -> None:
    env = {} if value is None else {"MY_KEY": value}
    with pytest.raises(PreflightError) as caught:
        credential("MY_KEY", env)
    message = str(caught.value)
    assert "MY_KEY" in message and why in message
    if value:
        assert value.strip() not in message
    assert "\n" not in message


def test_a_good_credential_is_returned() -> None:
    assert credential("MY_KEY", {"MY_KEY": SECRET}) == SECRET


@pytest.mark.parametrize("name", ["OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"])
def test_base_url_overrides_are_refused(name: str) -> None:
    with pytest.raises(PreflightError, match=name):
        no_overrides({name: "http://elsewhere"})
    no_overrides({name: ""})


def test_the_judge_is_refused_at_a_model_under_test_or_a_vendor_host(tmp_path: Path) -> None:
    pin = select_pin(write(tmp_path, GOOD), "local")
    env = {
        "EVAL_JUDGE_BASE_URL": "http://127.0.0.1:9/v1",
        "EVAL_JUDGE_MODEL": "m-1",
        "EVAL_JUDGE_API_KEY": SECRET,
    }
    with pytest.raises(PreflightError, match="may not grade itself"):
        judge([pin], env)
    shared = judge([pin], {**env, "EVAL_JUDGE_ALLOW_MODEL_UNDER_TEST": "1"})
    assert shared is not None and shared.shares_model_under_test
    for url in ("https://api.openai.com/v1", "https://api.anthropic.com/v1"):
        with pytest.raises(PreflightError, match="third model"):
            judge([], {**env, "EVAL_JUDGE_BASE_URL": url})
    with pytest.raises(PreflightError, match="EVAL_JUDGE_MODEL is unset"):
        judge([], {"EVAL_JUDGE_BASE_URL": "http://127.0.0.1:1/v1"})
    with pytest.raises(PreflightError, match="EVAL_JUDGE_API_KEY is not set"):
        judge([], {"EVAL_JUDGE_BASE_URL": "http://127.0.0.1:1/v1", "EVAL_JUDGE_MODEL": "j"})
    assert judge([], {}) is None
    other = judge([pin], {**env, "EVAL_JUDGE_MODEL": "judge-model"})
    assert other is not None and not other.shares_model_under_test


def test_the_judge_is_the_same_endpoint_however_it_is_spelled(tmp_path: Path) -> None:
    text = GOOD.replace("http://127.0.0.1:9/v1/", "http://localhost/v1")
    pin = select_pin(write(tmp_path, text), "local")
    env = {"EVAL_JUDGE_MODEL": "m-1", "EVAL_JUDGE_API_KEY": SECRET}
    for url in ("http://LocalHost.:80/v1/", "http://localhost/v1//", "HTTP://localhost/v1"):
        with pytest.raises(PreflightError, match="may not grade itself"):
            judge([pin], {**env, "EVAL_JUDGE_BASE_URL": url})
    for url in ("https://api.OpenAI.com./v1", "https://eu.api.anthropic.com:443/v1"):
        with pytest.raises(PreflightError, match="third model"):
            judge([], {**env, "EVAL_JUDGE_BASE_URL": url})
    with pytest.raises(PreflightError, match="EVAL_JUDGE_BASE_URL is not a URL"):
        judge([], {**env, "EVAL_JUDGE_BASE_URL": "http://[::1/v1"})
    other = judge([pin], {**env, "EVAL_JUDGE_BASE_URL": "http://localhost:8080/v1"})
    assert other is not None and not other.shares_model_under_test


def test_the_pin_the_local_model_prints_is_accepted_as_printed(tmp_path: Path) -> None:
    local = pytest.importorskip("eval_local_model", reason="the 'realmodel' group is not installed")
    path = write(tmp_path, local.pin_toml("http://127.0.0.1:41234/v1", slots=2))
    pin = select_pin(path, local.PIN_NAME)
    assert pin.max_concurrency == 2 and pin.max_output_tokens == 64
    assert pin.options == RequestOptions("required", "none", False, 0.0, 7)
    checked_in = load_pins(Path(__file__).parents[3] / "models.toml")[local.PIN_NAME]
    assert checked_in.options == pin.options  # models.toml's pin is the printed one


def test_the_judge_is_the_model_under_test_by_address_and_by_the_servers_own_list(
    tmp_path: Path,
) -> None:
    """``localhost`` is ``127.0.0.1``; two names the server lists as one model are one model."""
    pin = select_pin(write(tmp_path, GOOD), "local")  # m-1 at http://127.0.0.1:9/v1
    env = {"EVAL_JUDGE_API_KEY": SECRET, "EVAL_JUDGE_MODEL": "m-1"}
    with pytest.raises(PreflightError, match="may not grade itself"):
        judge([pin], {**env, "EVAL_JUDGE_BASE_URL": "http://localhost:9/v1"})

    def one_model(url: str, wire: str, key: str) -> list[frozenset[str]]:
        assert (url, wire, key) == ("http://127.0.0.1:9/v1", "openai", SECRET)
        return [frozenset({"m-1", "m-1-alias"}), frozenset({"judge-model"})]

    aliased = {
        **env,
        "EVAL_JUDGE_BASE_URL": "http://127.0.0.1:9/v1",
        "EVAL_JUDGE_MODEL": "m-1-alias",
    }
    with pytest.raises(PreflightError, match="may not grade itself"):
        judge([pin], aliased, lister=one_model)
    other = judge([pin], {**aliased, "EVAL_JUDGE_MODEL": "judge-model"}, lister=one_model)
    assert other is not None and not other.shares_model_under_test
    unlisted = judge([pin], aliased, lister=lambda *_: None)  # no list: trusted as written
    assert unlisted is not None and not unlisted.shares_model_under_test


@pytest.mark.parametrize(
    ("listed", "groups"),
    [
        ({"data": [{"id": "a"}, {"id": "b", "aliases": ["b2", 3]}]}, [{"a"}, {"b", "b2"}]),
        ({"object": "list", "data": [{"id": "claude-x", "type": "model"}]}, [{"claude-x"}]),
        ({"data": [{"name": "no id"}, "junk"]}, []),
        ({"models": []}, None),
        ([1, 2], None),
    ],
)
def test_a_servers_model_list_is_read_as_groups_of_names(
    listed: Any, groups: list[set[str]] | None
) -> None:
    found = listing.read(listed)
    assert found == (None if groups is None else [frozenset(g) for g in groups])
