"""The client's connections: httpx's own transport, over real sockets."""

from __future__ import annotations

import asyncio
import socket
import ssl
import threading
from collections.abc import Iterator

import httpx
import pytest
from conftest import CREDENTIALS

from mediashortcodes.client.async_client import AsyncClient
from mediashortcodes.client.base import Lanes, tls_context


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

    async def main() -> list[bytes]:
        async with AsyncClient(url, CREDENTIALS) as client:
            bodies = []
            for _ in range(3):
                bodies.append(await client.download(url + "dn/x", max_bytes=10))
                await asyncio.sleep(0.2)  # the server has closed the idle connection by now
            return bodies

    assert asyncio.run(main()) == [b"ok"] * 3
    assert len(connections) == 3  # each closed connection noticed, a new one opened


def test_one_tls_context_that_verifies_certificates_serves_every_pool() -> None:
    assert tls_context() is tls_context()
    assert tls_context().verify_mode == ssl.CERT_REQUIRED
    assert tls_context().check_hostname


def test_requests_at_the_same_time_take_lanes_of_their_own_up_to_the_limit() -> None:
    async def main() -> None:
        lanes = Lanes(httpx.AsyncClient, 2, timeout=0.05)
        async with lanes.take() as first, lanes.take() as second:
            assert first is not second
            with pytest.raises(httpx.PoolTimeout):  # as httpx's own pool when full
                async with lanes.take():
                    pass
        async with lanes.take() as again:
            assert again in (first, second)  # given back, with its connections
        await lanes.aclose()

    asyncio.run(main())
