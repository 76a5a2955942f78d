"""The redactor: a secret never survives in an output, whole, escaped, or cut for display."""

from __future__ import annotations

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_core._util.paths import quoted
from eval_core._util.redaction import MIN_PREFIX, REDACTED, Redactor, credentials_in

KEY = "sk-test-Jq8vR2mZx7LpW4nB6tY1cK9"  # 31 characters, as the probe's


def test_a_key_cut_by_a_shortened_detail_does_not_survive_as_its_prefix() -> None:
    detail = quoted(f"the model said {KEY} and more", 35)  # cuts the key at 19 characters
    assert KEY[:19] in detail and KEY not in detail
    scrubbed = Redactor([KEY]).scrub_text(detail)
    assert KEY[:MIN_PREFIX] not in scrubbed and REDACTED in scrubbed


def test_every_form_an_output_carries_is_redacted() -> None:
    secret = 'p"a<s>s&word-0123456789'
    redactor = Redactor([secret])
    json_form = msgspec.json.encode({"k": secret})
    assert secret.encode() not in redactor.scrub_bytes(json_form)
    assert "&lt;s&gt;" not in redactor.scrub_text("<x a='p&quot;a&lt;s&gt;s&amp;word-0123456789'/>")


def test_no_secret_means_no_change_and_a_falsy_redactor() -> None:
    redactor = Redactor(["", ""])
    assert not redactor
    assert redactor.scrub_text("anything") == "anything"
    assert redactor.scrub_bytes(b"anything") == b"anything"


secrets = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=40)


@settings(derandomize=True)
@given(secret=secrets, before=st.text(max_size=20), cut=st.integers(min_value=0, max_value=40))
def test_no_prefix_of_min_prefix_characters_or_more_survives(
    secret: str, before: str, cut: int
) -> None:
    shown = secret[: max(cut, MIN_PREFIX)]
    scrubbed = Redactor([secret]).scrub_text(before + shown + "…")
    if len(shown) >= MIN_PREFIX or shown == secret:
        assert all(shown not in piece for piece in scrubbed.split(REDACTED))


def test_the_passwords_of_a_hosts_options_are_credentials() -> None:
    assert credentials_in("store=postgresql://u:p@ss/w0rd@host/db") == ["p@ss/w0rd"]
    assert credentials_in("store=postgresql://u@h/x?password=s3cret&sslmode=off") == ["s3cret"]
    assert credentials_in("store=host=h password='se cr3t' dbname=x") == ["se cr3t"]
    assert credentials_in("store=sqlite") == []


def test_a_redactor_told_of_the_judges_key_later_redacts_both() -> None:
    redactor = Redactor([KEY]).knowing(["judge-key-0123456789abcdef"])
    scrubbed = redactor.scrub_text(f"{KEY} and judge-key-0123456789abcdef")
    assert scrubbed == f"{REDACTED} and {REDACTED}"
