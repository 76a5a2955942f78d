"""The plug-in manager's module fast path finds exactly the hook implementations and hook
specifications pluggy finds: for every installed plug-in, and for a module holding each kind of
name pluggy treats apart (a marked function, a marker on ``__func__``, a marker that is no dict,
static and class methods, a bound method, a module ``__getattr__``, a class, dunders)."""

from __future__ import annotations

import types

import pluggy
from hypothesis import given
from hypothesis import strategies as st

from eval_core._plugins import hookspecs
from eval_core._plugins.manager import Manager
from eval_core._plugins.plugins import installed_entries, load_entry

IMPL = pluggy.HookimplMarker(hookspecs.PROJECT)
SPEC = pluggy.HookspecMarker(hookspecs.PROJECT)
PLAIN = pluggy.PluginManager(hookspecs.PROJECT)
FAST = Manager(hookspecs.PROJECT)


def _same(module: object) -> None:
    for name in dir(module):
        assert FAST.parse_hookimpl_opts(module, name) == PLAIN.parse_hookimpl_opts(module, name)
        assert FAST.parse_hookspec_opts(module, name) == PLAIN.parse_hookspec_opts(module, name)


def test_every_installed_plugin_and_the_hookspecs_parse_as_pluggy_parses_them() -> None:
    _same(hookspecs)
    for ep in installed_entries():
        _same(load_entry(ep)[3])


class _Holder:
    def method(self) -> None: ...


def _function(marker: object, on_func: bool) -> types.FunctionType:
    def hook() -> None: ...

    target: object = hook
    if on_func:
        target = types.SimpleNamespace()
        hook.__func__ = target  # type: ignore[attr-defined]
    if marker is not None:
        setattr(target, f"{hookspecs.PROJECT}_impl", marker)
        setattr(target, f"{hookspecs.PROJECT}_spec", marker)
    return hook


VALUES = st.one_of(
    st.builds(
        _function,
        st.sampled_from([None, {"tryfirst": True}, {}, "not a dict", 1]),
        st.booleans(),
    ),
    st.sampled_from(
        [
            IMPL(_function(None, False)),
            SPEC(_function(None, False)),
            staticmethod(IMPL(_function(None, False))),
            classmethod(IMPL(_function(None, False))),
            IMPL(staticmethod(_function(None, False))),
            _Holder().method,
            _Holder,
            None,
            {"a": 1},
            print,
        ]
    ),
)
NAMES = st.one_of(
    st.text("abcdefgh_", min_size=1, max_size=10),
    st.sampled_from(["__getattr__", "__dict__", "__annotations__", "__doc__", "__init__"]),
)


@given(st.dictionaries(NAMES, VALUES, max_size=8))
def test_any_module_parses_as_pluggy_parses_it(names: dict[str, object]) -> None:
    module = types.ModuleType("probe")
    vars(module).update(names)  # into the module's __dict__, even a name its type defines
    _same(module)
