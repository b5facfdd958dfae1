"""The server layer: one write per response, TCP_NODELAY, keep-alive, clean stop."""

from __future__ import annotations

import http.client
import socket
import threading

import pytest

from mediashortcodes.sandbox import Sandbox
from mediashortcodes.sandbox.http import Response, Server, _Handler


class Recorder:
    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(data)


def written(response: Response, command: str = "GET") -> list[bytes]:
    handler = _Handler.__new__(_Handler)
    handler.wfile = Recorder()
    handler.command = command
    handler.close_connection = False
    handler._write(response)
    return handler.wfile.writes


def test_status_line_headers_and_body_leave_in_one_write():
    (data,) = written(Response(200, b"x" * 5000, "image/png"))
    head, body = data.split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 200 OK") and b"Content-Length: 5000" in head
    assert body == b"x" * 5000


def test_head_gets_the_headers_without_the_body():
    (data,) = written(Response(200, b"abc", "text/plain"), command="HEAD")
    assert b"Content-Length: 3\r\n" in data and data.endswith(b"\r\n\r\n")


def test_accepted_sockets_have_tcp_nodelay():
    server = Server(("127.0.0.1", 0), lambda request: Response(204))
    try:
        with socket.create_connection(("127.0.0.1", server.port)):
            conn, _ = server.get_request()
            assert conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
            server.shutdown_request(conn)
    finally:
        server.stop()


def test_one_connection_serves_many_requests(sb):
    conn = http.client.HTTPConnection("127.0.0.1", int(sb.base_url.rsplit(":", 1)[1]), timeout=5)
    try:
        conn.request("GET", "/1/format")
        conn.getresponse().read()
        first = conn.sock
        conn.request("GET", "/1/format")
        response = conn.getresponse()
        response.read()
        assert response.status == 401 and conn.sock is first
    finally:
        conn.close()


def test_stop_closes_kept_alive_connections():
    sandbox = Sandbox().start()
    conn = http.client.HTTPConnection(
        "127.0.0.1", int(sandbox.base_url.rsplit(":", 1)[1]), timeout=5
    )
    try:
        conn.request("GET", "/_sandbox/stats")
        conn.getresponse().read()
        sandbox.stop()
        assert conn.sock.recv(1) == b""
    finally:
        conn.close()


def test_requests_are_answered_concurrently():
    import httpx

    barrier = threading.Barrier(2)
    # both requests must be inside the latency sleep at once, or the barrier breaks
    with Sandbox(latency_ms=1, sleep=lambda _: barrier.wait(timeout=5)) as sandbox:
        results: list[int] = []

        def call() -> None:
            results.append(httpx.get(f"{sandbox.base_url}/1/format").status_code)

        threads = [threading.Thread(target=call) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert results == [401, 401]


def test_options_preflight_is_answered_with_cors_headers(sb):
    import httpx

    response = httpx.options(f"{sb.base_url}/1/format")
    assert response.status_code == 204
    assert "Authorization" in response.headers["access-control-allow-headers"]


@pytest.mark.parametrize("length", ["abc", "-1", str(2 * 1024 * 1024)])
def test_a_bad_content_length_is_refused(sb, length):
    with socket.create_connection(("127.0.0.1", int(sb.base_url.rsplit(":", 1)[1]))) as raw:
        raw.sendall(
            f"POST /1/format HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n\r\n".encode()
        )
        answer = raw.recv(4096)
    assert answer.split(b" ")[1] in (b"400", b"413")


def _handler_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if "process_request_thread" in t.name]


def test_a_client_that_resets_mid_request_leaves_no_traceback(capfd) -> None:
    # What a build stopped by Ctrl-C or SIGTERM does to the sandbox it started: its
    # connections are reset while requests are half sent.
    import struct
    import time

    with Sandbox() as sandbox:
        port = int(sandbox.base_url.rsplit(":", 1)[1].split("/")[0])
        for _ in range(3):
            conn = socket.create_connection(("127.0.0.1", port))
            conn.sendall(b"GET /1/foldertree HTTP/1.1\r\nHost: x\r\n")  # headers not ended
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()  # RST
        deadline = time.monotonic() + 10
        while _handler_threads() and time.monotonic() < deadline:
            time.sleep(0.01)  # each handler reads the reset and ends
    assert not _handler_threads()
    err = capfd.readouterr().err
    assert "Traceback" not in err and "ConnectionResetError" not in err, err
