"""What every cache key holds besides the cache's own inputs: the interpreter and the harness.

A kept answer can change with the interpreter that made it (a syntax tree's shape, a float's
repr, a library built for another ABI or found in another environment) and with the harness's
own code (its checks, decoders and normaliser), however unchanged the cache's own inputs are.
A cache keyed without them makes a Sweep measure something other than the code in the tree
(issue 44), so every key ``eval`` makes for a cache under
:func:`~eval_core._util.cachedir.cache_dir` holds :func:`interpreter` and, where it can without
a cycle, :func:`harness`. Both are read at the moment a key is made: another interpreter or an
edited core is another key, and so a miss.
"""

from __future__ import annotations

import sys
from functools import cache


def interpreter() -> str:
    """The interpreter, as every cache key names it: its implementation and that
    implementation's version (PyPy's is not the language's), the language version, the
    bytecode tag, and the executable (which names the environment its libraries come from)."""
    impl = sys.implementation
    version = ".".join(str(part) for part in tuple(impl.version)[:3])
    language = ".".join(str(part) for part in sys.version_info[:3])
    return (
        f"{impl.name}-{version} python-{language}{sys.version_info[3][:1]} "
        f"{impl.cache_tag} {sys.executable}"
    )


@cache
def core_code() -> str:
    """The digest of the core's own code, by its bytes (a key needs no parse): its checks are
    part of every answer a cache keeps."""
    import eval_core
    from eval_core._util.code import content_digest

    return content_digest("eval-core", eval_core)


@cache
def harness() -> str:
    """The harness, as every cache key names it: eval-core's version and its code's digest
    (once a process: the code a process runs does not change under it)."""
    from eval_core._util.entrypoints import version

    return f"eval-core {version('eval-core')} {core_code()}"


def common() -> list[str]:
    """What every key begins with: :func:`interpreter`, msgspec's version (every entry is
    msgspec's encoding) and :func:`harness`."""
    import msgspec

    return [interpreter(), msgspec.__version__, harness()]
