"""A server's own model list, read over HTTP from a real server on 127.0.0.1: a Judge named by an
alias the server lists for the model under test is refused; a server whose list is missing,
empty, refused or too long is not judged by it."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from eval_bindings import listing
from eval_bindings.pins import select_pin
from eval_bindings.preflight import PreflightError, judge

KEY = "sk-test-0123456789abcdef"
LISTED = {"data": [{"id": "m-1", "aliases": ["m-1-alias"]}, {"id": "judge-model"}]}


class Served:
    """What the server answers on ``GET /v1/models`` (status, raw body) and what it was sent."""

    def __init__(self) -> None:
        self.status = 200
        self.body = json.dumps(LISTED).encode()
        self.headers: list[dict[str, str]] = []


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Served]]:
    served = Served()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            served.headers.append(dict(self.headers))
            ok = self.path == "/v1/models"
            self.send_response(served.status if ok else 404)
            body = served.body if ok else b""
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", served
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def listed(server: tuple[str, Served]) -> Iterator[tuple[str, Served]]:
    url, served = server
    served.status, served.body = 200, json.dumps(LISTED).encode()
    served.headers.clear()
    yield url, served


def test_the_servers_list_is_read_as_groups_of_names_with_the_wires_credential(
    listed: tuple[str, Served],
) -> None:
    url, served = listed
    assert listing.groups(url + "/", "openai", KEY) == [
        frozenset({"m-1", "m-1-alias"}),
        frozenset({"judge-model"}),
    ]
    assert served.headers[-1]["Authorization"] == f"Bearer {KEY}"
    assert listing.groups(url, "anthropic", KEY) is not None
    assert served.headers[-1]["x-api-key"] == KEY
    assert served.headers[-1]["anthropic-version"]


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (200, b""),
        (200, b"not json"),
        (200, b"[" * 5000 + b"]" * 5000),
        (200, b'{"data": [' + b'{"id": "m"},' * (listing.MAX_BYTES // 10) + b'{"id": "z"}]}'),
        (401, json.dumps(LISTED).encode()),
        (404, b""),
    ],
    ids=["empty", "not-json", "too-deep", "over-the-cap", "refused", "no-route"],
)
def test_a_list_that_cannot_be_read_is_no_list(
    listed: tuple[str, Served], status: int, body: bytes
) -> None:
    url, served = listed
    served.status, served.body = status, body
    assert listing.groups(url, "openai", KEY) is None


def test_a_judge_named_by_an_alias_the_server_lists_for_the_model_under_test_is_refused(
    listed: tuple[str, Served], tmp_path: Path
) -> None:
    url, served = listed
    models = tmp_path / "models.toml"
    models.write_text(
        f'[models.local]\nwire = "openai"\nmodel = "m-1"\nbase_url = "{url}/"\n'
        'credential = "env://LOCAL_KEY"\ndated = false\n'
    )
    pin = select_pin(models, "local")
    env = {"EVAL_JUDGE_API_KEY": KEY, "EVAL_JUDGE_BASE_URL": url, "EVAL_JUDGE_MODEL": "m-1-alias"}
    with pytest.raises(PreflightError, match="may not grade itself"):
        judge([pin], env)
    other = judge([pin], {**env, "EVAL_JUDGE_MODEL": "judge-model"})
    assert other is not None and not other.shares_model_under_test
    served.body = b""  # no list: the name is trusted as written
    trusted = judge([pin], env)
    assert trusted is not None and not trusted.shares_model_under_test
