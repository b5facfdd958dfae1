"""Remember a service outage for a cool-down, so live pages stop waiting on a service that is
down: callers get :class:`OutageCooldownError` at once (and use the cache or a placeholder),
then one *probe* asks again while the others wait; an answer closes the breaker.
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
    """The service failed a moment ago; ``cause`` is that outage (as unreachable, the
    catalog uses cached metadata past its TTL)."""

    def __init__(self, cause: ServiceError) -> None:
        super().__init__(str(cause), status=cause.status)
        self.cause = cause


class OutageBreaker:
    """The last outage and until when the service is left alone (thread-safe). An
    ``owner`` is one resolution (one render): the probe makes all the calls it needs."""

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
