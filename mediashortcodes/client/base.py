"""What the async and sync clients share: request statistics, the retry loop's bookkeeping,
answer checks, and the client base that holds settings, secrets and redaction.

The clients themselves are :mod:`.async_client` (batch builds, many requests in flight) and
:mod:`.sync_client` (the CLI and live Django/Wagtail requests). Both:

- fetch the access token on the first API call, never before (creating a client does no
  I/O, so a warm build makes no request at all), and reuse it until shortly before it
  expires; a 401 fetches one fresh token and retries once;
- retry 429, the transient 5xx, connection errors and timeouts (see :mod:`.retry`), and
  a GET whose answer is not JSON (a proxy's error page, a mangled body);
- send the token to the API host only: downloads go through a second connection pool that
  never carries it, and only to hosts the download policy allows;
- raise the exceptions of :mod:`mediashortcodes.errors`, never httpx's, whose messages
  carry URLs: every text that leaves here is redacted.
"""

from __future__ import annotations

import logging
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields
from typing import Any
from urllib.parse import urlsplit

import httpx

from .. import __version__
from ..config import ENV_BASE_URL, Config, Credentials
from ..errors import (
    ConfigError,
    InvalidResponseError,
    NotFoundError,
    RateLimitedError,
    ServerError,
    ServiceError,
    ServiceUnreachableError,
)
from ..records import Token
from .download_policy import DownloadPolicy
from .endpoints import (
    TOKEN_CALL_WITHOUT_CREDENTIALS,
    Call,
    parse_token,
    read_json,
    token_error,
)
from .redact import install_log_redaction, redact, redact_url, redact_urls_in
from .retry import RetryPolicy, is_retryable_status, parse_retry_after

log = logging.getLogger("mediashortcodes.api")

USER_AGENT = f"mediashortcodes/{__version__} (python-httpx/{httpx.__version__})"
MAX_REDIRECTS = 5


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


# A wait long enough that a build would seem stuck: it is announced (once per this long).
LONG_WAIT = 10.0


# getaddrinfo's "no such name" answers: final, unlike EAI_AGAIN (a resolver that is down).
_NO_SUCH_HOST = {socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)}


def unknown_host(exc: BaseException) -> bool:
    """Whether the host name does not exist (a typo, a placeholder URL), under httpx's
    wrappers: nothing to wait for."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, socket.gaierror):
            return seen.errno in _NO_SUCH_HOST
        seen = seen.__cause__ or seen.__context__
    return False


def untrusted_certificate(exc: BaseException) -> bool:
    """Whether the server's certificate failed verification: the same on every try."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ssl.SSLCertVerificationError):
            return True
        seen = seen.__cause__ or seen.__context__
    return "CERTIFICATE_VERIFY_FAILED" in str(exc)


@contextmanager
def proxy_settings_checked() -> Iterator[None]:
    """httpx refuses a proxy URL it cannot use when the client is made: say which setting."""
    try:
        yield
    except (ValueError, ImportError) as exc:
        socks = "socks" in str(exc).lower()
        raise ConfigError(
            "the proxy settings of the environment (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY) "
            + (
                "name a SOCKS proxy: install httpx's SOCKS support (pip install 'httpx[socks]')"
                if socks
                else "cannot be used (a proxy URL starts with http://, https:// or socks5://); "
                "fix them, or unset them"
            )
        ) from None


class CutOff(Exception):
    """A download body ended before its declared length."""


class Attempts:
    """One request's attempts: whether to retry, how long to wait, the error when done."""

    def __init__(
        self,
        policy: RetryPolicy,
        clock: Callable[[], float],
        what: str,
        scrub: Callable[[str], str],
        announce: Callable[[int, float], None],
    ) -> None:
        self._policy = policy
        self._clock = clock
        self._what = what
        self._scrub = scrub
        self._announce = announce
        self._started = clock()
        self._retries = 0

    def after_status(self, response: httpx.Response) -> float | None:
        """The wait before retrying this answer, or ``None`` when it is final."""
        status = response.status_code
        if not is_retryable_status(status):
            return None
        retry_after = parse_retry_after(response.headers.get("retry-after"), time.time())
        wait = self._next(retry_after)
        if wait is None:
            raise self._exhausted_status(status)
        log.info("%s answered HTTP %d; retry %d in %.2f s", self._what, status, self._retries, wait)
        if wait >= LONG_WAIT:
            self._announce(status, wait)
        return wait

    def after_unreadable(self, call: Call, response: httpx.Response) -> float | None:
        """The wait before asking again when a GET's answer is not JSON, else ``None``.

        A proxy's error page or a body mangled on the way passes on the next try; asking
        again is safe because a GET changes nothing.
        """
        if call.method != "GET" or not response.is_success:
            return None
        try:
            read_json(call, response)
        except InvalidResponseError as exc:
            wait = self._next(None)
            if wait is None:
                raise
            log.info("%s: %s; retry %d in %.2f s", self._what, exc, self._retries, wait)
            return wait
        return None

    def after_error(self, exc: Exception, *, cut_off: bool = False) -> float:
        # Asking DNS again in a second gives the same answer; a certificate too.
        if unknown_host(exc) or untrusted_certificate(exc):
            raise self._exhausted_error(exc, cut_off) from None
        wait = self._next(None)
        if wait is None:
            # Called while handling httpx's exception, whose text holds the URL: hide it.
            raise self._exhausted_error(exc, cut_off) from None
        log.info(
            "%s failed (%s); retry %d in %.2f s",
            self._what,
            self._describe(exc),
            self._retries,
            wait,
        )
        return wait

    def _next(self, retry_after: float | None) -> float | None:
        self._retries += 1
        return self._policy.next_wait(self._retries, self._clock() - self._started, retry_after)

    def _summary(self) -> str:
        return f"{self._retries} attempts in {self._clock() - self._started:.1f} s"

    def _describe(self, exc: Exception) -> str:
        text = str(exc)
        return self._scrub(f"{type(exc).__name__}: {text}" if text else type(exc).__name__)

    def _exhausted_status(self, status: int) -> ServiceError:
        if status == 429:
            return RateLimitedError(
                f"the service kept answering 429 Too Many Requests to {self._what} "
                f"({self._summary()}); wait a few minutes and run again, or raise "
                "[service] max_retries or retry_total_seconds",
                status=status,
            )
        return ServerError(
            f"the service kept failing with HTTP {status} on {self._what} ({self._summary()}); "
            "try again later, and tell the service operator if it persists",
            status=status,
        )

    def _exhausted_error(self, exc: Exception, cut_off: bool) -> ServiceError:
        if cut_off:
            return InvalidResponseError(
                f"{self._what} was cut off before its declared length ({self._summary()}); "
                "run again, and tell the service operator if it persists"
            )
        if untrusted_certificate(exc):
            return ServiceUnreachableError(
                f"could not reach the service for {self._what}: its TLS certificate is not "
                f"trusted ({self._describe(exc)}); behind a proxy or network that inspects "
                "TLS, set SSL_CERT_FILE to a CA bundle (PEM) that holds its certificate "
                "authority (docs/configuration.md, Proxies and certificates)"
            )
        if unknown_host(exc):
            return ServiceUnreachableError(
                f"could not reach the service for {self._what}: its host name is unknown "
                f"({self._describe(exc)}); check [service] base_url (or {ENV_BASE_URL}), or "
                "set [service] sandbox = true to try the local sandbox"
            )
        if isinstance(exc, httpx.TimeoutException):
            return ServiceUnreachableError(
                f"{self._what} timed out ({self._summary()}); check the network, or raise "
                "[service] timeout in mediashortcodes.toml"
            )
        if isinstance(exc, (httpx.ReadError, httpx.RemoteProtocolError, httpx.WriteError)):
            # Connected, then the connection broke: the address is right, and the service
            # may even have acted on the request; pointing at base_url would mislead.
            return ServiceUnreachableError(
                f"the connection to the service broke during {self._what}: "
                f"{self._describe(exc)} ({self._summary()}); run again, and tell the service "
                "operator if it persists"
            )
        return ServiceUnreachableError(
            f"could not reach the service for {self._what}: {self._describe(exc)} "
            f"({self._summary()}); check [service] base_url (or {ENV_BASE_URL}) and the network"
        )


def check_base_url(base_url: str) -> str:
    base = (base_url or "").strip().rstrip("/")
    try:
        parts = urlsplit(base)
        host = parts.hostname
    except ValueError:
        host = None
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not host:
        raise ConfigError(
            f"the service base_url must be an absolute http(s) URL, got {redact_url(base)!r}; "
            f"set [service] base_url in mediashortcodes.toml or {ENV_BASE_URL}"
        )
    return base


def host_of(url: str) -> str:
    return urlsplit(url).hostname or "?"


def declared_length(response: httpx.Response) -> int | None:
    value = response.headers.get("content-length", "")
    return int(value) if value.isdigit() else None


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


def redirect_target(response: httpx.Response, policy: DownloadPolicy, hops: int) -> str:
    if hops > MAX_REDIRECTS:
        raise InvalidResponseError(
            f"the download from {response.url.host} redirected more than {MAX_REDIRECTS} times"
        )
    target = str(response.url.join(response.headers["location"]))
    policy.check(target)
    return target


# An API answer is JSON metadata: past this many bytes (decoded: a small gzip can unpack to
# gigabytes) it is refused rather than held in memory.
MAX_ANSWER_BYTES = 64 * 1024 * 1024


def answer_too_large(what: str) -> InvalidResponseError:
    return InvalidResponseError(
        f"{what} answered with more than {MAX_ANSWER_BYTES // (1024 * 1024)} MiB of JSON "
        "(decoded); it was not read: tell the service operator"
    )


class Capped:
    """A body read chunk by chunk, refused (``refuse()`` raised) once past ``limit`` bytes."""

    def __init__(self, limit: int, refuse: Callable[[], Exception]) -> None:
        self.limit = limit
        self.refuse = refuse
        self.chunks: list[bytes] = []
        self.size = 0

    def add(self, chunk: bytes) -> None:
        self.size += len(chunk)
        if self.size > self.limit:
            raise self.refuse()
        self.chunks.append(chunk)


def keep_body(response: httpx.Response, chunks: list[bytes]) -> httpx.Response:
    """A streamed answer, read (capped) by the caller, made readable as a whole again."""
    response._content = b"".join(chunks)  # what httpx's own read() sets
    return response


def too_slow(host: str, seconds: float) -> ServiceUnreachableError:
    # A timeout, as a read timeout is: the host, not the file, is in trouble. An outage, so
    # a build stops with exit 3 (the previous output kept) instead of listing every image,
    # and a live renderer leaves the service alone for its cool-down instead of waiting out
    # the deadline again on every page.
    return ServiceUnreachableError(
        f"the download from {host} did not finish within {seconds:g} s; the link may be "
        "throttled: run again, or raise [service] download_timeout in mediashortcodes.toml"
    )


def complete_body(response: httpx.Response, declared: int | None, chunks: list[bytes]) -> bytes:
    body = b"".join(chunks)
    # Content-Length counts the bytes on the wire (compressed, if encoded); a body that
    # httpx already held in memory reports no wire bytes, and then the body is the count.
    received = response.num_bytes_downloaded or len(body)
    if declared is not None and received != declared:
        raise CutOff(f"got {received} of {declared} bytes")
    return body


class ClientBase:
    """What both clients share: settings, the policies, request building, redaction."""

    def __init__(
        self,
        base_url: str,
        credentials: Credentials,
        *,
        timeout: float,
        max_retries: int,
        retry_total_seconds: float,
        download_url: str,
        allowed_download_hosts: Iterable[str],
        allow_http_downloads: bool,
        clock: Callable[[], float] | None,
        download_timeout: float = 120.0,
    ) -> None:
        self.base_url = check_base_url(base_url)
        self._download_timeout = download_timeout  # a whole download, every attempt included
        self._credentials = credentials
        self._clock = clock or time.monotonic
        self._retry = RetryPolicy(max_retries=max_retries, total_seconds=retry_total_seconds)
        self._policy = DownloadPolicy(
            base_url=self.base_url,
            download_url=download_url,
            allowed_hosts=tuple(allowed_download_hosts),
            allow_http=allow_http_downloads,
        )
        self._timeout = httpx.Timeout(timeout)
        self._limits = httpx.Limits(max_connections=100, max_keepalive_connections=20)
        self._headers = {"User-Agent": USER_AGENT}
        # The same settings for the API pool and the download pool, sync or async.
        self._pool_options: dict[str, Any] = {
            "timeout": self._timeout,
            "limits": self._limits,
            "headers": self._headers,
            "follow_redirects": False,
        }
        self._tokens_seen: set[str] = set()
        self._announced = float("-inf")
        self.stats = RequestStats()
        self._stats_lock = threading.Lock()  # the sync client may be shared by threads
        install_log_redaction()

    def _download_deadline(self, host: str) -> Callable[[], None]:
        """A check to call while a download runs: raises once it has taken too long."""
        ends = self._clock() + self._download_timeout

        def check() -> None:
            if self._clock() > ends:
                raise too_slow(host, self._download_timeout)

        return check

    def __repr__(self) -> str:
        return f"<{type(self).__name__} base_url={redact_url(self.base_url)!r}>"

    def secrets(self) -> tuple[str, ...]:
        """The values that must never be sent or shown: the client secret, the refresh token
        and every access token received (not the client id, which names the integration)."""
        return (*self._credentials.secrets(), *self._tokens_seen)

    def _scrub(self, text: str) -> str:
        return redact(redact_urls_in(text), self.secrets())

    def _count(self, endpoint: str) -> None:
        with self._stats_lock:
            self.stats.add(endpoint)

    def _attempts(self, what: str) -> Attempts:
        return Attempts(self._retry, self._clock, what, self._scrub, self._announce_wait)

    def _announce_wait(self, status: int, wait: float) -> None:
        """Say why nothing moves during a long wait; many requests waiting make one line."""
        now = self._clock()
        if now - self._announced >= LONG_WAIT:
            self._announced = now
            log.warning("the service answered HTTP %d; waiting %.0f s to try again", status, wait)

    def _build(
        self, http: httpx.Client | httpx.AsyncClient, call: Call, token: str | None
    ) -> httpx.Request:
        headers = {"Authorization": f"Bearer {token}"} if token else None
        return http.build_request(
            call.method,
            self.base_url + call.path,
            params=dict(call.params) if call.params else None,
            json=call.body,
            headers=headers,
        )

    def _accept_token(self, response: httpx.Response) -> Token:
        if not response.is_success:
            raise token_error(response, self.secrets())
        token = parse_token(read_json(TOKEN_CALL_WITHOUT_CREDENTIALS, response))
        self._tokens_seen.add(token.access_token)
        log.debug("fetched an access token valid for %d s", token.expires_in)
        return token

    def _check_download(self, url: str, max_bytes: int) -> str:
        """Refuse a link the policy does not allow; return its host for messages."""
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes <= 0:
            raise ValueError(f"max_bytes must be a positive integer, got {max_bytes!r}")
        self._policy.check(url)
        return host_of(url)

    def _unexpected(self, what: str, exc: Exception) -> ServiceError:
        return ServiceError(f"{what} failed: {self._scrub(f'{type(exc).__name__}: {exc}')}")


def client_settings(config: Config) -> dict[str, Any]:
    service = config.service
    if not service.base_url:
        raise ConfigError(
            f"no service base_url: set [service] base_url in {config.source} or {ENV_BASE_URL} "
            "(with [service] sandbox = true, open the service with "
            "mediashortcodes.service.open_service first)"
        )
    return {
        "timeout": service.timeout,
        "max_retries": service.max_retries,
        "retry_total_seconds": service.retry_total_seconds,
        "download_url": service.download_url,
        "allowed_download_hosts": service.allowed_download_hosts,
        "allow_http_downloads": service.allow_http_downloads,
        "download_timeout": service.download_timeout,
    }
