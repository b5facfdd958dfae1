"""The last check before a byte leaves the local server: no credential, no access token.

The server never puts a secret into a response on purpose; this guard makes sure an
accident (an error message, a proxied body, a future endpoint) cannot either. The secrets
are looked up per response because the access token changes while the picker runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from urllib.parse import quote, quote_plus

SecretSource = Callable[[], Iterable[str]]

MIN_SECRET_LENGTH = 4  # shorter "secrets" would match by accident and withhold harmless bodies


def _forms(secret: str) -> set[bytes]:
    """The secret as written, and as it would look inside a URL."""
    return {s.encode() for s in (secret, quote(secret, safe=""), quote_plus(secret))}


class SecretGuard:
    def __init__(self, source: SecretSource) -> None:
        self._source = source

    def __repr__(self) -> str:
        return "<SecretGuard>"

    def leaks(self, *chunks: bytes) -> bool:
        """True when any chunk contains any secret in any of its forms."""
        needles = set().union(
            *(_forms(s) for s in self._source() if s and len(s) >= MIN_SECRET_LENGTH)
        )
        return any(needle in chunk for chunk in chunks for needle in needles)
