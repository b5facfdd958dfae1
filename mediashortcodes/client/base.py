"""The client's parts besides sending: a request as data, reading its answer, the errors
(redacted: httpx's texts carry URLs), statistics, TLS, connection lanes and retries."""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import random
import socket
import ssl
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, fields
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import httpx

from ..config import ENV_BASE_URL, ENV_CLIENT_ID, ENV_CLIENT_SECRET, ENV_REFRESH_TOKEN, Config
from ..errors import (
    AuthenticationError,
    ConfigError,
    InvalidResponseError,
    NotFoundError,
    RateLimitedError,
    ServerError,
    ServiceError,
    ServiceUnreachableError,
)
from ..records import Token
from .redact import redact, redact_url, redact_urls_in

log = logging.getLogger("mediashortcodes.api")

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
    # Masked before it is cut: a cut secret is no longer the secret the mask looks for (an
    # echoed token request once showed 41 of a refresh token's 65 characters).
    detail = redact(redact_urls_in(" ".join(response.text.split())), secrets)[:200]
    return ServiceError(
        f"the service answered HTTP {status} to {call.what}"
        + (f": {detail}" if detail else "")
        + "; check the request's values, and tell the service operator if they look right",
        status=status,
    )


# An API answer is JSON metadata: past this many bytes (decoded: a small gzip can unpack to
# gigabytes) it is refused rather than held in memory.
MAX_ANSWER_BYTES = 64 * 1024 * 1024
# A wait long enough that a build would seem stuck: it is announced (once per this long).
LONG_WAIT = 10.0


@dataclass
class RequestStats:
    """HTTP requests sent, per endpoint; every attempt counts, retries included."""

    token: int = 0
    folders: int = 0
    files: int = 0
    search: int = 0
    download_info: int = 0
    formats: int = 0
    usage: int = 0
    download: int = 0

    @property
    def total(self) -> int:
        return sum(getattr(self, f.name) for f in fields(self))

    def add(self, endpoint: str) -> None:
        setattr(self, endpoint, getattr(self, endpoint) + 1)


def tls_context() -> ssl.SSLContext:
    """httpx's default TLS context (certifi's store, or the bundle that ``SSL_CERT_FILE`` or
    ``SSL_CERT_DIR`` names), made once per bundle: loading a store takes about 20 ms."""
    return _tls_context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@functools.cache
def _tls_context(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    return httpx.create_ssl_context()  # reads the same two variables


class Lanes:
    """Up to ``size`` httpx clients serving one request at a time each, made as needed;
    faster than one shared pool (docs/api.md, *Connections*)."""

    def __init__(self, make: Callable[[], httpx.AsyncClient], size: int, timeout: float) -> None:
        self._make = make
        self._timeout = timeout
        self._free = [make()]  # made now: httpx checks the proxy settings here
        self._lanes = list(self._free)
        self._room = asyncio.Semaphore(size)

    @asynccontextmanager
    async def take(self) -> AsyncIterator[httpx.AsyncClient]:
        try:  # a timer only when every lane is taken: one costs a request 13 us
            async with asyncio.timeout(self._timeout if self._room.locked() else None):
                await self._room.acquire()
        except TimeoutError:
            raise httpx.PoolTimeout("no connection free in time") from None
        try:
            if not self._free:
                self._lanes.append(self._make())
                self._free.append(self._lanes[-1])
            lane = self._free.pop()  # the last given back: its connection is the freshest
            try:
                yield lane
            finally:
                self._free.append(lane)
        finally:
            self._room.release()

    async def aclose(self) -> None:
        lanes, self._lanes, self._free = self._lanes, [], []
        for lane in lanes:
            await lane.aclose()


# getaddrinfo's "no such name" answers: final, unlike EAI_AGAIN (a resolver that is down).
_NO_SUCH_HOST = {socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)}


def _causes(exc: BaseException) -> Iterator[BaseException]:
    seen: BaseException | None = exc
    while seen is not None:
        yield seen
        seen = seen.__cause__ or seen.__context__


def unknown_host(exc: BaseException) -> bool:
    """Whether the host name does not exist (a typo, a placeholder URL): nothing to wait for."""
    return any(isinstance(e, socket.gaierror) and e.errno in _NO_SUCH_HOST for e in _causes(exc))


def untrusted_certificate(exc: BaseException) -> bool:
    """Whether the server's certificate failed verification: the same on every try."""
    return any(isinstance(e, ssl.SSLCertVerificationError) for e in _causes(exc)) or (
        "CERTIFICATE_VERIFY_FAILED" in str(exc)
    )


# Not Implemented, HTTP Version Not Supported, Variant Also Negotiates, Loop Detected, Not
# Extended, Network Authentication Required (a proxy's login page): the same answer again.
PERMANENT_5XX = frozenset({501, 505, 506, 508, 510, 511})


def is_retryable_status(status: int) -> bool:
    return status == 429 or (500 <= status <= 599 and status not in PERMANENT_5XX)


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date) at the
    epoch time ``now``; ``None`` when unreadable."""
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
    return max(0.0, when.timestamp() - now)


@dataclass(frozen=True)
class RetryPolicy:
    """When to try again: 429, the transient 5xx, connection errors and timeouts, with
    jittered exponential backoff or after ``Retry-After``, bounded by a number of retries
    and a time budget no wait outlasts. ``jitter`` is injectable (deterministic tests)."""

    max_retries: int = 5
    total_seconds: float = 60.0
    base_delay: float = 0.5
    max_delay: float = 30.0
    jitter: Callable[[float, float], float] = field(default=random.uniform, repr=False)

    def next_wait(self, retry: int, elapsed: float, retry_after: float | None) -> float | None:
        """Seconds to wait before retry number ``retry`` (1 for the first): ``retry_after``
        if the service sent one, capped at what remains of the budget; ``None`` to stop."""
        remaining = self.total_seconds - elapsed
        if retry > self.max_retries or remaining <= 0:
            return None
        ceiling = min(self.max_delay, self.base_delay * 2 ** (retry - 1))
        wait = retry_after if retry_after is not None else self.jitter(ceiling / 2, ceiling)
        return min(wait, remaining)


class CutOff(Exception):
    """A download body ended before its declared length."""


@dataclass
class Attempts:
    """One request's attempts: whether to retry, how long to wait, the error when done."""

    policy: RetryPolicy
    clock: Callable[[], float]
    what: str
    scrub: Callable[[str], str]
    announce: Callable[[int, float], None]
    retries: int = field(default=0, init=False)
    started: float = field(init=False)

    def __post_init__(self) -> None:
        self.started = self.clock()

    def after_status(self, response: httpx.Response) -> float | None:
        """The wait before retrying this answer, or ``None`` when it is final."""
        status = response.status_code
        if not is_retryable_status(status):
            return None
        retry_after = parse_retry_after(response.headers.get("retry-after"), time.time())
        wait = self._next(retry_after, f"{self.what} answered HTTP {status}")
        if wait is None:
            raise self._exhausted_status(status)
        if wait >= LONG_WAIT:
            self.announce(status, wait)
        return wait

    def after_unreadable(self, call: Call, response: httpx.Response) -> float | None:
        """The wait before asking again a GET answered with no JSON (a proxy's error page),
        else ``None``."""
        if call.method != "GET" or not response.is_success:
            return None
        try:
            read_json(call, response)
        except InvalidResponseError as exc:
            wait = self._next(None, f"{self.what}: {exc}")
            if wait is None:
                raise
            return wait
        return None

    def after_error(self, exc: Exception) -> float:
        # Asking DNS again in a second gives the same answer; a certificate too. Raised
        # while handling httpx's exception, whose text holds the URL: hidden.
        final = unknown_host(exc) or untrusted_certificate(exc)
        wait = None if final else self._next(None, f"{self.what} failed ({self._describe(exc)})")
        if wait is None:
            raise self._exhausted_error(exc) from None
        return wait

    def _next(self, retry_after: float | None, event: str) -> float | None:
        """The wait before the next retry, logged with ``event``; ``None`` to stop."""
        self.retries += 1
        wait = self.policy.next_wait(self.retries, self.clock() - self.started, retry_after)
        if wait is not None:
            log.info("%s; retry %d in %.2f s", event, self.retries, wait)
        return wait

    def _summary(self) -> str:
        return f"{self.retries} attempts in {self.clock() - self.started:.1f} s"

    def _describe(self, exc: Exception) -> str:
        text = str(exc)
        return self.scrub(f"{type(exc).__name__}: {text}" if text else type(exc).__name__)

    def _exhausted_status(self, status: int) -> ServiceError:
        if status == 429:
            return RateLimitedError(
                f"the service kept answering 429 Too Many Requests to {self.what} "
                f"({self._summary()}); wait a few minutes and run again, or raise "
                "[service] max_retries or retry_total_seconds",
                status=status,
            )
        return ServerError(
            f"the service kept failing with HTTP {status} on {self.what} ({self._summary()}); "
            "try again later, and tell the service operator if it persists",
            status=status,
        )

    def _exhausted_error(self, exc: Exception) -> ServiceError:
        if isinstance(exc, CutOff):
            return InvalidResponseError(
                f"{self.what} was cut off before its declared length ({self._summary()}); "
                "run again, and tell the service operator if it persists"
            )
        if untrusted_certificate(exc):
            return ServiceUnreachableError(
                f"could not reach the service for {self.what}: its TLS certificate is not "
                f"trusted ({self._describe(exc)}); behind a proxy or network that inspects "
                "TLS, set SSL_CERT_FILE to a CA bundle (PEM) that holds its certificate "
                "authority (mediashortcodes docs configuration, Proxies and certificates)"
            )
        if unknown_host(exc):
            return ServiceUnreachableError(
                f"could not reach the service for {self.what}: its host name is unknown "
                f"({self._describe(exc)}); check [service] base_url (or {ENV_BASE_URL}), or "
                "set [service] sandbox = true to try the local sandbox"
            )
        if isinstance(exc, httpx.TimeoutException):
            return ServiceUnreachableError(
                f"{self.what} timed out ({self._summary()}); check the network, or raise "
                "[service] timeout in mediashortcodes.toml"
            )
        if isinstance(exc, (httpx.ReadError, httpx.RemoteProtocolError, httpx.WriteError)):
            # Connected, then the connection broke: the address is right, and the service
            # may even have acted on the request; pointing at base_url would mislead.
            return ServiceUnreachableError(
                f"the connection to the service broke during {self.what}: "
                f"{self._describe(exc)} ({self._summary()}); run again, and tell the service "
                "operator if it persists"
            )
        return ServiceUnreachableError(
            f"could not reach the service for {self.what}: {self._describe(exc)} "
            f"({self._summary()}); check [service] base_url (or {ENV_BASE_URL}) and the network"
        )


def check_base_url(base_url: str) -> str:
    base = (base_url or "").strip().rstrip("/")
    try:
        parts = urlsplit(base)
        usable = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:
        usable = False
    if not usable:
        raise ConfigError(
            f"the service base_url must be an absolute http(s) URL, got {redact_url(base)!r}; "
            f"set [service] base_url in mediashortcodes.toml or {ENV_BASE_URL}"
        )
    return base


def too_large(host: str, max_bytes: int) -> InvalidResponseError:
    return InvalidResponseError(
        f"the download from {host} is larger than the limit of {max_bytes} bytes; "
        "raise [images] max_bytes in mediashortcodes.toml if the file is expected"
    )


def download_status_error(response: httpx.Response, host: str) -> ServiceError:
    status = response.status_code
    if status in (401, 403, 404, 410):
        return NotFoundError(
            f"the download link on {host} was refused with HTTP {status}; download links "
            "expire after a few minutes: run again to fetch a fresh one",
            status=status,
        )
    return ServiceError(
        f"the download from {host} answered HTTP {status}; try again later, and tell the "
        "service operator if it persists",
        status=status,
    )


def client_settings(config: Config) -> dict[str, Any]:
    service = config.service
    if not service.base_url:
        raise ConfigError(
            f"no service base_url: set [service] base_url in {config.source} or {ENV_BASE_URL} "
            "(with [service] sandbox = true, open the service with "
            "mediashortcodes.client.service.open_service first)"
        )
    return {
        "base_url": service.base_url,
        "timeout": service.timeout,
        "max_retries": service.max_retries,
        "retry_total_seconds": service.retry_total_seconds,
        "download_url": service.download_url,
        "allowed_download_hosts": service.allowed_download_hosts,
        "allow_http_downloads": service.allow_http_downloads,
        "download_timeout": service.download_timeout,
    }
