"""The cyclic garbage collector, paused while ``eval`` starts.

Start-up allocates a few hundred thousand objects (the modules of typer, the plug-ins and the
Host, the plug-in set) and frees almost none of them, so every collection the collector runs
meanwhile (about sixty on a one-Case Sweep, ~13 ms) rescans survivors and finds nothing. The
console script pauses it (:func:`pause`); once the plug-in set is loaded, or at the latest when
the first Trial is about to run, :func:`resume` freezes what start-up made (``gc.freeze``: the
collector never scans it again, and it is never garbage) and turns collection back on, so the
Trials and whatever a command does next run with the collector as usual. A program that calls
the core as a library never pauses it, and :func:`resume` then does nothing.
"""

from __future__ import annotations

import gc

_state = {"paused": False}


def pause() -> None:
    """Stop cyclic collection until :func:`resume` (if it is on now)."""
    if gc.isenabled():
        gc.disable()
        _state["paused"] = True


def resume() -> None:
    """Freeze what was made while paused and collect as usual again (once; a no-op unless
    :func:`pause` stopped it)."""
    if _state["paused"]:
        _state["paused"] = False
        gc.freeze()
        gc.enable()
