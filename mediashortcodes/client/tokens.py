"""The access token (in memory only): fetched on first use, reused until shortly before
it expires; one fetch at a time, its result (or its failure: each asking again in turn
would multiply the wait on an unreachable service) shared by the requests that waited.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from ..records import Token


class TokenManager:
    """Single-flight token access for :class:`~.async_client.AsyncClient`."""

    def __init__(
        self, fetch: Callable[[], Awaitable[Token]], clock: Callable[[], float], margin: float
    ) -> None:
        self._fetch = fetch
        self._clock = clock
        self._margin = margin
        self._token: str | None = None
        self._renew_at = 0.0
        self._fetches = 0
        self._failure: Exception | None = None
        self._lock = asyncio.Lock()

    def __repr__(self) -> str:
        return f"<TokenManager {'empty' if self._token is None else 'holding a token'}>"

    def _current(self) -> str | None:
        if self._token is not None and self._clock() < self._renew_at:
            return self._token
        return None

    async def get(self) -> str:
        return self._current() or await self._renew(None)

    async def after_rejection(self, rejected: str) -> str:
        """A fresh token after the service answered 401 to ``rejected``."""
        if self._token == rejected:
            self._token = None
        return await self._renew(rejected)

    async def _renew(self, rejected: str | None) -> str:
        seen = self._fetches
        async with self._lock:
            token = self._current()
            if token is not None and token != rejected:
                return token
            if self._fetches != seen and self._failure is not None:
                raise self._failure  # the fetch this request waited for failed
            started = self._clock()
            try:
                fetched = await self._fetch()
            except Exception as exc:
                self._fetches, self._failure = self._fetches + 1, exc
                raise
            self._fetches, self._failure = self._fetches + 1, None
            # A short-lived token is renewed halfway through its life rather than never used.
            margin = min(self._margin, fetched.expires_in / 2)
            self._token = fetched.access_token
            self._renew_at = started + fetched.expires_in - margin
            return self._token
