"""``mediashortcodes sandbox``: the running server as a process, and its inspection commands."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator

import httpx
import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli
from mediashortcodes.sandbox.cli import banner, pages_table, usages_table

from .conftest import token_params


@pytest.fixture
def process() -> Iterator[tuple[subprocess.Popen[str], dict[str, str]]]:
    """``mediashortcodes sandbox --port 0`` in a subprocess, and the variables it printed."""
    command = [sys.executable, "-c", "from mediashortcodes.cli import main; main()",
               "sandbox", "--port", "0", "--link-lifetime", "60"]  # fmt: skip
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        exports: dict[str, str] = {}
        done = threading.Event()

        def read() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                if line.startswith("export "):
                    name, _, value = line[7:].strip().partition("=")
                    exports[name] = value
                if line.startswith("Press Ctrl-C"):
                    done.set()
                    return

        threading.Thread(target=read, daemon=True).start()
        assert done.wait(20), "the sandbox did not start"
        yield proc, exports
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def test_the_cli_serves_the_api_and_stops_on_sigterm(process):
    proc, env = process
    base = env["MEDIASHORTCODES_BASE_URL"]
    params = {
        "grant_type": "refresh_token",
        "client_id": env["MEDIASHORTCODES_CLIENT_ID"],
        "client_secret": env["MEDIASHORTCODES_CLIENT_SECRET"],
        "refresh_token": env["MEDIASHORTCODES_REFRESH_TOKEN"],
    }
    token = httpx.get(f"{base}/1/oauth2/token", params=params).json()["access_token"]
    headers = {"Authorization": f"Bearer {token}"}
    info = httpx.get(f"{base}/1/file/101/download/0", headers=headers).json()[0]
    assert info["expiresIn"] == 60
    assert info["downloadURL"].startswith(env["MEDIASHORTCODES_STATIC_URL"])
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(10) == 0
    assert "sandbox stopped" in proc.stderr.read()


def test_the_banner_prints_urls_and_demo_credentials_as_exports(sb):
    text = banner(sb)
    assert f"export MEDIASHORTCODES_BASE_URL={sb.base_url}" in text
    assert f"export MEDIASHORTCODES_STATIC_URL={sb.static_url}" in text
    assert f"export MEDIASHORTCODES_CLIENT_SECRET={sb.credentials.client_secret}" in text


def report(sb, api, **changes) -> None:
    token = api.get("/1/oauth2/token", params=token_params(sb)).json()["access_token"]
    body = {"id": [101, 102], "project": "Demo", "date": "2024-05-01",
            "web": {"page": "https://x/a/", "pageName": "A"}, **changes}  # fmt: skip
    api.post("/1/files/multiple/usages", json=body, headers={"Authorization": f"Bearer {token}"})


def test_usages_shows_a_table_of_reports(sb, api):
    report(sb, api)
    report(sb, api, id=[102], removed="true")
    result = CliRunner().invoke(cli, ["sandbox", "usages", "--url", sb.base_url])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == ["#", "action", "files", "page", "project", "date"]
    assert lines[1].split() == ["1", "used", "101,102", "https://x/a/", "Demo", "2024-05-01"]
    assert lines[2].split()[:3] == ["2", "removed", "102"]


def test_usages_json_is_what_the_sandbox_stored(sb, api):
    report(sb, api)
    result = CliRunner().invoke(cli, ["sandbox", "usages", "--url", sb.base_url, "--json"])
    assert json.loads(result.output) == sb.usages


def test_usages_pages_shows_which_page_uses_which_files(sb, api):
    report(sb, api)
    port = sb.base_url.rsplit(":", 1)[1]
    result = CliRunner().invoke(cli, ["sandbox", "usages", "--port", port, "--pages"])
    assert result.output.splitlines()[1].split() == ["https://x/a/", "101,102"]


def test_usages_and_stats_ask_the_sandbox_of_the_pasted_export_line(sb, api, monkeypatch):
    report(sb, api)
    monkeypatch.setenv("MEDIASHORTCODES_BASE_URL", sb.base_url)  # as the sandbox printed it
    result = CliRunner().invoke(cli, ["sandbox", "stats", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == {"token": 1, "usages": 1}


def test_stats_lists_requests_per_endpoint(sb, api):
    report(sb, api)
    result = CliRunner().invoke(cli, ["sandbox", "stats", "--url", sb.base_url, "--json"])
    assert json.loads(result.output) == {"token": 1, "usages": 1}


def test_inspecting_when_no_sandbox_runs_exits_3_with_a_hint(sb):
    url = sb.base_url
    sb.stop()
    result = CliRunner().invoke(cli, ["sandbox", "usages", "--url", url])
    assert result.exit_code == 3
    assert "no sandbox answers" in result.output and "mediashortcodes sandbox" in result.output


def test_empty_tables_say_so():
    assert usages_table([]) == "no usage reports yet"
    assert pages_table({}) == "no page uses any file"


def test_a_busy_port_exits_2_naming_the_option(sb):
    port = sb.base_url.rsplit(":", 1)[1]
    result = CliRunner().invoke(cli, ["sandbox", "--port", port, "--media-port", "0"])
    assert result.exit_code == 2
    assert f"port {port}" in result.output and "--port" in result.output


def test_the_last_port_needs_an_explicit_media_port():
    result = CliRunner().invoke(cli, ["sandbox", "--port", "65535"])
    assert result.exit_code == 2 and "--media-port" in result.output
