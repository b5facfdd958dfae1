"""Remember a service outage for a while, so live pages stop waiting on a service that is down.

A live renderer resolves each shortcode while a page renders. Once the service has failed
with an outage (unreachable, 5xx or 429 after the client's retries, refused credentials),
asking it again for the next shortcode, or the next page, costs another full retry sequence
and almost surely fails the same way. :class:`OutageBreaker` remembers the failure for a
cool-down; meanwhile callers get :class:`OutageCooldownError` at once and fall back to the
cache's copies, older ones included, or to a placeholder.

After the cool-down one caller (the *probe*) asks again; the others keep the cool-down
until the probe has its verdict: an answer closes the breaker, another outage restarts the
cool-down. The state is shared by Django's request threads and guarded by a lock.
"""

from __future__ import annotations

import inspect
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from ..errors import OUTAGES, ServiceError, ServiceUnreachableError

__all__ = ["DEFAULT_COOLDOWN", "GuardedClient", "OutageBreaker", "OutageCooldownError"]

log = logging.getLogger("mediashortcodes")

DEFAULT_COOLDOWN = 30.0  # seconds


class OutageCooldownError(ServiceUnreachableError):
    """The service failed a moment ago and is not asked again until the cool-down ends.

    A ``ServiceUnreachableError``, so the catalog uses cached metadata past its TTL, as it
    does when the service cannot be reached; ``cause`` is the outage itself.
    """

    def __init__(self, cause: ServiceError) -> None:
        # The cause's text as it is: placeholders and warnings (logged once per text) read
        # the same as for the failure itself; the cool-down is logged when it starts.
        super().__init__(str(cause), status=cause.status)
        self.cause = cause


class OutageBreaker:
    """The last outage and until when the service is left alone (thread-safe).

    ``owner`` identifies one resolution (one render): the probe after a cool-down may make
    all the calls it needs, while the other owners keep waiting for its verdict.
    """

    def __init__(
        self, cooldown: float = DEFAULT_COOLDOWN, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if cooldown < 0:
            raise ValueError(f"the outage cool-down must be 0 or more seconds, got {cooldown}")
        self.cooldown = cooldown
        self._clock = clock
        self._lock = threading.Lock()
        self._cause: ServiceError | None = None
        self._until = 0.0
        self._probe: object | None = None

    def blocked(self, owner: object) -> OutageCooldownError | None:
        """The error to raise instead of asking the service, or ``None`` to go ahead."""
        with self._lock:
            cause = self._cause
            if cause is None or self._probe is owner:
                return None
            if self._probe is None and self._clock() >= self._until:
                self._probe = owner
                return None
        return OutageCooldownError(cause)  # a fresh one: each is raised once

    def failed(self, exc: ServiceError) -> None:
        """The service failed with an outage: leave it alone for the cool-down."""
        cause = exc.cause if isinstance(exc, OutageCooldownError) else exc
        with self._lock:
            starts = self._cause is None or self._probe is not None
            self._cause = cause
            self._until = self._clock() + self.cooldown
            self._probe = None
        if starts:  # once per cool-down, not once per call that was in flight
            log.warning(
                "the service is not asked again for %g s, pages use the cache's copies or "
                "placeholders meanwhile: %s",
                self.cooldown,
                cause,
            )

    def answered(self) -> None:
        """The service answered (a "not found" counts): it is up again."""
        with self._lock:
            self._cause = None
            self._probe = None

    def release(self, owner: object) -> None:
        """``owner`` is done; if it was the probe and never asked, the next caller probes."""
        with self._lock:
            if self._probe is owner:
                self._probe = None


class GuardedClient:
    """An ``AsyncClient`` whose calls pass the breaker first and report their outcome to it."""

    def __init__(self, client: Any, breaker: OutageBreaker, owner: object) -> None:
        self._client = client
        self._breaker = breaker
        self._owner = owner

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._client, name)
        if not inspect.iscoroutinefunction(attribute):
            return attribute
        breaker, owner = self._breaker, self._owner

        async def call(*args: Any, **kwargs: Any) -> Any:
            if (error := breaker.blocked(owner)) is not None:
                raise error
            try:
                result = await attribute(*args, **kwargs)
            except OUTAGES as exc:
                breaker.failed(exc)
                raise
            except ServiceError:
                breaker.answered()
                raise
            breaker.answered()
            return result

        return call
