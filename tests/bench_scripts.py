"""The benchmark scripts under ``bench/`` (scripts, not a package), loaded as modules for the
tests that check them or borrow from them."""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parent.parent / "bench"


@cache
def bench_script(name: str) -> ModuleType:
    """``bench/NAME.py`` loaded once, as the module ``NAME`` (registered in ``sys.modules``
    unless a module of that name is there already, so its dataclasses and pickles resolve)."""
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module
