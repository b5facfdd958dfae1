"""The preview server over real sockets: what a page gets, and what a hostile page cannot."""

from __future__ import annotations

import http.client
import json
import socket
import struct
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from mediashortcodes.serve.channel import LiveChannel
from mediashortcodes.serve.server import LiveServer

PAGE = b"<!doctype html><html><body><h1>Hi</h1></body></html>"


@pytest.fixture(scope="module")
def output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("served") / "site"
    (root / "blog" / "post").mkdir(parents=True)
    (root / "index.html").write_bytes(PAGE)
    (root / "blog" / "post" / "index.html").write_bytes(PAGE)
    (root / "data.json").write_bytes(b'{"a": "</body>"}')
    (root.parent / "secret.txt").write_text("secret")
    return root


@pytest.fixture(scope="module")
def channel() -> LiveChannel:
    return LiveChannel()


@pytest.fixture(scope="module")
def server(output: Path, channel: LiveChannel) -> Iterator[LiveServer]:
    channel.built()
    running = LiveServer(output, channel, port=0).start()
    try:
        yield running
    finally:
        running.stop()


def get(
    server: LiveServer, path: str, headers: dict[str, str] | None = None, method: str = "GET"
) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.putrequest(method, path, skip_host=True)
        sent = {"Host": f"127.0.0.1:{server.port}", **(headers or {})}
        for name, value in sent.items():
            connection.putheader(name, value)
        connection.endheaders()
        response = connection.getresponse()
        if path.startswith("/__mediashortcodes/events") and response.status == 200:
            body = b""
            while b"event: state" not in body or not body.endswith(b"\n\n"):
                body += response.fp.readline()  # the first state, then the stream stays open
        else:
            body = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body
    finally:
        connection.close()


def test_served_pages_get_the_reload_script_and_the_files_on_disk_do_not(
    server: LiveServer, output: Path
) -> None:
    status, headers, body = get(server, "/blog/post/")
    assert status == 200
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert headers["cache-control"] == "no-store"
    assert body.startswith(b"<!doctype html><html><body><h1>Hi</h1><script src=")
    assert body.endswith(b"</script></body></html>")
    assert (output / "blog" / "post" / "index.html").read_bytes() == PAGE
    status, _headers, body = get(server, "/data.json")
    assert (status, body) == (200, b'{"a": "</body>"}')  # only HTML gets it
    status, headers, script = get(server, "/__mediashortcodes/live.js")
    assert status == 200
    assert headers["content-type"].startswith("text/javascript")
    assert b"EventSource" in script


def test_pretty_urls_and_nothing_outside_the_output(server: LiveServer) -> None:
    status, headers, _ = get(server, "/blog/post")
    assert (status, headers["location"]) == (301, "/blog/post/")
    for path in ("/../secret.txt", "/%2e%2e/secret.txt", "/blog/", "/missing"):
        status, headers, body = get(server, path)
        assert status == 404, path
        assert b"secret" not in body
    status, _, body = get(server, "/missing/")
    assert b"/__mediashortcodes/live.js" in body  # the tab reloads once the page is written


@pytest.mark.parametrize(
    "host", ["evil.example", "localhost.evil.example", "127.0.0.1.nip.io", "127.0.0.1:1"]
)
def test_a_host_that_is_not_the_served_address_is_refused(server: LiveServer, host: str) -> None:
    """DNS rebinding: a hostile name that resolves to 127.0.0.1 reaches the socket with its
    own name in Host."""
    if ":" not in host:
        host = f"{host}:{server.port}"
    for path in ("/", "/__mediashortcodes/events"):
        status, _, body = get(server, path, {"Host": host})
        assert status == 421
        assert b"Hi" not in body


def test_localhost_and_the_address_itself_are_served(server: LiveServer) -> None:
    for host in (f"localhost:{server.port}", f"127.0.0.1:{server.port}"):
        assert get(server, "/", {"Host": host})[0] == 200


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
    ],
)
def test_the_reload_channel_refuses_other_origins(
    server: LiveServer, headers: dict[str, str]
) -> None:
    status, _, body = get(server, "/__mediashortcodes/events", headers)
    assert status == 403
    assert b"version" not in body


def test_the_reload_channel_tells_its_own_pages_the_state(
    server: LiveServer, channel: LiveChannel
) -> None:
    headers = {"Origin": f"http://127.0.0.1:{server.port}", "Sec-Fetch-Site": "same-origin"}
    status, sent, body = get(server, "/__mediashortcodes/events", headers)
    assert status == 200
    assert sent["content-type"] == "text/event-stream"
    data = body.split(b"data: ", 1)[1]
    assert json.loads(data) == {
        "version": channel.state.version,
        "message": "",
        "problems": [],
        "session": server.session,
    }


def test_a_download_the_browser_aborts_is_no_error(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Three 20 MB files whose downloads the client cuts off: no traceback, nothing said."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "film.bin").write_bytes(bytes(20 * 1024 * 1024))
    channel = LiveChannel()
    channel.built()
    before = set(threading.enumerate())
    running = LiveServer(tmp_path / "site", channel, port=0).start()
    try:
        for _ in range(3):
            with socket.create_connection(("127.0.0.1", running.port), timeout=10) as client:
                client.sendall(
                    f"GET /film.bin HTTP/1.1\r\nHost: 127.0.0.1:{running.port}\r\n\r\n".encode()
                )
                assert client.recv(1024).startswith(b"HTTP/1.1 200")
                # Closed with a reset, as a browser that stops a download does.
                client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        for thread in set(threading.enumerate()) - before:
            if "process_request" in thread.name:
                thread.join(timeout=30)  # the server has met every cut-off connection
        status, _, body = get(running, "/film.bin")  # and serves on
        assert (status, len(body)) == (200, 20 * 1024 * 1024)
    finally:
        running.stop()
    printed = capfd.readouterr()
    assert "Traceback" not in printed.err + printed.out
    assert "Error" not in printed.err + printed.out


def test_nothing_but_reading(server: LiveServer) -> None:
    for method in ("POST", "PUT", "DELETE"):
        status, headers, _ = get(server, "/", method=method)
        assert status == 405
        assert headers["allow"] == "GET, HEAD"
