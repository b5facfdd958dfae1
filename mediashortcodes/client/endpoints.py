"""A request to the service as data, how to read its answer, which error a failed answer
is (pure; :class:`~.async_client.AsyncClient`'s methods name the seven endpoints)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import httpx

from ..config import ENV_BASE_URL, ENV_CLIENT_ID, ENV_CLIENT_SECRET, ENV_REFRESH_TOKEN
from ..errors import AuthenticationError, InvalidResponseError, NotFoundError, ServiceError
from ..records import Token
from .redact import redact, redact_urls_in

CREDENTIAL_VARIABLES = f"{ENV_CLIENT_ID}, {ENV_CLIENT_SECRET} and {ENV_REFRESH_TOKEN}"


@dataclass(frozen=True)
class Call:
    """One request to the API. ``endpoint`` names its counter in ``RequestStats``."""

    endpoint: str
    method: str
    path: str
    params: tuple[tuple[str, str], ...] = field(default=(), repr=False)  # may hold secrets
    body: Any = None
    subject: str = ""  # "file 12" / "folder 3": what a 404 is about

    @property
    def what(self) -> str:
        return f"{self.method} {self.path}"


def read_json(call: Call, response: httpx.Response) -> Any:
    ctype = response.headers.get("content-type", "")
    if "json" not in ctype.lower():
        raise InvalidResponseError(
            f"{call.what} answered with content type {ctype or 'none'!r} instead of JSON; "
            "check that [service] base_url points at the API",
            status=response.status_code,
        )
    try:
        return response.json()
    except (ValueError, RecursionError):  # RecursionError: nested deeper than Python can read
        raise InvalidResponseError(
            f"{call.what} answered with invalid JSON; try again, and tell the service "
            "operator if it persists",
            status=response.status_code,
        ) from None


def parse_records(data: Any, what: str, make: Callable[[Any], Any]) -> list[Any]:
    """The records of a JSON array, each made by ``make``."""
    if not isinstance(data, list):
        raise InvalidResponseError(f"expected a JSON array of {what}, got {type(data).__name__}")
    try:
        return [make(item) for item in data]
    except (TypeError, ValueError, AttributeError, OverflowError) as exc:  # 1e400 is a float
        raise InvalidResponseError(f"unreadable {what} in the answer: {exc}") from None


def parse_token(data: Any) -> Token:
    try:
        token = Token.from_api(data)
    except (TypeError, ValueError, AttributeError, OverflowError):
        raise InvalidResponseError("the token response has no usable expires_in") from None
    if token.expires_in <= 0:
        raise InvalidResponseError("the token response has a non-positive expires_in")
    return token


def _snippet(response: httpx.Response, secrets: Iterable[str]) -> str:
    try:
        text = response.text
    except (httpx.ResponseNotRead, UnicodeDecodeError):
        return ""
    # Masked before it is cut: a cut secret is no longer the secret the mask looks for (an
    # echoed token request once showed 41 of a refresh token's 65 characters).
    text = redact(redact_urls_in(" ".join(text.split())), secrets)
    return text[:200]


def status_error(call: Call, response: httpx.Response, secrets: Iterable[str]) -> ServiceError:
    """The error for a final, unsuccessful answer to ``call``."""
    status = response.status_code
    if call.endpoint == "token" and status in (400, 401, 403):
        return AuthenticationError(
            f"the service refused the credentials (HTTP {status}); check "
            f"{CREDENTIAL_VARIABLES}, or ask the service operator for new ones",
            status=status,
        )
    if status == 401:
        return AuthenticationError(
            f"the service refused the access token for {call.what} even after fetching a "
            f"fresh one (HTTP 401); check that {CREDENTIAL_VARIABLES} belong to this service "
            f"and that {ENV_BASE_URL} or [service] base_url points at it",
            status=status,
        )
    if status in (403, 404) and call.subject:
        return NotFoundError(
            f"{call.subject} does not exist or is not visible to this integration; "
            "check the id or ask the service operator for access",
            status=status,
        )
    if status == 403:
        return AuthenticationError(
            f"the service refused {call.what} (HTTP 403): this integration lacks access; "
            "ask the service operator",
            status=status,
        )
    if status == 404:
        return NotFoundError(
            f"{call.what} was not found (HTTP 404); check that [service] base_url or "
            f"{ENV_BASE_URL} is the API root (paths are <base_url>/1/...)",
            status=status,
        )
    detail = _snippet(response, secrets)
    return ServiceError(
        f"the service answered HTTP {status} to {call.what}"
        + (f": {detail}" if detail else "")
        + "; check the request's values, and tell the service operator if they look right",
        status=status,
    )
