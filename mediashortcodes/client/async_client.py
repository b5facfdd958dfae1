"""The asynchronous client of the service, for batch builds: many requests in flight
(see :mod:`.base` for what both clients promise)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from types import TracebackType
from typing import Any

import httpx

from ..config import Config, Credentials
from ..records import Crop, DownloadInfo, File, Folder, Format, Token, Usage
from .base import (
    MAX_ANSWER_BYTES,
    Capped,
    ClientBase,
    CutOff,
    answer_too_large,
    client_settings,
    complete_body,
    declared_length,
    download_status_error,
    keep_body,
    log,
    proxy_settings_checked,
    redirect_target,
    too_large,
)
from .endpoints import (
    Call,
    download_info_call,
    files_call,
    folders_call,
    formats_call,
    parse_download_info,
    parse_files,
    parse_folders,
    parse_formats,
    read_json,
    search_call,
    status_error,
    token_call,
    usage_call,
)
from .tokens import AsyncTokenManager
from .transport import lane_client_options

__all__ = ["AsyncClient", "client_from_config"]


def _transport_options(
    given: httpx.AsyncBaseTransport | None, limits: httpx.Limits
) -> dict[str, Any]:
    return {"transport": given} if given is not None else lane_client_options(limits)


class AsyncClient(ClientBase):
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
        super().__init__(
            base_url,
            credentials,
            timeout=timeout,
            max_retries=max_retries,
            retry_total_seconds=retry_total_seconds,
            download_url=download_url,
            allowed_download_hosts=allowed_download_hosts,
            allow_http_downloads=allow_http_downloads,
            clock=clock,
            download_timeout=download_timeout,
        )
        self._sleep = sleep or asyncio.sleep
        self._tokens = AsyncTokenManager(self._fetch_token, self._clock, token_margin)
        # Two pools (the token never goes to the download host), each in lanes of httpx's
        # transports behind the environment's proxies (transport.py says why); a given
        # transport is used as is.
        with proxy_settings_checked():
            self._http = httpx.AsyncClient(
                **_transport_options(transport, self._limits), **self._pool_options
            )
            self._downloads = httpx.AsyncClient(
                **_transport_options(download_transport or transport, self._limits),
                **self._pool_options,
            )

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()
        await self._downloads.aclose()

    # The seven endpoints ----------------------------------------------------------------

    async def folders(self) -> list[Folder]:
        return parse_folders(await self._json(folders_call()))

    async def files(self, folder_id: int) -> list[File]:
        return parse_files(await self._json(files_call(folder_id)))

    async def search(self, query: str) -> list[File]:
        return parse_files(await self._json(search_call(query)))

    async def download_info(
        self, file_id: int, format: int, crop: Crop | None = None
    ) -> list[DownloadInfo]:
        return parse_download_info(await self._json(download_info_call(file_id, format, crop)))

    async def formats(self) -> list[Format]:
        return parse_formats(await self._json(formats_call()))

    async def report_usage(self, usage: Usage, *, removed_as_bool: bool = False) -> None:
        await self._authorized(usage_call(usage, removed_as_bool=removed_as_bool))

    async def download(self, url: str, *, max_bytes: int) -> bytes:
        """Fetch a download link without the access token, checking host, size and length."""
        host = self._check_download(url, max_bytes)
        attempts = self._attempts(f"the download from {host}")
        in_time = self._download_deadline(host)
        hops = 0
        while True:
            in_time()
            self._count("download")
            try:
                async with self._downloads.stream("GET", url) as response:
                    if response.is_redirect:
                        hops += 1
                        url = redirect_target(response, self._policy, hops)
                        continue
                    wait = attempts.after_status(response)
                    if wait is None:
                        if not response.is_success:
                            raise download_status_error(response, host)
                        return await self._read(response, host, max_bytes, in_time)
            except CutOff as exc:
                wait = attempts.after_error(exc, cut_off=True)
            except httpx.TransportError as exc:
                wait = attempts.after_error(exc)
            except (httpx.HTTPError, httpx.InvalidURL) as exc:
                raise self._unexpected(f"the download from {host}", exc) from None
            await self._sleep(wait)

    # Plumbing ---------------------------------------------------------------------------

    async def _json(self, call: Call) -> Any:
        return read_json(call, await self._authorized(call))

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
        return self._accept_token(await self._send(token_call(self._credentials), None))

    async def _send(self, call: Call, token: str | None) -> httpx.Response:
        attempts = self._attempts(call.what)
        while True:
            self._count(call.endpoint)
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
        response = await self._http.send(self._build(self._http, call, token), stream=True)
        body = Capped(MAX_ANSWER_BYTES, lambda: answer_too_large(call.what))
        try:
            async for chunk in response.aiter_bytes():
                body.add(chunk)
        finally:
            await response.aclose()
        return keep_body(response, body.chunks)

    async def _read(
        self, response: httpx.Response, host: str, max_bytes: int, in_time: Callable[[], None]
    ) -> bytes:
        declared = declared_length(response)
        if declared is not None and declared > max_bytes:
            raise too_large(host, max_bytes)
        body = Capped(max_bytes, lambda: too_large(host, max_bytes))
        try:
            async for chunk in response.aiter_bytes():
                body.add(chunk)
                in_time()  # a link that sends a byte a second never times out by itself
        except httpx.TransportError as exc:
            raise CutOff(str(exc)) from None
        return complete_body(response, declared, body.chunks)


def client_from_config(
    config: Config, credentials: Credentials, *, transport: httpx.AsyncBaseTransport | None = None
) -> AsyncClient:
    """An :class:`AsyncClient` for the configured service; it makes no request until used."""
    settings = client_settings(config)
    return AsyncClient(config.service.base_url, credentials, transport=transport, **settings)
