"""The pipeline's resolve step: :func:`resolve_site` opens the service lazily, runs the
resolver on an event loop, flushes the shared cache tier (even when resolving failed) and
closes everything."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..client.runner import run_returning
from ..config import Config
from ..language import Shortcode
from .cache import MediaCache
from .resolver import Resolution, Resolver

if TYPE_CHECKING:
    from ..client.async_client import AsyncClient

__all__ = ["LazyConnection", "resolve_site"]


class LazyConnection(contextlib.AbstractAsyncContextManager["LazyConnection"]):
    """``await connection()`` opens the service (and the sandbox, if configured) on first
    use only; a build that the cache can answer never opens it. Closed on leaving it."""

    def __init__(self, config: Config) -> None:
        self._config = config
        self._stack = contextlib.ExitStack()
        self._client: AsyncClient | None = None
        self._lock: asyncio.Lock | None = None

    async def __call__(self) -> AsyncClient:
        from ..client.async_client import client_from_config
        from ..client.service import open_service

        if self._lock is None:  # made on the loop that uses it
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._client is None:
                service_config, credentials = self._stack.enter_context(open_service(self._config))
                self._client = client_from_config(service_config, credentials)
            return self._client

    @property
    def requests(self) -> int:
        """Requests sent so far, token requests included."""
        return self._client.stats.total if self._client is not None else 0

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
        self._stack.close()

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def resolve_site(
    config: Config, cache: MediaCache, shortcodes: Iterable[Shortcode], **options: Any
) -> tuple[Resolution, int, list[str]]:
    """Every place resolved (``options``: :class:`Resolver`'s), the requests sent, and the
    service's warnings (the cache's stay with it). A head start taken on the cache is
    waited for first."""
    cache.join_head_start()
    connection = LazyConnection(config)
    resolver = Resolver(config, cache, connection, **options)

    async def run() -> Resolution:
        finished = False
        try:
            resolution = await resolver.resolve(shortcodes)
            finished = True
            return resolution
        finally:
            try:  # what it fetched goes up, even if resolving failed
                await cache.flush_shared(finished=finished)
            finally:
                await connection.aclose()

    resolution = run_returning(run())
    return resolution, connection.requests, resolver.warn_messages
