"""The async HTTP transport of the service client: httpx's own, with one hot spot cooled.

Each time a request enters or leaves a connection pool, httpcore asks every idle connection
whether its socket has become readable (a server that closed it). Under asyncio it asks anyio,
which builds a dictionary of typed attributes on every call just to hand back the socket:
about 0.5 s of CPU (12 %) in a 1,751-request cold build of the benchmarks, profiled. A
connection's socket never changes, so here it is looked up once per connection.

httpx offers no parameter for httpcore's network backend, so the backend is wrapped on the
pool httpx made; if a later httpx or httpcore moves it, the transport is used as it comes
(slower, never wrong).
"""

from __future__ import annotations

import select
import socket
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx

__all__ = ["async_transport", "is_socket_readable"]


def async_transport(limits: httpx.Limits) -> httpx.AsyncHTTPTransport:
    """``httpx.AsyncHTTPTransport(limits=limits)``, its pool's sockets looked up once each."""
    transport = httpx.AsyncHTTPTransport(limits=limits)
    pool = getattr(transport, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if isinstance(backend, httpcore.AsyncNetworkBackend):
        pool._network_backend = SocketCachingBackend(backend)  # type: ignore[union-attr]
    return transport


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
