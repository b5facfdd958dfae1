"""The async HTTP transport of the service client: httpx's own, with two hot spots cooled.

Profiled on a cold build of the benchmarks (1,751 requests, 16 at a time), httpcore's
connection pool cost more CPU than the requests themselves:

- Two requests that enter the pool close together are both handed the same idle HTTP/1.1
  connection; the loser raises ``ConnectionNotAvailable`` inside the pool and tries again,
  and each try re-scans every connection (over 11,000 such retries in one build). Here each
  request has a *lane* to itself, an httpx transport no other request uses meanwhile, so
  nothing is handed out twice and each pool has one or two connections to scan. A lane keeps
  its connections alive for the next request that takes it.
- Each time a request enters or leaves a pool, httpcore asks every idle connection whether
  its socket has become readable (a server that closed it). Under asyncio it asks anyio,
  which builds a dictionary of typed attributes on every call just to hand back the socket.
  Here the socket is looked up once per connection.

httpx offers no parameter for httpcore's network backend, so the backend is wrapped on the
pool httpx made; if a later httpx or httpcore moves it, the lane is used as it comes (slower,
never wrong).

httpx reads the environment's proxies only for a client made without a transport, so
:func:`lane_client_options` reads them the same way and mounts lanes that go through each
proxy: the async client honours ``HTTPS_PROXY``, ``HTTP_PROXY``, ``ALL_PROXY`` and
``NO_PROXY`` (and, on Windows and macOS, the system's proxy settings) exactly as the sync
client does. A custom CA bundle (``SSL_CERT_FILE``, ``SSL_CERT_DIR``) is read by
:func:`tls_context`, which both clients use.
"""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import os
import select
import socket
import ssl
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

import httpcore
import httpx

__all__ = [
    "LaneTransport",
    "async_transport",
    "environment_proxies",
    "is_socket_readable",
    "lane_client_options",
    "lane_transport",
    "tls_context",
]


def lane_client_options(limits: httpx.Limits) -> dict[str, Any]:
    """``transport`` and ``mounts`` for an ``httpx.AsyncClient``: lanes, behind the proxies
    the environment names (``NO_PROXY``'s hosts map to ``None``: the lanes without a proxy).

    Without httpx's reading of the environment (a later httpx may move it) no option is
    given: httpx's own transports then honour the proxies, slower but never around them.
    """
    proxies = environment_proxies()
    if proxies is None:
        return {}
    for proxy in proxies.values():
        if proxy is not None:
            check_proxy(proxy)  # now, as httpx does, rather than in the first request
    mounts: dict[str, httpx.AsyncBaseTransport | None] = {
        pattern: None if proxy is None else lane_transport(limits, proxy)
        for pattern, proxy in proxies.items()
    }
    return {"transport": lane_transport(limits), "mounts": mounts}


def environment_proxies() -> dict[str, str | None] | None:
    """URL pattern -> proxy URL (``None``: no proxy), as httpx reads them for a client made
    without a transport (``urllib.request.getproxies``, then ``NO_PROXY`` as curl reads it);
    ``None`` when this httpx has no such function."""
    try:
        from httpx._utils import get_environment_proxies
    except ImportError:  # pragma: no cover - a later httpx
        return None
    proxies: dict[str, str | None] = get_environment_proxies()
    return proxies


def check_proxy(url: str) -> None:
    """Raise what httpx raises making a transport for the proxy ``url``: ValueError for a
    scheme it cannot use, ImportError for a SOCKS proxy without httpx's SOCKS support."""
    proxy = httpx.Proxy(url)
    if proxy.url.scheme.startswith("socks") and importlib.util.find_spec("socksio") is None:
        raise ImportError("a SOCKS proxy needs the socksio package: pip install 'httpx[socks]'")


def lane_transport(limits: httpx.Limits, proxy: str | None = None) -> LaneTransport:
    """The client's transport: up to ``limits.max_connections`` requests at a time, each in a
    lane of its own (made when first needed, with the given limits, the TLS context and the
    ``proxy``, if any)."""
    return LaneTransport(
        lambda: async_transport(limits, tls_context(), proxy), lanes=limits.max_connections
    )


def tls_context() -> ssl.SSLContext:
    """httpx's default TLS context (certifi's store, or the bundle that ``SSL_CERT_FILE`` or
    ``SSL_CERT_DIR`` names), made once per bundle: loading a store takes about 20 ms, and a
    client has two pools (contexts are safe to share)."""
    return _tls_context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@functools.cache
def _tls_context(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    return httpx.create_ssl_context()  # reads the same two variables


def async_transport(
    limits: httpx.Limits, context: ssl.SSLContext | None = None, proxy: str | None = None
) -> httpx.AsyncHTTPTransport:
    """``httpx.AsyncHTTPTransport(limits=limits)``, its pool's sockets looked up once each."""
    transport = httpx.AsyncHTTPTransport(limits=limits, verify=context or True, proxy=proxy)
    pool = getattr(transport, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if isinstance(backend, httpcore.AsyncNetworkBackend):
        pool._network_backend = SocketCachingBackend(backend)  # type: ignore[union-attr]
    return transport


class LaneTransport(httpx.AsyncBaseTransport):
    """Sends each request through a transport (a lane) that no other request is using.

    A lane is taken when a request starts and given back when its response is closed (httpx
    closes it once read; a streamed response, when its ``async with`` ends). Lanes are made
    as needed, up to ``lanes``; past that a request waits for one to be given back.
    """

    def __init__(
        self, make_lane: Callable[[], httpx.AsyncBaseTransport], *, lanes: int | None
    ) -> None:
        self._make_lane = make_lane
        self._limit = max(1, lanes if lanes is not None else 100)  # None: httpx's "no limit"
        self._lanes: list[httpx.AsyncBaseTransport] = []
        self._free: list[httpx.AsyncBaseTransport] = []
        self._waiting: deque[asyncio.Future[httpx.AsyncBaseTransport]] = deque()

    @property
    def lanes(self) -> int:
        """How many lanes were made so far."""
        return len(self._lanes)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        lane = await self._take(request)
        try:
            response = await lane.handle_async_request(request)
        except BaseException:
            self._give_back(lane)
            raise
        response.stream = _GivenBackOnClose(response.stream, lambda: self._give_back(lane))
        return response

    async def aclose(self) -> None:
        lanes, self._lanes, self._free = self._lanes, [], []
        for lane in lanes:
            await lane.aclose()

    async def _take(self, request: httpx.Request) -> httpx.AsyncBaseTransport:
        if self._free:
            return self._free.pop()  # the last given back: its connections are the freshest
        if len(self._lanes) < self._limit:
            lane = self._make_lane()
            self._lanes.append(lane)
            return lane
        waiter: asyncio.Future[httpx.AsyncBaseTransport] = (
            asyncio.get_running_loop().create_future()
        )
        self._waiting.append(waiter)
        # As long as httpx's own pool would wait for a connection, then the same error.
        timeout = request.extensions.get("timeout", {}).get("pool")
        expiry = None
        if timeout is not None:
            expiry = asyncio.get_running_loop().call_later(
                timeout, _expire, waiter, httpx.PoolTimeout("no lane free in time", request=request)
            )
        try:
            return await waiter
        except asyncio.CancelledError:
            # Handed a lane, then cancelled: the lane goes to the next request.
            if waiter.done() and not waiter.cancelled() and waiter.exception() is None:
                self._give_back(waiter.result())
            raise
        finally:
            if expiry is not None:
                expiry.cancel()

    def _give_back(self, lane: httpx.AsyncBaseTransport) -> None:
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(lane)
                return
        self._free.append(lane)


def _expire(waiter: asyncio.Future[httpx.AsyncBaseTransport], error: Exception) -> None:
    if not waiter.done():  # not handed a lane meanwhile
        waiter.set_exception(error)


class _GivenBackOnClose(httpx.AsyncByteStream):
    """A response body that gives its lane back when it is closed (once)."""

    def __init__(self, stream: httpx.AsyncByteStream | Any, give_back: Callable[[], None]) -> None:
        self._stream = stream
        self._give_back: Callable[[], None] | None = give_back

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._stream:
            yield chunk

    async def aclose(self) -> None:
        try:
            await self._stream.aclose()
        finally:
            give_back, self._give_back = self._give_back, None
            if give_back is not None:
                give_back()


class SocketCachingBackend(httpcore.AsyncNetworkBackend):
    """Connects through ``inner``; the streams it returns remember their socket."""

    def __init__(self, inner: httpcore.AsyncNetworkBackend) -> None:
        self.inner = inner

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        stream = await self.inner.connect_tcp(host, port, timeout, local_address, socket_options)
        return SocketCachingStream(stream)

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        stream = await self.inner.connect_unix_socket(path, timeout, socket_options)
        return SocketCachingStream(stream)

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


class SocketCachingStream(httpcore.AsyncNetworkStream):
    """``inner`` as it is, except that "is_readable" polls a socket looked up once."""

    def __init__(self, inner: httpcore.AsyncNetworkStream) -> None:
        self.inner = inner
        self._socket: socket.socket | None = None
        self._socket_known = False

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return await self.inner.read(max_bytes, timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self.inner.write(buffer, timeout)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        stream = await self.inner.start_tls(ssl_context, server_hostname, timeout)
        return SocketCachingStream(stream)

    def get_extra_info(self, info: str) -> Any:
        if info != "is_readable":
            return self.inner.get_extra_info(info)
        if not self._socket_known:
            self._socket = self.inner.get_extra_info("socket")
            self._socket_known = True
        if self._socket is None:  # a stream without a socket: ask it every time, as before
            return self.inner.get_extra_info(info)
        return is_socket_readable(self._socket)


def is_socket_readable(sock: socket.socket) -> bool:
    """Whether reading ``sock`` would not block: data, or the peer closed it (or it is closed)."""
    fd = sock.fileno()
    if fd == -1:
        return True
    if hasattr(select, "poll"):  # select() cannot take descriptors above 1023
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(0))
    readable, _, _ = select.select([fd], [], [], 0)
    return bool(readable)
