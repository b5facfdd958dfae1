"""The access token: fetched on first use, reused until shortly before it expires.

One token serves every request of a client. When many requests need a new token at the
same moment only one refresh is in flight; the others wait for it and reuse its result.
After a 401 the rejected token is dropped, and a request that was rejected with an old
token picks up a newer one somebody else already fetched instead of refreshing again.
A fetch that fails (after the client's retries) fails the requests that waited for it
too: each of them asking again in turn would multiply the wait of an unreachable service
by the number of requests in flight. The token lives in memory only.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable

from ..records import Token


class TokenSlot:
    """The current token and when to stop using it (no I/O, no locking)."""

    def __init__(self, clock: Callable[[], float], margin: float) -> None:
        self._clock = clock
        self._margin = margin
        self._token: str | None = None
        self._renew_at = 0.0

    def __repr__(self) -> str:
        state = "empty" if self._token is None else "holding a token"
        return f"<TokenSlot {state}>"

    def current(self) -> str | None:
        """The token while it is still good to use, else ``None``."""
        if self._token is not None and self._clock() < self._renew_at:
            return self._token
        return None

    def store(self, token: Token, fetched_at: float) -> str:
        # A short-lived token is renewed halfway through its life rather than never used.
        margin = min(self._margin, token.expires_in / 2)
        self._token = token.access_token
        self._renew_at = fetched_at + token.expires_in - margin
        return token.access_token

    def drop(self, rejected: str) -> None:
        if self._token == rejected:
            self._token = None

    def newer_than(self, rejected: str | None) -> str | None:
        token = self.current()
        return token if token is not None and token != rejected else None


class FetchOutcome:
    """How the last fetch ended, so requests that waited for it share a failure."""

    def __init__(self) -> None:
        self.fetches = 0
        self.failure: Exception | None = None

    def shared_failure(self, seen: int) -> Exception | None:
        """The failure of a fetch that ended after ``seen`` fetches, while the caller waited."""
        return self.failure if self.fetches != seen else None

    def ended(self, failure: Exception | None) -> None:
        self.fetches += 1
        self.failure = failure


class AsyncTokenManager:
    """Single-flight token access for :class:`mediashortcodes.api.AsyncClient`."""

    def __init__(
        self, fetch: Callable[[], Awaitable[Token]], clock: Callable[[], float], margin: float
    ) -> None:
        self._fetch = fetch
        self._clock = clock
        self._slot = TokenSlot(clock, margin)
        self._outcome = FetchOutcome()
        self._lock = asyncio.Lock()

    def __repr__(self) -> str:
        return f"<AsyncTokenManager {self._slot!r}>"

    async def get(self) -> str:
        token = self._slot.current()
        if token is not None:
            return token
        return await self._renew(None)

    async def after_rejection(self, rejected: str) -> str:
        """A fresh token after the service answered 401 to ``rejected``."""
        self._slot.drop(rejected)
        return await self._renew(rejected)

    async def _renew(self, rejected: str | None) -> str:
        seen = self._outcome.fetches
        async with self._lock:
            token = self._slot.newer_than(rejected)
            if token is not None:
                return token
            failure = self._outcome.shared_failure(seen)
            if failure is not None:
                raise failure
            started = self._clock()
            try:
                fetched = await self._fetch()
            except Exception as exc:
                self._outcome.ended(exc)
                raise
            self._outcome.ended(None)
            return self._slot.store(fetched, started)


class TokenManager:
    """Single-flight token access for :class:`mediashortcodes.api.Client` (thread-safe)."""

    def __init__(
        self, fetch: Callable[[], Token], clock: Callable[[], float], margin: float
    ) -> None:
        self._fetch = fetch
        self._clock = clock
        self._slot = TokenSlot(clock, margin)
        self._outcome = FetchOutcome()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<TokenManager {self._slot!r}>"

    def get(self) -> str:
        token = self._slot.current()
        if token is not None:
            return token
        return self._renew(None)

    def after_rejection(self, rejected: str) -> str:
        self._slot.drop(rejected)
        return self._renew(rejected)

    def _renew(self, rejected: str | None) -> str:
        seen = self._outcome.fetches
        with self._lock:
            token = self._slot.newer_than(rejected)
            if token is not None:
                return token
            failure = self._outcome.shared_failure(seen)
            if failure is not None:
                raise failure
            started = self._clock()
            try:
                fetched = self._fetch()
            except Exception as exc:
                self._outcome.ended(exc)
                raise
            self._outcome.ended(None)
            return self._slot.store(fetched, started)
