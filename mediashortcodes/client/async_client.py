"""The client of the service, asynchronous; :class:`~.sync_client.Client` wraps it.
Only the exceptions of :mod:`mediashortcodes.errors` leave here, their texts redacted."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

import httpx

from .. import __version__
from ..config import Config, Credentials
from ..errors import ConfigError, InvalidResponseError, ServiceError, ServiceUnreachableError
from ..records import FILE_FIELDS, Crop, DownloadInfo, File, Folder, Format, Token, Usage
from .base import (
    LONG_WAIT,
    MAX_ANSWER_BYTES,
    Attempts,
    Call,
    CutOff,
    Lanes,
    RequestStats,
    RetryPolicy,
    check_base_url,
    client_settings,
    download_status_error,
    log,
    parse_records,
    parse_token,
    read_json,
    status_error,
    tls_context,
    too_large,
)
from .download_policy import DownloadPolicy, host_of
from .redact import install_log_redaction, redact, redact_url, redact_urls_in

__all__ = ["AsyncClient", "client_from_config"]

USER_AGENT = f"mediashortcodes/{__version__} (python-httpx/{httpx.__version__})"
MAX_REDIRECTS = 5
# Requests at a time per pool (httpx's own default limit), each in a lane of its own.
LANES = 100

T = TypeVar("T")


class AsyncClient(contextlib.AbstractAsyncContextManager["AsyncClient"]):
    """The asynchronous client; one connection pool for the API, one for downloads."""

    def __init__(
        self,
        base_url: str,
        credentials: Credentials,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        download_transport: httpx.AsyncBaseTransport | None = None,
        timeout: float = 30.0,
        max_retries: int = 5,
        retry_total_seconds: float = 60.0,
        download_url: str = "",
        allowed_download_hosts: Iterable[str] = (),
        allow_http_downloads: bool = False,
        token_margin: float = 60.0,
        download_timeout: float = 120.0,
        sleep: Callable[[float], Awaitable[Any]] | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.base_url = check_base_url(base_url)
        self.stats = RequestStats()
        self._credentials = credentials
        self._download_timeout = download_timeout  # a whole download, every attempt included
        self._sleep = sleep or asyncio.sleep
        self._clock = clock or time.monotonic
        self._retry = RetryPolicy(max_retries=max_retries, total_seconds=retry_total_seconds)
        self._policy = DownloadPolicy(
            base_url=self.base_url,
            download_url=download_url,
            allowed_hosts=tuple(allowed_download_hosts),
            allow_http=allow_http_downloads,
        )
        self._tokens = TokenManager(self._fetch_token, self._clock, token_margin)
        self._tokens_seen: set[str] = set()
        self._announced = float("-inf")
        install_log_redaction()
        # httpx's own transports (with the environment's proxies) unless one is given, in
        # lanes of one request at a time each (base.Lanes says why).
        options: dict[str, Any] = {
            "transport": transport,
            "timeout": httpx.Timeout(timeout),
            "verify": tls_context(),
            "headers": {"User-Agent": USER_AGENT},
            "follow_redirects": False,
        }
        downloads = {**options, "transport": download_transport or transport}
        try:  # httpx refuses a proxy URL it cannot use here: say which setting
            self._http = Lanes(lambda: httpx.AsyncClient(**options), LANES, timeout)
            self._downloads = Lanes(lambda: httpx.AsyncClient(**downloads), LANES, timeout)
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

    def __repr__(self) -> str:
        return f"<{type(self).__name__} base_url={redact_url(self.base_url)!r}>"

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()
        await self._downloads.aclose()

    def secrets(self) -> tuple[str, ...]:
        """The values never to send or show: the client secret, the refresh token and every
        access token received (not the client id, which names the integration)."""
        return (*self._credentials.secrets(), *self._tokens_seen)

    async def folders(self) -> list[Folder]:
        call = Call("folders", "GET", "/1/foldertree", params=(("fields", "all"),))
        return await self._records(call, "folders", Folder.from_api)

    async def files(self, folder_id: int) -> list[File]:
        call = Call(
            "files",
            "GET",
            f"/1/folder/{_integer(folder_id, 'folder id')}/files",
            params=(("fields", FILE_FIELDS), ("type", "any"), ("processed", "true")),
            subject=f"folder {folder_id}",
        )
        return await self._records(call, "files", File.from_api)

    async def search(self, query: str) -> list[File]:
        if not isinstance(query, str) or not query.strip():
            raise ValueError("search needs a non-empty text query")
        call = Call(
            "search", "GET", "/1/search/file", params=(("query", query), ("fields", FILE_FIELDS))
        )
        return await self._records(call, "files", File.from_api)

    async def download_info(
        self, file_id: int, format: int, crop: Crop | None = None
    ) -> list[DownloadInfo]:
        file_id = _integer(file_id, "file id")
        format = _integer(format, "format")
        if crop is not None and format != -1:
            raise ValueError(f"a crop needs format -1, got format {format}")
        if crop is None and format == -1:
            raise ValueError("format -1 (custom crop) needs a Crop with w, h, x1, x2, y1 and y2")
        if format < -1:
            raise ValueError(f"format must be 0 (original), a format id or -1, got {format}")
        call = Call(
            "download_info",
            "GET",
            f"/1/file/{file_id}/download/{format}",
            params=tuple((k, str(v)) for k, v in crop.to_params().items()) if crop else (),
            subject=f"file {file_id}",
        )
        return await self._records(call, "download information", DownloadInfo.from_api)

    async def formats(self) -> list[Format]:
        return await self._records(Call("formats", "GET", "/1/format"), "formats", Format.from_api)

    async def report_usage(self, usage: Usage, *, removed_as_bool: bool = False) -> None:
        body = usage.to_api(removed_as_bool=removed_as_bool)
        await self._authorized(Call("usage", "POST", "/1/files/multiple/usages", body=body))

    async def download(self, url: str, *, max_bytes: int) -> bytes:
        """Fetch a download link without the access token, checking host, size and length."""
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes <= 0:
            raise ValueError(f"max_bytes must be a positive integer, got {max_bytes!r}")
        self._policy.check(url)
        host = host_of(url)
        attempts = self._attempts(f"the download from {host}")
        ends = self._clock() + self._download_timeout
        hops = 0
        while True:
            self._in_time(ends, host)
            self.stats.add("download")
            try:
                async with self._downloads.take() as lane, lane.stream("GET", url) as response:
                    if response.is_redirect:
                        hops += 1
                        if hops > MAX_REDIRECTS:
                            raise InvalidResponseError(
                                f"the download from {response.url.host} redirected more than "
                                f"{MAX_REDIRECTS} times"
                            )
                        url = str(response.url.join(response.headers["location"]))
                        self._policy.check(url)
                        continue
                    wait = attempts.after_status(response)
                    if wait is None:
                        if not response.is_success:
                            raise download_status_error(response, host)
                        return await self._read(response, host, max_bytes, ends)
            except (CutOff, httpx.TransportError) as exc:
                wait = attempts.after_error(exc)
            except (httpx.HTTPError, httpx.InvalidURL) as exc:
                raise self._unexpected(f"the download from {host}", exc) from None
            await self._sleep(wait)

    async def _records(self, call: Call, what: str, make: Callable[[Any], T]) -> list[T]:
        return parse_records(read_json(call, await self._authorized(call)), what, make)

    async def _authorized(self, call: Call) -> httpx.Response:
        token = await self._tokens.get()
        response = await self._send(call, token)
        if response.status_code == 401:
            log.info("%s answered 401; fetching a fresh access token", call.what)
            token = await self._tokens.after_rejection(token)
            response = await self._send(call, token)
        if not response.is_success:
            raise status_error(call, response, self.secrets())
        return response

    async def _fetch_token(self) -> Token:
        credentials = self._credentials  # in the params, which Call's repr never shows
        call = Call(
            "token",
            "GET",
            "/1/oauth2/token",
            params=(
                ("grant_type", "refresh_token"),
                ("client_id", credentials.client_id),
                ("client_secret", credentials.client_secret),
                ("refresh_token", credentials.refresh_token),
            ),
        )
        response = await self._send(call, None)
        if not response.is_success:
            raise status_error(call, response, self.secrets())
        token = parse_token(read_json(call, response))
        self._tokens_seen.add(token.access_token)
        log.debug("fetched an access token valid for %d s", token.expires_in)
        return token

    async def _send(self, call: Call, token: str | None) -> httpx.Response:
        attempts = self._attempts(call.what)
        while True:
            self.stats.add(call.endpoint)
            try:
                response = await self._receive(call, token)
            except httpx.TransportError as exc:
                wait = attempts.after_error(exc)
            except (httpx.HTTPError, httpx.InvalidURL) as exc:
                raise self._unexpected(call.what, exc) from None
            else:
                wait = attempts.after_status(response)
                if wait is None:
                    wait = attempts.after_unreadable(call, response)
                if wait is None:
                    log.debug("%s -> HTTP %d", call.what, response.status_code)
                    return response
            await self._sleep(wait)

    async def _receive(self, call: Call, token: str | None) -> httpx.Response:
        """Send ``call`` and read its answer, at most MAX_ANSWER_BYTES of it (decoded)."""
        async with self._http.take() as lane:
            request = lane.build_request(
                call.method,
                self.base_url + call.path,
                params=dict(call.params) if call.params else None,
                json=call.body,
                headers={"Authorization": f"Bearer {token}"} if token else None,
            )
            response = await lane.send(request, stream=True)
            try:
                refused = InvalidResponseError(
                    f"{call.what} answered with more than {MAX_ANSWER_BYTES // (1024 * 1024)} "
                    "MiB of JSON (decoded); it was not read: tell the service operator"
                )
                body = await read_capped(response, MAX_ANSWER_BYTES, refused)
            finally:
                await response.aclose()
        # The body as read, decoded: a whole answer again.
        headers = [(k, v) for k, v in response.headers.multi_items() if k != "content-encoding"]
        return httpx.Response(response.status_code, headers=headers, content=body, request=request)

    async def _read(
        self, response: httpx.Response, host: str, max_bytes: int, ends: float
    ) -> bytes:
        length = response.headers.get("content-length", "")
        declared = int(length) if length.isdigit() else None
        if declared is not None and declared > max_bytes:
            raise too_large(host, max_bytes)
        try:
            body = await read_capped(
                response,
                max_bytes,
                too_large(host, max_bytes),
                lambda: self._in_time(ends, host),  # a byte a second never times out alone
            )
        except httpx.TransportError as exc:
            raise CutOff(str(exc)) from None
        # Content-Length counts the bytes on the wire (compressed, if encoded); a body httpx
        # already held in memory reports none, and then the body is the count.
        received = response.num_bytes_downloaded or len(body)
        if declared is not None and received != declared:
            raise CutOff(f"got {received} of {declared} bytes")
        return body

    def _in_time(self, ends: float, host: str) -> None:
        if self._clock() > ends:
            # An outage, as a read timeout is: a build stops with exit 3 (the previous output
            # kept), and a live renderer leaves the service alone for its cool-down.
            raise ServiceUnreachableError(
                f"the download from {host} did not finish within {self._download_timeout:g} s; "
                "the link may be throttled: run again, or raise [service] download_timeout in "
                "mediashortcodes.toml"
            )

    def _attempts(self, what: str) -> Attempts:
        return Attempts(self._retry, self._clock, what, self._scrub, self._announce_wait)

    def _announce_wait(self, status: int, wait: float) -> None:
        """Say why nothing moves during a long wait; many requests waiting make one line."""
        now = self._clock()
        if now - self._announced >= LONG_WAIT:
            self._announced = now
            log.warning("the service answered HTTP %d; waiting %.0f s to try again", status, wait)

    def _scrub(self, text: str) -> str:
        return redact(redact_urls_in(text), self.secrets())

    def _unexpected(self, what: str, exc: Exception) -> ServiceError:
        return ServiceError(f"{what} failed: {self._scrub(f'{type(exc).__name__}: {exc}')}")


class TokenManager:
    """The access token (in memory only): fetched on first use, reused until shortly before
    it expires; one fetch at a time, its result (or its failure: each asking again in turn
    would multiply the wait on an unreachable service) shared by the requests that waited."""

    def __init__(
        self, fetch: Callable[[], Awaitable[Token]], clock: Callable[[], float], margin: float
    ) -> None:
        self._fetch = fetch
        self._clock = clock
        self._margin = margin
        self._token: str | None = None
        self._renew_at = 0.0
        self._fetches = 0
        self._failure: Exception | None = None
        self._lock = asyncio.Lock()

    def _current(self) -> str | None:
        if self._token is not None and self._clock() < self._renew_at:
            return self._token
        return None

    async def get(self) -> str:
        return self._current() or await self._renew(None)

    async def after_rejection(self, rejected: str) -> str:
        """A fresh token after the service answered 401 to ``rejected``."""
        if self._token == rejected:
            self._token = None
        return await self._renew(rejected)

    async def _renew(self, rejected: str | None) -> str:
        seen = self._fetches
        async with self._lock:
            token = self._current()
            if token is not None and token != rejected:
                return token
            if self._fetches != seen and self._failure is not None:
                raise self._failure  # the fetch this request waited for failed
            started = self._clock()
            try:
                fetched = await self._fetch()
            except Exception as exc:
                self._fetches, self._failure = self._fetches + 1, exc
                raise
            self._fetches, self._failure = self._fetches + 1, None
            # A short-lived token is renewed halfway through its life rather than never used.
            margin = min(self._margin, fetched.expires_in / 2)
            self._token = fetched.access_token
            self._renew_at = started + fetched.expires_in - margin
            return self._token


async def read_capped(
    response: httpx.Response,
    limit: int,
    refused: Exception,
    each: Callable[[], None] = lambda: None,
) -> bytes:
    """The body of a streamed ``response``; ``refused`` is raised once past ``limit`` bytes."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > limit:
            raise refused
        chunks.append(chunk)
        each()
    return b"".join(chunks)


def _integer(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an integer, got {value!r}")
    return value


def client_from_config(
    config: Config, credentials: Credentials, *, transport: httpx.AsyncBaseTransport | None = None
) -> AsyncClient:
    """An :class:`AsyncClient` for the configured service; it makes no request until used."""
    return AsyncClient(credentials=credentials, transport=transport, **client_settings(config))
