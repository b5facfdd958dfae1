"""The synchronous client of the service, for the CLI and live Django/Wagtail requests
(see :mod:`.base` for what both clients promise)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
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
from .tokens import TokenManager
from .transport import tls_context

__all__ = ["Client", "sync_client_from_config"]


class Client(ClientBase):
    """The synchronous client: :class:`AsyncClient`'s methods, blocking; thread-safe."""

    def __init__(
        self,
        base_url: str,
        credentials: Credentials,
        *,
        transport: httpx.BaseTransport | None = None,
        download_transport: httpx.BaseTransport | None = None,
        timeout: float = 30.0,
        max_retries: int = 5,
        retry_total_seconds: float = 60.0,
        download_url: str = "",
        allowed_download_hosts: Iterable[str] = (),
        allow_http_downloads: bool = False,
        token_margin: float = 60.0,
        download_timeout: float = 120.0,
        sleep: Callable[[float], Any] | None = None,
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
        self._sleep = sleep or time.sleep
        self._tokens = TokenManager(self._fetch_token, self._clock, token_margin)
        # httpx's own transports, which honour the environment's proxies; the TLS context
        # (and so the CA bundle) is the async client's.
        with proxy_settings_checked():
            self._http = httpx.Client(
                transport=transport, verify=tls_context(), **self._pool_options
            )
            self._downloads = httpx.Client(
                transport=download_transport or transport,
                verify=tls_context(),
                **self._pool_options,
            )

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()
        self._downloads.close()

    # The seven endpoints ----------------------------------------------------------------

    def folders(self) -> list[Folder]:
        return parse_folders(self._json(folders_call()))

    def files(self, folder_id: int) -> list[File]:
        return parse_files(self._json(files_call(folder_id)))

    def search(self, query: str) -> list[File]:
        return parse_files(self._json(search_call(query)))

    def download_info(
        self, file_id: int, format: int, crop: Crop | None = None
    ) -> list[DownloadInfo]:
        return parse_download_info(self._json(download_info_call(file_id, format, crop)))

    def formats(self) -> list[Format]:
        return parse_formats(self._json(formats_call()))

    def report_usage(self, usage: Usage, *, removed_as_bool: bool = False) -> None:
        self._authorized(usage_call(usage, removed_as_bool=removed_as_bool))

    def download(self, url: str, *, max_bytes: int) -> bytes:
        """Fetch a download link without the access token, checking host, size and length."""
        host = self._check_download(url, max_bytes)
        attempts = self._attempts(f"the download from {host}")
        in_time = self._download_deadline(host)
        hops = 0
        while True:
            in_time()
            self._count("download")
            try:
                with self._downloads.stream("GET", url) as response:
                    if response.is_redirect:
                        hops += 1
                        url = redirect_target(response, self._policy, hops)
                        continue
                    wait = attempts.after_status(response)
                    if wait is None:
                        if not response.is_success:
                            raise download_status_error(response, host)
                        return self._read(response, host, max_bytes, in_time)
            except CutOff as exc:
                wait = attempts.after_error(exc, cut_off=True)
            except httpx.TransportError as exc:
                wait = attempts.after_error(exc)
            except (httpx.HTTPError, httpx.InvalidURL) as exc:
                raise self._unexpected(f"the download from {host}", exc) from None
            self._sleep(wait)

    # Plumbing ---------------------------------------------------------------------------

    def _json(self, call: Call) -> Any:
        return read_json(call, self._authorized(call))

    def _authorized(self, call: Call) -> httpx.Response:
        token = self._tokens.get()
        response = self._send(call, token)
        if response.status_code == 401:
            log.info("%s answered 401; fetching a fresh access token", call.what)
            token = self._tokens.after_rejection(token)
            response = self._send(call, token)
        if not response.is_success:
            raise status_error(call, response, self.secrets())
        return response

    def _fetch_token(self) -> Token:
        return self._accept_token(self._send(token_call(self._credentials), None))

    def _send(self, call: Call, token: str | None) -> httpx.Response:
        attempts = self._attempts(call.what)
        while True:
            self._count(call.endpoint)
            try:
                response = self._receive(call, token)
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
            self._sleep(wait)

    def _receive(self, call: Call, token: str | None) -> httpx.Response:
        """Send ``call`` and read its answer, at most MAX_ANSWER_BYTES of it (decoded)."""
        response = self._http.send(self._build(self._http, call, token), stream=True)
        body = Capped(MAX_ANSWER_BYTES, lambda: answer_too_large(call.what))
        try:
            for chunk in response.iter_bytes():
                body.add(chunk)
        finally:
            response.close()
        return keep_body(response, body.chunks)

    def _read(
        self, response: httpx.Response, host: str, max_bytes: int, in_time: Callable[[], None]
    ) -> bytes:
        declared = declared_length(response)
        if declared is not None and declared > max_bytes:
            raise too_large(host, max_bytes)
        body = Capped(max_bytes, lambda: too_large(host, max_bytes))
        try:
            for chunk in response.iter_bytes():
                body.add(chunk)
                in_time()  # a link that sends a byte a second never times out by itself
        except httpx.TransportError as exc:
            raise CutOff(str(exc)) from None
        return complete_body(response, declared, body.chunks)


def sync_client_from_config(
    config: Config, credentials: Credentials, *, transport: httpx.BaseTransport | None = None
) -> Client:
    """A :class:`Client` for the configured service; it makes no request until used."""
    settings = client_settings(config)
    return Client(config.service.base_url, credentials, transport=transport, **settings)
