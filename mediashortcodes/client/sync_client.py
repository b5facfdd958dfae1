"""The blocking client (the command line, the picker, live Django/Wagtail requests):
:class:`~.async_client.AsyncClient` on an event loop in a thread of its own, so it works
from any thread, also one whose event loop already runs (Wagtail under ASGI)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, TypeVar

import httpx

from ..config import Config, Credentials
from .async_client import AsyncClient
from .base import client_settings
from .redact import redact_url

__all__ = ["Client", "sync_client_from_config"]

T = TypeVar("T")
P = ParamSpec("P")


def _blocking(
    method: Callable[Concatenate[AsyncClient, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[Client, P], T]:
    """``method`` of :class:`AsyncClient`, as a blocking method of :class:`Client`."""

    @functools.wraps(method)
    def blocking(self: Client, *args: P.args, **kwargs: P.kwargs) -> T:
        return self._run(method(self._async, *args, **kwargs))

    return blocking


class Client(contextlib.AbstractContextManager["Client"]):
    """:class:`AsyncClient`'s methods, blocking; thread-safe. Takes AsyncClient's options;
    ``sleep`` here is a plain function (by default the wait does not hold up other calls)."""

    def __init__(
        self,
        base_url: str,
        credentials: Credentials,
        *,
        sleep: Callable[[float], Any] | None = None,
        **options: Any,
    ) -> None:
        self._sleep = sleep
        self._async = AsyncClient(base_url, credentials, sleep=self._wait, **options)
        self.base_url = self._async.base_url
        self.stats = self._async.stats
        self.secrets = self._async.secrets
        self._tokens_seen = self._async._tokens_seen  # the same set (tests add to it)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._starting = threading.Lock()

    def __repr__(self) -> str:
        return f"<Client base_url={redact_url(self.base_url)!r}>"

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        with self._starting:
            loop, thread, self._loop = self._loop, self._thread, None
        if loop is None or thread is None:
            return  # never used: nothing was opened
        try:
            self._run(self._async.aclose(), loop)
            self._run(loop.shutdown_default_executor(), loop)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            loop.close()

    folders = _blocking(AsyncClient.folders)
    files = _blocking(AsyncClient.files)
    search = _blocking(AsyncClient.search)
    download_info = _blocking(AsyncClient.download_info)
    formats = _blocking(AsyncClient.formats)
    report_usage = _blocking(AsyncClient.report_usage)
    download = _blocking(AsyncClient.download)

    def _run(
        self, coroutine: Coroutine[Any, Any, T], loop: asyncio.AbstractEventLoop | None = None
    ) -> T:
        future = asyncio.run_coroutine_threadsafe(coroutine, loop or self._running_loop())
        try:
            return future.result()
        except BaseException:
            future.cancel()  # Ctrl-C while waiting: the request stops too
            raise

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._starting:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(
                    target=self._loop.run_forever, name="mediashortcodes-client", daemon=True
                )
                self._thread.start()
            return self._loop

    async def _wait(self, seconds: float) -> None:
        if self._sleep is None:
            await asyncio.sleep(seconds)
        else:
            self._sleep(seconds)


def sync_client_from_config(
    config: Config, credentials: Credentials, *, transport: httpx.AsyncBaseTransport | None = None
) -> Client:
    """A :class:`Client` for the configured service; it makes no request until used."""
    return Client(credentials=credentials, transport=transport, **client_settings(config))
