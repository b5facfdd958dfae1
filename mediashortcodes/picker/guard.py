"""The last check before a byte leaves the local server: no credential, no access token.

The server never puts a secret into a response on purpose; this guard makes sure an
accident (an error message, a proxied body, a future endpoint) cannot either. The secrets
are looked up per response because the access token changes while the picker runs.

What counts as a secret: the client secret, the refresh token and every access token the
client has received. Not the client id: it is an identifier, not a secret (it names the
integration, and may be a plain word such as the project's name, which is in the session
cookie's name). And only values of at least :data:`MIN_SECRET_LENGTH` characters: a shorter
one may be a word of the page's own text ("wrong" is in "Something went wrong"), and a
match on it would withhold harmless responses and make the page unusable.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING
from urllib.parse import quote, quote_plus

if TYPE_CHECKING:
    from ..client.sync_client import Client

log = logging.getLogger("mediashortcodes.picker")

SecretSource = Callable[[], Iterable[str]]

# 16 characters: every generated credential is longer (the sandbox's demo values have 18, its
# access tokens 36, OAuth secrets and tokens are usually 32 or more random characters), while
# words and short phrases of ordinary text are shorter; a 16-character run of such text that
# equals a secret by chance is not to be expected.
MIN_SECRET_LENGTH = 16


def guarded(value: str) -> bool:
    """Whether the guard can look for ``value``: long enough to be told from ordinary text."""
    return len(value) >= MIN_SECRET_LENGTH


def _forms(secret: str) -> set[bytes]:
    """The secret as written, and as it would look inside a URL."""
    return {s.encode() for s in (secret, quote(secret, safe=""), quote_plus(secret))}


def client_secrets(client: Client) -> SecretSource:
    """The secrets of ``client`` for the guard, looked up per response (tokens change)."""
    return client.secrets


def warn_about_short_secrets(secrets: Iterable[str]) -> None:
    """Say once, at start, which credentials are too short for the guard to look for."""
    short = sum(1 for s in secrets if s and not guarded(s))
    if short:
        log.warning(
            "%d credential(s) shorter than %d characters: the picker's response guard cannot "
            "tell such a value from ordinary text and does not look for it",
            short,
            MIN_SECRET_LENGTH,
        )


class SecretGuard:
    def __init__(self, source: SecretSource) -> None:
        self._source = source

    def __repr__(self) -> str:
        return "<SecretGuard>"

    def leaks(self, *chunks: bytes) -> bool:
        """True when any chunk contains any secret long enough to look for, in any form."""
        needles = set().union(*(_forms(s) for s in self._source() if s and guarded(s)))
        return any(needle in chunk for chunk in chunks for needle in needles)
