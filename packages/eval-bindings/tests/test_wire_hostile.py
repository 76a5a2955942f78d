"""A hostile or broken vendor is bounded: in time, in bytes after decompression, in depth.

Each is a real loopback server misbehaving on purpose. The binding gives up with one
``model_*`` reason and never holds more than its cap in memory or waits past its deadline.
"""

from __future__ import annotations

import gzip
import time
from typing import Any

import pytest

from eval_bindings.wire.transport import Connections, VendorError, post_json

BODY = {"model": "m", "messages": []}


def call(url: str, timeout: float = 5.0, max_bytes: int = 1 << 20) -> Any:
    with Connections() as client:
        return post_json(client, url + "/chat/completions", {}, BODY, timeout, max_bytes)


def test_a_trickling_reply_is_cut_off_at_the_deadline(vendor: Any, kit: Any) -> None:
    # Each byte comes well inside the read timeout; only a total deadline can stop this.
    server = vendor(kit.Reply(body=b'{"padding": "' + b"x" * 400 + b'"}', trickle=0.02))
    started = time.monotonic()
    with pytest.raises(VendorError) as caught:
        call(server.url, timeout=0.6)
    assert caught.value.reason == "model_timeout"
    assert "did not finish its reply within 0.6s" in str(caught.value)
    assert time.monotonic() - started < 0.6 + 0.6 + 0.5  # deadline + at most one read timeout


def test_headers_trickled_a_byte_at_a_time_are_cut_off_at_the_deadline(
    vendor: Any, kit: Any
) -> None:
    server = vendor(kit.Reply(body={}, trickle_headers=0.05))
    started = time.monotonic()
    with pytest.raises(VendorError) as caught:
        call(server.url, timeout=0.6)
    assert caught.value.reason == "model_timeout"
    assert "within 0.6s" in str(caught.value)
    assert time.monotonic() - started < 0.6 + 0.5


def test_a_gzip_bomb_is_refused_before_it_is_held(vendor: Any, kit: Any) -> None:
    bomb = gzip.compress(b"[" + b" " * (64 * 1024 * 1024) + b"]", compresslevel=9)
    assert len(bomb) < 128 * 1024  # small on the wire
    server = vendor(kit.Reply(body=bomb, headers={"Content-Encoding": "gzip"}))
    started = time.monotonic()
    with pytest.raises(VendorError) as caught:
        call(server.url, max_bytes=1 << 20)
    assert caught.value.reason == "model_response_too_large"
    assert not caught.value.transient  # the same reply again would be just as large
    assert time.monotonic() - started < 2.0


def test_a_reply_nested_too_deep_names_where(vendor: Any, kit: Any) -> None:
    server = vendor(kit.Reply(body=b'{"choices": ' + b"[" * 200 + b"]" * 200 + b"}"))
    with pytest.raises(VendorError) as caught:
        call(server.url)
    assert caught.value.reason == "model_malformed_response"
    assert "$.choices" in str(caught.value) and "nest" in str(caught.value)


def test_a_large_reply_under_the_cap_is_read_whole(vendor: Any, kit: Any) -> None:
    text = "y" * 300_000
    server = vendor(kit.Reply(body={"text": text}, headers={"Content-Encoding": "identity"}))
    assert call(server.url) == {"text": text}


def test_an_encoding_that_was_not_offered_is_malformed(vendor: Any, kit: Any) -> None:
    server = vendor(kit.Reply(body=b"\x1b\x00\x00", headers={"Content-Encoding": "br"}))
    with pytest.raises(VendorError) as caught:
        call(server.url)
    assert caught.value.reason == "model_malformed_response"
    assert server.requests[0]["headers"]["Accept-Encoding"] == "gzip, deflate"


def test_a_gzip_reply_under_the_cap_is_inflated(vendor: Any, kit: Any) -> None:
    server = vendor(
        kit.Reply(body=gzip.compress(b'{"ok": true}'), headers={"Content-Encoding": "gzip"})
    )
    assert call(server.url) == {"ok": True}
