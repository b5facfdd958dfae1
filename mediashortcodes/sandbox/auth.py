"""Demo credentials and access tokens of the sandbox.

The demo credentials are documented and not secret: anyone can run the sandbox. Wrong
credentials, and missing, unknown, expired or revoked tokens, get 401 as on the service.
"""

from __future__ import annotations

import hmac
import secrets
import threading
from collections import deque
from collections.abc import Callable

from ..config import Credentials

DEMO_CLIENT_ID = "mediashortcodes-demo"
DEMO_CLIENT_SECRET = "demo-client-secret"
DEMO_REFRESH_TOKEN = "demo-refresh-token"
DEMO_CREDENTIALS = Credentials(DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, DEMO_REFRESH_TOKEN)


def credentials_match(client_id: str, client_secret: str, refresh_token: str) -> bool:
    """Compare all three in constant time (a habit worth keeping even in an emulator)."""
    checks = (
        hmac.compare_digest(client_id.encode(), DEMO_CLIENT_ID.encode()),
        hmac.compare_digest(client_secret.encode(), DEMO_CLIENT_SECRET.encode()),
        hmac.compare_digest(refresh_token.encode(), DEMO_REFRESH_TOKEN.encode()),
    )
    return all(checks)


class TokenStore:
    """Issued access tokens and when they expire, by the sandbox's clock."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._expiry: dict[str, float] = {}
        # Tests look for tokens in output that must not hold them; bounded for benchmarks.
        self._issued: deque[str] = deque(maxlen=10_000)
        self._lock = threading.Lock()

    def issue(self, lifetime: float) -> str:
        token = "sbx_" + secrets.token_urlsafe(24)
        with self._lock:
            now = self._clock()
            # forget expired tokens so a long benchmark does not grow the table
            self._expiry = {t: e for t, e in self._expiry.items() if e > now}
            self._expiry[token] = now + lifetime
            self._issued.append(token)
        return token

    def issued(self) -> list[str]:
        with self._lock:
            return list(self._issued)

    def problem(self, authorization: str | None) -> str | None:
        """Why the Authorization header is refused, or None when it carries a live token."""
        if not authorization:
            return "missing Authorization header; send 'Authorization: Bearer <access token>'"
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return "the Authorization header must be 'Bearer <access token>'"
        with self._lock:
            expiry = self._expiry.get(token.strip())
        if expiry is None:
            return "unknown or revoked access token; request a new one"
        if self._clock() >= expiry:
            return "the access token has expired; request a new one"
        return None

    def revoke_all(self) -> None:
        with self._lock:
            self._expiry.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._expiry)
