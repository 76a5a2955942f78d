"""The checked-Corpus cache from the loader's side (the cache: :mod:`eval_core._util.checked`).

What a load's environment is (everything it reads but the Case files, the Host's answers
included), each Case file's key, and the digests of each file's Cases.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from eval_core._loading.resolve import Resolver
from eval_core._plugins.host import Host
from eval_core._plugins.plugin_set import PluginSet
from eval_core._util import cachedir, checked
from eval_core._util.input_files import NotReadable


def environment(
    plugins: PluginSet, host: Host, resolver: Resolver, *, suite: str, soul: str, judge: str
) -> str | None:
    """The checked-Corpus cache's environment of this load (all it reads but the Case
    files), or ``None`` when it is not cacheable."""
    fingerprint = checked.host_fingerprint(host) if cachedir.enabled() else None
    if fingerprint is None:
        return None
    rows = [(p.distribution, p.version, p.entry_point, p.raw) for p in plugins.plugins]
    kind = type(host)
    rules = resolver.context
    platform = resolver.platform
    answers = msgspec.json.encode(  # what the Host says at load, beside what it is
        [
            f"{kind.__module__}.{kind.__qualname__}",
            host.name,
            fingerprint,
            sorted(resolver.agents),
            [(name, platform[name]) for name in sorted(platform)],
            [sorted(rules.allowed), sorted(rules.soul_owned), sorted(rules.retired.items())],
            sorted((key, repr(kind)) for key, kind in rules.types.items()),
            sorted(resolver.tiers),
        ]
    )
    return checked.environment(
        suite=suite, soul=soul, plugins=rows, host=answers.decode(), judge=judge
    )


def file_keys(read: Sequence[tuple[str, bytes | NotReadable]]) -> list[str] | None:
    """Each Case file's cache key, or ``None`` when one could not be read (never cached)."""
    keys: list[str] = []
    for name, data in read:
        if isinstance(data, NotReadable):
            return None
        keys.append(checked.file_key(name, data))
    return keys


def by_file(origin: Sequence[str], digests: Sequence[str]) -> dict[str, list[str]]:
    """Each file's Cases' digests, by the file's key, in the order the file gave them."""
    found: dict[str, list[str]] = {}
    for fkey, digest in zip(origin, digests, strict=True):
        found.setdefault(fkey, []).append(digest)
    return found
