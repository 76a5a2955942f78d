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
import os
import threading
from collections.abc import Coroutine, Sequence
from contextlib import AsyncExitStack, suppress
from typing import Any, TypeVar

from eval_host_pydantic_ai.quiet import loop_exception

T = TypeVar("T")
CLOSE_SECONDS = 10.0


class RunTimeout(Exception):  # noqa: N818 - what a Trial reports
    """A Trial's run outlived its time bound; it was cancelled."""


class HostLoop:
    """An event loop on a thread of its own, and the servers it keeps entered."""

    def __init__(self, name: str = "pydantic-ai-host") -> None:
        self._name = name
        self._start()
        self._stop: asyncio.Event | None = None
        self._keeper: concurrent.futures.Future[None] | None = None
        self._servers: list[Any] = []
        self._released: list[Any] = []

    def _start(self) -> None:
        self._pid = os.getpid()
        self._closing = False
        self.loop = asyncio.new_event_loop()
        self.loop.set_exception_handler(loop_exception)  # counted, never a stderr traceback
        self._thread = threading.Thread(target=self._serve, name=self._name, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        """Run the loop until :meth:`close`: a ``SystemExit`` or ``BaseException`` the team's
        code raised out of a task (asyncio re-raises both out of the loop; the task's caller has
        it already) does not end the thread every later Trial needs."""
        while True:
            try:
                self.loop.run_forever()
                return
            except BaseException:
                if self._closing:
                    return

    def release_servers(self) -> None:
        """Exit the kept servers here, before children are forked: each child enters them
        again on its own loop at its first run (a server entered on this process's loop is of
        no use to a child). This process keeps its loop."""
        if not self._servers:
            return
        servers = self._servers
        self._exit_servers()
        self._released = servers

    def run(self, work: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run ``work`` on the loop and wait for it; cancelled past ``timeout`` seconds.

        In a child forked after the loop started (``--executor fork``) the loop's thread is
        not there: the child starts a loop of its own first, and enters there the servers the
        parent released (:meth:`release_servers`)."""
        if os.getpid() != self._pid:
            self._start()
            self._keeper, self._stop, self._servers = None, None, []
            self.keep_open(self._released)
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
        self._closing = True
        self._exit_servers()
        self._finish(self.loop.shutdown_asyncgens())
        self._finish(self.loop.shutdown_default_executor())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(CLOSE_SECONDS)
        self.loop.close()

    def _exit_servers(self) -> None:
        if self._keeper is not None and self._stop is not None:
            self.loop.call_soon_threadsafe(self._stop.set)
            with suppress(Exception):  # a server that fails to close is still let go of
                self._keeper.result(CLOSE_SECONDS)
        for server in self._servers:  # fastmcp keeps a stdio server alive between uses
            transport = getattr(getattr(server, "client", None), "transport", None)
            closing = getattr(transport, "close", None)
            if callable(closing):
                self._finish(closing())
        self._keeper, self._stop, self._servers = None, None, []

    def _finish(self, work: Coroutine[Any, Any, Any]) -> None:
        with suppress(Exception):
            asyncio.run_coroutine_threadsafe(work, self.loop).result(CLOSE_SECONDS)
