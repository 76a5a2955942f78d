"""Endpoint URLs: checked once when read, compared by what they reach, not by how they are spelled.

A pin's ``base_url`` and the Judge's URL come from files and the environment. One that cannot
be a reachable HTTP endpoint (no host, a broken IPv6 bracket, a bad port, whitespace or a
control character inside) is refused where it is read, not discovered by every Trial erroring.
Two URLs that reach the same server and path are the same endpoint however they are spelled
(case, a trailing dot, a default port, a trailing slash): that is what the Judge checks compare.
:func:`same_server` goes one step further, by address: ``localhost`` and ``127.0.0.1`` are one
server.
"""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import msgspec

DEFAULT_PORTS = {"http": 80, "https": 443}


class EndpointError(ValueError):
    """The URL cannot name an HTTP endpoint; the message says why."""


class Endpoint(msgspec.Struct, frozen=True):
    """What a URL reaches; two spellings of one endpoint are equal."""

    scheme: str
    host: str
    port: int
    path: str

    def is_under(self, domain: str) -> bool:
        return self.host == domain or self.host.endswith("." + domain)


def parse(url: str) -> Endpoint:
    """The endpoint ``url`` names, normalised, or :class:`EndpointError`."""
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        raise EndpointError("contains whitespace or a control character")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:  # an unclosed IPv6 bracket, a port that is not a number
        raise EndpointError(f"is not a URL: {exc}") from None
    if parts.scheme not in DEFAULT_PORTS:
        raise EndpointError("must start with http:// or https://")
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        raise EndpointError("names no host")
    try:
        host = host.encode("idna").decode("ascii")
    except UnicodeError as exc:
        raise EndpointError(f"has a host that is not a domain name: {exc}") from None
    return Endpoint(
        scheme=parts.scheme,
        host=host,
        port=port if port is not None else DEFAULT_PORTS[parts.scheme],
        path=parts.path.rstrip("/"),
    )


def addresses(host: str) -> frozenset[str]:
    """The addresses ``host`` resolves to (itself when it does not resolve)."""
    try:
        found = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return frozenset({host})
    return frozenset(str(info[4][0]) for info in found) or frozenset({host})


def same_server(a: Endpoint, b: Endpoint) -> bool:
    """One endpoint however its host is named: the same scheme, port and path, and a host
    that is the same name or resolves to an address the other resolves to."""
    if (a.scheme, a.port, a.path) != (b.scheme, b.port, b.path):
        return False
    return a.host == b.host or bool(addresses(a.host) & addresses(b.host))
