"""The Host's one event loop: every Trial's pydantic-ai run, and the MCP servers kept open.

pydantic-ai is async; Trials arrive on the core's threads (``--jobs``). One loop on one thread
of the Host's runs them all, so the agents' MCP servers (a child process over stdio, an HTTP
session) are entered once per Sweep, in one task that also exits them (anyio requires it),
rather than once per Trial. :meth:`HostLoop.close` exits the servers, shuts the loop's
default executor down and joins the thread: nothing of the Host outlives ``close()``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine, Sequence
from contextlib import AsyncExitStack, suppress
from typing import Any, TypeVar

T = TypeVar("T")
CLOSE_SECONDS = 10.0


class RunTimeout(Exception):  # noqa: N818 - what a Trial reports
    """A Trial's run outlived its time bound; it was cancelled."""


class HostLoop:
    """An event loop on a thread of its own, and the servers it keeps entered."""

    def __init__(self, name: str = "pydantic-ai-host") -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self._thread.start()
        self._stop: asyncio.Event | None = None
        self._keeper: concurrent.futures.Future[None] | None = None
        self._servers: list[Any] = []

    def run(self, work: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run ``work`` on the loop and wait for it; cancelled past ``timeout`` seconds."""
        future = asyncio.run_coroutine_threadsafe(work, self.loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise RunTimeout(
                f"the run outlived its bound of {timeout:g} s and was cancelled"
            ) from None

    def keep_open(self, servers: Sequence[Any]) -> None:
        """Enter every server (an async context manager) in one task that stays until close."""
        self._servers = list(servers)
        if not servers:
            return
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()

        async def keeper() -> None:
            self._stop = asyncio.Event()
            try:
                async with AsyncExitStack() as stack:
                    for server in servers:
                        await stack.enter_async_context(server)
                    ready.set_result(None)
                    await self._stop.wait()
            except BaseException as exc:
                if not ready.done():
                    ready.set_exception(exc)
                raise

        self._keeper = asyncio.run_coroutine_threadsafe(keeper(), self.loop)
        ready.result(CLOSE_SECONDS * 3)

    def close(self) -> None:
        if self.loop.is_closed():
            return
        if self._keeper is not None and self._stop is not None:
            self.loop.call_soon_threadsafe(self._stop.set)
            with suppress(Exception):  # a server that fails to close is still let go of
                self._keeper.result(CLOSE_SECONDS)
        for server in self._servers:  # fastmcp keeps a stdio server alive between uses
            transport = getattr(getattr(server, "client", None), "transport", None)
            closing = getattr(transport, "close", None)
            if callable(closing):
                self._finish(closing())
        self._finish(self.loop.shutdown_asyncgens())
        self._finish(self.loop.shutdown_default_executor())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(CLOSE_SECONDS)
        self.loop.close()

    def _finish(self, work: Coroutine[Any, Any, Any]) -> None:
        with suppress(Exception):
            asyncio.run_coroutine_threadsafe(work, self.loop).result(CLOSE_SECONDS)
