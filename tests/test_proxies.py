"""Behind a proxy: every command sends its requests through the proxy the environment names
(HTTP_PROXY, HTTPS_PROXY, ALL_PROXY), and NO_PROXY's hosts go around it. A real forward proxy
on 127.0.0.1 carries the requests to the sandbox over real sockets."""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from forward_proxy import ForwardProxy

from mediashortcodes.cli import cli
from mediashortcodes.client.async_client import client_from_config
from mediashortcodes.client.sync_client import sync_client_from_config
from mediashortcodes.config import Credentials, load
from mediashortcodes.errors import ServiceUnreachableError
from mediashortcodes.language import parse
from mediashortcodes.wagtail.live import LiveRenderer, Publication

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")

PAGE = '---\ntitle: Harbour\n---\n<% media_image 101 alt="A harbour" %>\n'


@pytest.fixture
def proxy() -> Iterator[ForwardProxy]:
    with ForwardProxy() as running:
        yield running


@pytest.fixture
def site(tmp_path: Path, sandbox: Any, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A one-page site pointed at the sandbox, and no proxy setting from the machine."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    for name, value in sandbox.env().items():
        monkeypatch.setenv(name, value)
    root = tmp_path / "site"
    (root / "content").mkdir(parents=True)
    (root / "templates").mkdir()
    (root / "templates" / "page.html").write_text("{{ page.content }}")
    (root / "content" / "index.md").write_text(PAGE)
    (root / "mediashortcodes.toml").write_text(
        f'[service]\ndownload_url = "{sandbox.download_url}"\nallow_http_downloads = true\n'
        '[site]\nbase_url = "https://www.example.org"\n'
        '[usage]\ncontact = "web@example.org"\nproject = "Proxy test"\n'
    )
    return root


def run(site: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> str:
    """Run a command with a cache of its own (so each one asks the service)."""
    cache = site.parent / f"cache-{args[0]}"
    monkeypatch.setenv("MEDIASHORTCODES_CACHE_DIR", str(cache))
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_build_check_report_and_the_service_commands_go_through_the_proxy(
    site: Path, proxy: ForwardProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)  # the sandbox speaks http://

    run(site, monkeypatch, "build", str(site))
    built = proxy.paths()
    assert "/1/oauth2/token" in built
    assert any(path.startswith("/1/file/101/download/") for path in built), built
    assert any(path.startswith("/dn/") for path in built), "the image download too"

    for command, path in [
        (["check", str(site)], "/1/oauth2/token"),
        (["report", str(site)], "/1/files/multiple/usages"),
        (["folders", "--site", str(site)], "/1/foldertree"),
    ]:
        proxy.seen.clear()
        run(site, monkeypatch, *command)
        assert path in proxy.paths(), command


def test_no_proxy_hosts_go_around_the_proxy(
    site: Path, proxy: ForwardProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    run(site, monkeypatch, "build", str(site))
    run(site, monkeypatch, "report", str(site))
    run(site, monkeypatch, "folders", "--site", str(site))
    assert proxy.seen == []


@pytest.mark.parametrize("variable", ["ALL_PROXY", "http_proxy"])
def test_the_live_renderer_honours_every_proxy_variable(
    site: Path, proxy: ForwardProxy, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.setenv(variable, proxy.url)
    monkeypatch.setenv("MEDIASHORTCODES_CACHE_DIR", str(site.parent / "cache"))
    found = parse("<% media_image 101 %>", "page.html").shortcodes
    with LiveRenderer(load(site), Publication(site.parent / "media", "/m/")) as live:
        html = live.render(found[0])
    assert 'src="/m/' in html
    paths = proxy.paths()
    assert paths[0] == "/1/oauth2/token" and any(p.startswith("/dn/") for p in paths), paths


def test_a_proxy_setting_httpx_cannot_use_is_a_usage_error(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "ftp://proxy.example:21")
    monkeypatch.setenv("MEDIASHORTCODES_CACHE_DIR", str(site.parent / "cache"))
    result = CliRunner().invoke(cli, ["build", str(site)], catch_exceptions=False)
    assert result.exit_code == 2, result.output
    assert "proxy settings of the environment" in result.output


# A service answering over https:// with a certificate of a CA no default store holds
# (tests/fixtures/tls: made once for these tests; the CA's key was thrown away).
TLS = Path(__file__).parent / "fixtures" / "tls"


ANSWERS = {
    "/1/oauth2/token": {"access_token": "t", "token_type": "Bearer", "expires_in": 7200},
    "/1/format": [{"id": 7, "name": "Thumb"}],
}


class TinyService(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        body = json.dumps(ANSWERS.get(self.path.split("?")[0], [])).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def https_service() -> Iterator[str]:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(TLS / "server.pem", TLS / "server.key")
    server = ThreadingHTTPServer(("127.0.0.1", 0), TinyService)
    server.daemon_threads = True
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def https_site(site: Path, https_service: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MEDIASHORTCODES_BASE_URL", https_service)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    return site


async def formats_both_ways(site: Path) -> list[list[str]]:
    """The format names through the async client (build, check, report, the live renderer)
    and through the sync one (the service commands, the picker)."""
    config = load(site)
    credentials = Credentials("id", "secret", "refresh")
    async with client_from_config(config, credentials) as client:
        from_async = [f.name for f in await client.formats()]
    with sync_client_from_config(config, credentials) as sync_client:
        from_sync = [f.name for f in sync_client.formats()]
    return [from_async, from_sync]


async def test_a_ca_bundle_named_by_ssl_cert_file_is_trusted_by_both_clients(
    https_site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    with pytest.raises(ServiceUnreachableError, match=r"not trusted .* set SSL_CERT_FILE"):
        await formats_both_ways(https_site)
    monkeypatch.setenv("SSL_CERT_FILE", str(TLS / "ca.pem"))
    assert await formats_both_ways(https_site) == [["Thumb"], ["Thumb"]]


async def test_https_goes_through_the_proxy_in_a_connect_tunnel(
    https_site: Path, https_service: str, proxy: ForwardProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(TLS / "ca.pem"))
    monkeypatch.setenv("HTTPS_PROXY", proxy.url)
    assert await formats_both_ways(https_site) == [["Thumb"], ["Thumb"]]
    tunnel = f"CONNECT {https_service.removeprefix('https://')}"
    assert proxy.seen.count(tunnel) >= 2, proxy.seen  # each client opened its own
