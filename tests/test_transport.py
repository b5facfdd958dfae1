"""The client's async transport: httpx's own, its pooled sockets looked up once each."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from typing import Any

import httpcore
import httpx
import pytest

from mediashortcodes.transport import (
    SocketCachingBackend,
    SocketCachingStream,
    async_transport,
    is_socket_readable,
)


def test_a_socket_is_readable_once_the_peer_sends_or_closes() -> None:
    ours, peer = socket.socketpair()
    with ours, peer:
        assert not is_socket_readable(ours)
        peer.sendall(b"x")
        assert is_socket_readable(ours)
        ours.recv(1)
        assert not is_socket_readable(ours)
        peer.close()
        assert is_socket_readable(ours)  # the next read returns b"": the peer closed it


class CountingStream(httpcore.AsyncNetworkStream):
    def __init__(self, sock: socket.socket | None) -> None:
        self.sock = sock
        self.asked: list[str] = []

    def get_extra_info(self, info: str) -> Any:
        self.asked.append(info)
        if info == "socket":
            return self.sock
        if info == "is_readable":
            return "inner answer"
        return f"inner {info}"


def test_the_stream_asks_its_inner_stream_for_the_socket_only_once() -> None:
    ours, peer = socket.socketpair()
    with ours, peer:
        inner = CountingStream(ours)
        stream = SocketCachingStream(inner)
        answers = [stream.get_extra_info("is_readable") for _ in range(50)]
        assert answers == [False] * 50
        peer.sendall(b"x")
        assert stream.get_extra_info("is_readable") is True
        assert inner.asked == ["socket"]
        assert stream.get_extra_info("server_addr") == "inner server_addr"


def test_a_stream_without_a_socket_keeps_asking_its_inner_stream() -> None:
    inner = CountingStream(None)
    stream = SocketCachingStream(inner)
    assert stream.get_extra_info("is_readable") == "inner answer"
    assert stream.get_extra_info("is_readable") == "inner answer"


def test_the_transport_wraps_the_pool_of_the_httpx_it_runs_on() -> None:
    # If an httpx or httpcore upgrade moves the pool's backend, the transport still works,
    # only slower; this test says so, so the hot spot can be cooled again.
    transport = async_transport(httpx.Limits(max_connections=4))
    assert isinstance(transport._pool._network_backend, SocketCachingBackend)


@pytest.fixture
def closing_server() -> Iterator[tuple[str, list[int]]]:
    """An HTTP server on 127.0.0.1 that keeps each connection alive, answers one request on
    it, then closes it 50 ms later (as a server whose keep-alive timeout ran out)."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    connections: list[int] = []
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn:
            request = b""
            while b"\r\n\r\n" not in request:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                request += chunk
            conn.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok"
            )
            stop.wait(0.05)

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            connections.append(conn.fileno())
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/", connections
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()


def test_a_connection_the_server_closed_is_not_reused(
    closing_server: tuple[str, list[int]],
) -> None:
    url, connections = closing_server

    async def main() -> list[int]:
        transport = async_transport(httpx.Limits(max_connections=4))
        async with httpx.AsyncClient(transport=transport) as client:
            statuses = []
            for _ in range(3):
                statuses.append((await client.get(url)).status_code)
                await asyncio.sleep(0.2)  # the server has closed the idle connection by now
            return statuses

    assert asyncio.run(main()) == [200, 200, 200]
    assert len(connections) == 3  # each closed connection noticed, a new one opened
