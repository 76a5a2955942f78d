"""Why a Trial errored, in one line a person can act on: the team's ``sys.exit`` or other
``BaseException``, where an exception was raised, a vendor failure's whole message.
"""

from __future__ import annotations

import traceback
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from eval_core._plugins.host import ModelSession


def vendor_detail(error: str | None, session: ModelSession) -> str | None:
    """A vendor failure's whole message in place of its bare reason code.

    A Host's loop keeps only the reason (``model_request_rejected``) when it fails a Turn on a
    vendor failure; the binding's session keeps the message the transport built (``failure``:
    the URL, the status, a redacted body snippet), which is what a person needs to act on.
    """
    failure = getattr(session, "failure", None)
    if error is None or not isinstance(failure, str) or not failure.startswith(f"{error}: "):
        return error
    return failure


def ended_harness(exc: BaseException) -> str:
    """One line for a ``SystemExit`` or another ``BaseException`` raised inside a Trial (by the
    team's code, a Tool or a hook): it ends that Trial, never the Sweep or its exit code."""
    if isinstance(exc, SystemExit):
        return (
            f"the system under test called sys.exit({exc.code!r}): it ends this Trial, "
            f"not the Sweep{origin(exc)}"
        )
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text} (a BaseException, not an Exception){origin(exc)}"


def origin(exc: BaseException) -> str:
    """Where a harness or Host exception came from: the innermost frame, one line."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    last = frames[-1]
    return f" (at {last.filename.rsplit('/', 1)[-1]}:{last.lineno})"
