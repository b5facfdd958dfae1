"""The client's async transport: httpx's own, its pooled sockets looked up once each."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpcore
import httpx
import pytest

from mediashortcodes.client.transport import (
    LaneTransport,
    SocketCachingBackend,
    SocketCachingStream,
    async_transport,
    is_socket_readable,
    tls_context,
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


async def body() -> AsyncIterator[bytes]:
    for _ in range(2):
        yield b"x" * 5


class RecordingLanes:
    """Inner transports that answer after a short wait and record overlapping use."""

    def __init__(self) -> None:
        self.made: list[httpx.MockTransport] = []
        self.busy: set[int] = set()
        self.overlaps = 0

    def make(self) -> httpx.AsyncBaseTransport:
        lane = len(self.made)

        async def answer(request: httpx.Request) -> httpx.Response:
            if lane in self.busy:
                self.overlaps += 1
            self.busy.add(lane)
            try:
                await asyncio.sleep(0.01)
                if request.url.path == "/fail":
                    raise httpx.ConnectError("refused", request=request)
            finally:
                self.busy.discard(lane)
            return httpx.Response(200, content=body())  # streamed, as httpx's own transport

        transport = httpx.MockTransport(answer)
        self.made.append(transport)
        return transport


def test_requests_at_once_each_have_a_lane_and_lanes_are_reused() -> None:
    recorded = RecordingLanes()

    async def main() -> list[int]:
        async with httpx.AsyncClient(transport=LaneTransport(recorded.make, lanes=8)) as client:
            first = await asyncio.gather(*(client.get("http://h/") for _ in range(8)))
            second = await asyncio.gather(*(client.get("http://h/") for _ in range(8)))
            return [r.status_code for r in first + second]

    assert asyncio.run(main()) == [200] * 16
    assert len(recorded.made) == 8  # the second burst took the lanes given back
    assert recorded.overlaps == 0


def test_past_the_limit_a_request_waits_for_a_lane() -> None:
    recorded = RecordingLanes()

    async def main() -> list[int]:
        async with httpx.AsyncClient(transport=LaneTransport(recorded.make, lanes=2)) as client:
            answers = await asyncio.gather(*(client.get("http://h/") for _ in range(10)))
            return [r.status_code for r in answers]

    assert asyncio.run(main()) == [200] * 10
    assert len(recorded.made) == 2
    assert recorded.overlaps == 0


def test_a_streamed_response_keeps_its_lane_until_it_is_closed() -> None:
    recorded = RecordingLanes()

    async def main() -> None:
        transport = LaneTransport(recorded.make, lanes=1)
        async with httpx.AsyncClient(transport=transport) as client:
            async with client.stream("GET", "http://h/") as streamed:
                waiting = asyncio.ensure_future(client.get("http://h/"))
                await asyncio.sleep(0.05)
                assert not waiting.done()  # the only lane is still held
                assert await streamed.aread() == b"x" * 10
            assert (await asyncio.wait_for(waiting, 2)).status_code == 200

    asyncio.run(main())


def test_a_failed_request_gives_its_lane_back() -> None:
    recorded = RecordingLanes()

    async def main() -> int:
        async with httpx.AsyncClient(transport=LaneTransport(recorded.make, lanes=1)) as client:
            with pytest.raises(httpx.ConnectError):
                await client.get("http://h/fail")
            return (await asyncio.wait_for(client.get("http://h/"), 2)).status_code

    assert asyncio.run(main()) == 200


def test_a_cancelled_waiting_request_loses_no_lane() -> None:
    recorded = RecordingLanes()

    async def main() -> int:
        async with httpx.AsyncClient(transport=LaneTransport(recorded.make, lanes=1)) as client:
            holder = asyncio.ensure_future(client.get("http://h/"))
            await asyncio.sleep(0)
            waiter = asyncio.ensure_future(client.get("http://h/"))
            await asyncio.sleep(0)
            waiter.cancel()
            await holder
            with pytest.raises(asyncio.CancelledError):
                await waiter
            return (await asyncio.wait_for(client.get("http://h/"), 2)).status_code

    assert asyncio.run(main()) == 200


def test_the_pools_share_one_tls_context_that_verifies_certificates() -> None:
    import ssl

    first = async_transport(httpx.Limits(), tls_context())
    second = async_transport(httpx.Limits(), tls_context())
    assert tls_context() is tls_context()
    assert first._pool._ssl_context is second._pool._ssl_context is tls_context()
    assert tls_context().verify_mode == ssl.CERT_REQUIRED
    assert tls_context().check_hostname


def test_waiting_for_a_lane_ends_with_httpx_pool_timeout() -> None:
    recorded = RecordingLanes()

    async def main() -> int:
        transport = LaneTransport(recorded.make, lanes=1)
        timeout = httpx.Timeout(5.0, pool=0.05)
        async with httpx.AsyncClient(transport=transport, timeout=timeout) as client:
            async with client.stream("GET", "http://h/") as held:
                with pytest.raises(httpx.PoolTimeout):
                    await client.get("http://h/")
                await held.aread()
            return (await asyncio.wait_for(client.get("http://h/"), 2)).status_code

    assert asyncio.run(main()) == 200
    assert len(recorded.made) == 1
