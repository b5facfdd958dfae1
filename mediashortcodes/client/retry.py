"""When to try a request again and how long to wait first (pure).

429, the transient 5xx, connection errors and timeouts are retried with jittered
exponential backoff, or after ``Retry-After``; other answers are final, the 5xx that name a
permanent state too. Bounded by a number of retries and a time budget no wait outlasts.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

# Not Implemented, HTTP Version Not Supported, Variant Also Negotiates, Loop Detected, Not
# Extended, Network Authentication Required (a proxy's login page): the same answer again.
PERMANENT_5XX = frozenset({501, 505, 506, 508, 510, 511})


def is_retryable_status(status: int) -> bool:
    return status == 429 or (500 <= status <= 599 and status not in PERMANENT_5XX)


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date).

    ``now`` is the wall-clock time (epoch seconds); unreadable values give ``None``.
    """
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - datetime.fromtimestamp(now, UTC).timestamp())


@dataclass(frozen=True)
class RetryPolicy:
    """Bounds and shape of the backoff; ``jitter`` is injectable so tests are deterministic."""

    max_retries: int = 5
    total_seconds: float = 60.0
    base_delay: float = 0.5
    max_delay: float = 30.0
    jitter: Callable[[float, float], float] = field(default=random.uniform, repr=False)

    def backoff(self, retry: int) -> float:
        """The jittered wait before retry number ``retry`` (1 for the first retry)."""
        ceiling = min(self.max_delay, self.base_delay * 2 ** (retry - 1))
        return self.jitter(ceiling / 2, ceiling)

    def next_wait(self, retry: int, elapsed: float, retry_after: float | None) -> float | None:
        """Seconds to wait before retry number ``retry``, or ``None`` when it is time to stop.

        A ``Retry-After`` from the service replaces the computed backoff; either is capped
        at what remains of the total budget.
        """
        remaining = self.total_seconds - elapsed
        if retry > self.max_retries or remaining <= 0:
            return None
        wait = retry_after if retry_after is not None else self.backoff(retry)
        return min(wait, remaining)
