"""Temporary download links: an HMAC-signed token naming the file, the variant and expiry.

A link is ``/dn/<token>/<format name>``; a custom crop's parameters travel in the query
and are covered by the signature, so a link cannot be edited into another variant.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass


class InvalidLink(ValueError):
    """The token is malformed or its signature does not match."""


@dataclass(frozen=True)
class LinkClaim:
    file_id: int
    format_id: int
    expires: int  # unix seconds


class LinkSigner:
    def __init__(self, key: bytes) -> None:
        self._key = key

    def sign(self, claim: LinkClaim, extra: str = "") -> str:
        payload = f"{claim.file_id}.{claim.format_id}.{claim.expires}"
        return f"{_b64(payload.encode())}.{_b64(self._mac(payload, extra))}"

    def verify(self, token: str, extra: str = "") -> LinkClaim:
        """The claim of a genuine token (expiry is the caller's to check)."""
        encoded, _, signature = token.partition(".")
        try:
            payload = _unb64(encoded).decode("ascii")
            file_id, format_id, expires = (int(part) for part in payload.split("."))
            valid = hmac.compare_digest(_unb64(signature), self._mac(payload, extra))
        except (ValueError, UnicodeDecodeError):
            raise InvalidLink("malformed download link") from None
        if not valid:
            raise InvalidLink("the download link's signature does not match")
        return LinkClaim(file_id, format_id, expires)

    def _mac(self, payload: str, extra: str) -> bytes:
        return hmac.new(self._key, f"{payload}\n{extra}".encode(), hashlib.sha256).digest()[:16]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    if not text:
        raise ValueError("empty")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
