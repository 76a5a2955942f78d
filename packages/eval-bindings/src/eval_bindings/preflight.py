"""Preflight: refuse, before the first Trial, a Sweep that could only error or leak.

A missing or malformed credential, a base-URL override in the environment (it would silently
redirect a pinned model), or a Judge that points at a model under test or at a vendor's public
host: each is one line naming the variable, never its value.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:  # the models file's parser is not needed to find that no Judge is set
    from eval_bindings.pins import ModelPin

OVERRIDES = ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")
_VENDOR_HOSTS = ("openai.com", "anthropic.com")
MIN_KEY_LENGTH = 8
JUDGE_SHARE_OPT_IN = "EVAL_JUDGE_ALLOW_MODEL_UNDER_TEST"


class PreflightError(Exception):
    """A Sweep refused before it started; the message is one line and holds no secret."""


@cache
def _placeholder() -> re.Pattern[str]:
    """Compiled when a credential is first read: every scripted Sweep imports this module."""
    return re.compile(r"^(x+|\.+|…|<.*>|\$\{?.*\}?|changeme|your[-_ ]?key.*)$", re.IGNORECASE)


def credential(name: str, environ: Mapping[str, str] | None = None) -> str:
    """The value of the credential variable ``name``, or a refusal naming the variable."""
    env = os.environ if environ is None else environ
    value = env.get(name)
    if value is None:
        raise PreflightError(f"credential {name} is not set in the environment")
    if not value:
        raise PreflightError(f"credential {name} is empty")
    if any(c in value for c in "\r\n"):
        raise PreflightError(f"credential {name} contains a line break (pasted with a newline?)")
    if value != value.strip() or any(c.isspace() for c in value):
        raise PreflightError(f"credential {name} contains whitespace")
    if any(not c.isprintable() for c in value):
        raise PreflightError(f"credential {name} contains control characters")
    if len(value) < MIN_KEY_LENGTH or value.endswith(("...", "…")):
        raise PreflightError(f"credential {name} looks truncated (too short or ends in '...')")
    if _placeholder().match(value):
        raise PreflightError(f"credential {name} holds a placeholder, not a key")
    return value


def no_overrides(environ: Mapping[str, str] | None = None) -> None:
    """A base-URL override would send a pinned model's calls somewhere its pin does not say."""
    env = os.environ if environ is None else environ
    for name in OVERRIDES:
        if env.get(name):
            raise PreflightError(
                f"{name} is set in the environment; a pinned model is reached only at its "
                "pinned base_url: unset it"
            )


class JudgeConfig(msgspec.Struct, frozen=True):
    """Where the Judge is and who it is (a Struct: a dataclass costs every scripted Sweep)."""

    base_url: str
    model: str
    api_key: str
    shares_model_under_test: bool = False


Lister = Callable[[str, str, str], "list[frozenset[str]] | None"]


def judge(
    pins_under_test: Sequence[ModelPin],
    environ: Mapping[str, str] | None = None,
    lister: Lister | None = None,
) -> JudgeConfig | None:
    """The configured Judge, ``None`` when none is, or a refusal naming the variable.

    The Judge is the model under test when it reaches the same server (by address:
    ``localhost`` is ``127.0.0.1``) and the same model: the same id, or two names the server's
    own model list (:mod:`eval_bindings.listing`, or ``lister``) gives one model."""
    env = os.environ if environ is None else environ
    url = env.get("EVAL_JUDGE_BASE_URL", "").strip().rstrip("/")
    model = env.get("EVAL_JUDGE_MODEL", "").strip()
    if not url and not model:
        return None
    if not url or not model:
        missing = "EVAL_JUDGE_BASE_URL" if not url else "EVAL_JUDGE_MODEL"
        raise PreflightError(
            f"a Judge needs EVAL_JUDGE_BASE_URL and EVAL_JUDGE_MODEL; {missing} is unset"
        )
    from eval_bindings import endpoints

    try:
        judged_at = endpoints.parse(url)
    except endpoints.EndpointError as bad:
        raise PreflightError(f"EVAL_JUDGE_BASE_URL {bad}") from None
    for vendor in _VENDOR_HOSTS:
        if judged_at.is_under(vendor):
            raise PreflightError(
                f"EVAL_JUDGE_BASE_URL points at {vendor}: the Judge must be a third model, "
                "not a vendor under test"
            )
    beside = [
        p for p in pins_under_test if endpoints.same_server(endpoints.parse(p.base_url), judged_at)
    ]
    shared = [p.name for p in beside if p.model == model]
    if beside and not shared:
        from eval_bindings import listing

        served = (lister or listing.groups)(url, "openai", credential("EVAL_JUDGE_API_KEY", env))
        names = listing.names_of(model, served) if served is not None else None
        shared = [p.name for p in beside if names is not None and p.model in names]
    if shared and env.get(JUDGE_SHARE_OPT_IN) != "1":
        raise PreflightError(
            f"the Judge (EVAL_JUDGE_BASE_URL + EVAL_JUDGE_MODEL) is the model under test "
            f"({', '.join(shared)}), however its server or name is spelled: a model may not "
            "grade itself"
        )
    return JudgeConfig(
        base_url=url,
        model=model,
        api_key=credential("EVAL_JUDGE_API_KEY", env),
        shares_model_under_test=bool(shared),
    )
