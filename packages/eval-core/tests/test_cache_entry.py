"""Every cache entry is read by the one bounded reader (issue 45, class 1): a named pipe never
blocks, a link to ``/dev/zero`` or a 3 GB file is not read, a deeply nested or damaged entry
is a miss, a failed write leaves no temporary file, and no cache lives in a Corpus or Soul."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_cli import help_cache
from eval_core._case.evidence import Evidence
from eval_core._plugins import manifest
from eval_core._recording.transcript import evidence_schema, schema_hash
from eval_core._util import cache_entry, cachedir, checked
from eval_core._util.input_files import NotReadable, TooLarge, read_cache, read_regular


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("EVAL_CACHE", raising=False)
    monkeypatch.setattr(cachedir, "_KEPT_OUT", [])
    return tmp_path / "cache"


def _hostile(path: Path, what: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if what == "fifo":
        os.mkfifo(path)
    elif what == "zero":
        path.symlink_to("/dev/zero")
    elif what == "huge":
        with open(path, "wb") as handle:  # 3 GB, sparse: nothing is written
            handle.truncate(3 << 30)
    elif what == "deep":
        path.write_bytes(cache_entry.seal(b"\x91" * 100_000 + b"\xc0") or b"")
    elif what == "deep-json":
        path.write_bytes(cache_entry.seal(b"[" * 100_000 + b"]" * 100_000) or b"")
    elif what == "unsealed":
        path.write_bytes(msgspec.msgpack.encode({"a": 1}))
    elif what == "truncated":
        path.write_bytes((cache_entry.seal(msgspec.msgpack.encode({"a": 1})) or b"")[:-1])
    elif what == "link":
        real = path.with_name("real")
        real.write_bytes(cache_entry.seal(msgspec.msgpack.encode({"a": 1})) or b"")
        path.symlink_to(real)


KINDS = ["fifo", "zero", "huge", "deep", "deep-json", "unsealed", "truncated", "link"]


@pytest.mark.parametrize("what", KINDS)
def test_a_hostile_entry_is_a_quick_miss(cache: Path, what: str) -> None:
    path = cache / "entry.bin"
    _hostile(path, what)
    started = time.perf_counter()
    assert cache_entry.load(path, dict[str, object], 1 << 20) is None
    assert cache_entry.load(path, object, 1 << 20, json=True) is None
    assert time.perf_counter() - started < 2


def test_a_sealed_entry_reads_back_and_a_flipped_byte_is_a_miss(cache: Path) -> None:
    path = cache / "entry.bin"
    assert cache_entry.dump(path, {"a": [1, 2]})
    assert cache_entry.load(path, dict[str, list[int]], 1 << 20) == {"a": [1, 2]}
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    assert cache_entry.load(path, dict[str, list[int]], 1 << 20) is None
    assert cache_entry.load(path, dict[str, list[int]], 4) is None  # over its limit: unread


def test_the_reader_refuses_by_kind_and_size_before_reading(tmp_path: Path) -> None:
    fifo, huge, zero = tmp_path / "fifo", tmp_path / "huge", tmp_path / "zero"
    os.mkfifo(fifo)
    with open(huge, "wb") as handle:
        handle.truncate(3 << 30)
    zero.symlink_to("/dev/zero")
    with pytest.raises(NotReadable, match="named pipe"):
        read_regular(fifo)
    with pytest.raises(NotReadable, match="device"):
        read_regular(zero)
    with pytest.raises(TooLarge, match="3,221,225,472 bytes, over"):
        read_regular(huge)
    assert read_cache(tmp_path / "missing", 10) is None


WRITE_ON_A_FULL_DISK = """
import os, resource, signal, sys
from pathlib import Path
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
from eval_core._util import cache_entry
print(cache_entry.write_entry(Path(sys.argv[1]) / "entry.bin", b"x" * 100_000))
"""


def test_a_write_that_fails_leaves_no_temporary_file(cache: Path) -> None:
    cache.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", WRITE_ON_A_FULL_DISK, str(cache)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.stdout.strip() == "False", done.stderr
    assert list(cache.iterdir()) == []


@pytest.mark.parametrize(
    "where", ["corpus", "corpus/soul/.cache", "corpus/soul", "."], ids=lambda w: w
)
def test_a_cache_overlapping_the_corpus_or_its_soul_is_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    corpus = tmp_path / "corpus"
    (corpus / "soul").mkdir(parents=True)
    monkeypatch.setenv("EVAL_CACHE_DIR", str(tmp_path / where))
    assert cachedir.enabled()
    cachedir.keep_out_of(corpus, corpus / "soul")
    assert not cachedir.enabled()
    assert not cache_entry.write_entry(tmp_path / where / "x.json", b"{}")
    assert not (tmp_path / where / "x.json").exists()
    monkeypatch.setenv("EVAL_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert cachedir.enabled()


def test_an_entry_sealed_without_this_users_key_is_a_miss(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A grafted entry, sealed by someone who cannot read the key (another state directory,
    another machine), is never read; the key lives outside the cache directory."""
    path = cache / "entry.bin"
    assert cache_entry.dump(path, {"a": 1})
    assert not cache_entry.key_path().is_relative_to(cache)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "elsewhere"))
    assert cache_entry.load(path, dict[str, int], 1 << 20) is None  # another key: a miss
    assert cache_entry.dump(path, {"a": 2})
    assert cache_entry.load(path, dict[str, int], 1 << 20) == {"a": 2}
    assert (tmp_path / "elsewhere" / "eval" / "cache.key").stat().st_mode & 0o077 == 0


ENTRY_BYTES = st.one_of(
    st.binary(max_size=300),
    st.builds(lambda b: cache_entry.seal(b) or b"", st.binary(max_size=300)),  # well sealed
    st.builds(lambda n: cache_entry.seal(b"\x91" * n + b"\xc0") or b"", st.integers(0, 5000)),
    st.builds(lambda n: cache_entry.seal(b"[" * n + b"]" * n) or b"", st.integers(0, 5000)),
)


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=ENTRY_BYTES)
def test_any_bytes_as_any_kind_of_entry_are_a_miss_or_a_value_never_an_error(
    cache: Path, data: bytes
) -> None:
    """A fuzz target per cache entry kind: whatever bytes stand as the entry, its reader
    answers a value of its type or a miss, and never raises."""
    for name, read in (
        ("corpora/x.bin", checked.read_path),
        ("manifests/x.json", lambda p: cache_entry.load(p, manifest.Manifest, 1 << 20, json=True)),
        ("schemas/x.json", lambda p: cache_entry.load(p, dict[str, str], 1 << 20, json=True)),
        ("code.json", lambda p: cache_entry.load(p, dict[str, list[object]], 1 << 20, json=True)),
    ):
        path = cache / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        read(path)
    (cache / "help.txt").write_bytes(data)
    assert help_cache.kept(["--help"]) is None or isinstance(help_cache.kept(["--help"]), str)
    evidence_schema()  # makes its entry, then any bytes stand in its place
    for kept in (cache / "schemas").glob("evidence-*"):
        kept.write_bytes(data)
    assert evidence_schema() == schema_hash(Evidence)
