"""The service commands: folders, files, search, formats, download."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from conftest import API, CREDENTIALS, DOWNLOADS, IMAGE, FakeService

from mediashortcodes import cli_service
from mediashortcodes.api import sync_client_from_config
from mediashortcodes.cli import cli
from mediashortcodes.config import (
    ENV_BASE_URL,
    ENV_CLIENT_ID,
    ENV_CLIENT_SECRET,
    ENV_PLAYER_URL,
    ENV_REFRESH_TOKEN,
    ENV_STATIC_URL,
)
from mediashortcodes.imageinfo import probe

SECRETS = (CREDENTIALS.client_id, CREDENTIALS.client_secret, CREDENTIALS.refresh_token)

SITE_TOML = f"""
[service]
base_url = "{API}"
player_url = "https://player.example.com"
static_url = "https://static.example.com"
download_url = "{DOWNLOADS}"
max_retries = 0
"""


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "mediashortcodes.toml").write_text(SITE_TOML)
    for var in (ENV_BASE_URL, ENV_PLAYER_URL, ENV_STATIC_URL):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv(ENV_CLIENT_ID, CREDENTIALS.client_id)
    monkeypatch.setenv(ENV_CLIENT_SECRET, CREDENTIALS.client_secret)
    monkeypatch.setenv(ENV_REFRESH_TOKEN, CREDENTIALS.refresh_token)
    return tmp_path


@pytest.fixture
def served(fake: FakeService, monkeypatch: pytest.MonkeyPatch) -> FakeService:
    """Route the commands' client to the in-process fake service."""

    def connect(config, credentials, *, transport=None):
        return sync_client_from_config(config, credentials, transport=fake.transport())

    monkeypatch.setattr(cli_service, "sync_client_from_config", connect)
    return fake


def run(*args: str) -> object:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_folders_prints_an_indented_tree(site, served):
    result = run("folders", "--site", str(site))
    assert result.exit_code == 0
    assert result.output.splitlines() == [
        "ID  NAME",
        " 1  Root",
        " 2    Photos",
        " 3  Old (archived)",
    ]


def test_folders_json_is_for_scripts(site, served):
    result = run("folders", "--site", str(site), "--json")
    data = json.loads(result.output)
    assert [f["id"] for f in data] == [1, 2, 3] and data[1]["parent"] == 1


def test_site_defaults_to_the_current_directory(site, served, monkeypatch):
    monkeypatch.chdir(site)
    assert run("formats").exit_code == 0


def test_files_lists_a_folders_files(site, served):
    result = run("files", "2", "--site", str(site))
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split() == ["ID", "KIND", "NAME", "FILENAME", "SIZE", "GDPR"]
    assert lines[1].split()[:3] == ["10", "image", "Harbour"]
    assert lines[2].split()[:2] == ["11", "video"]


def test_search_prints_matching_files_as_json(site, served):
    result = run("search", "harb", "--site", str(site), "--json")
    assert [f["id"] for f in json.loads(result.output)] == [10]
    assert served.requests[-1].url.params["query"] == "harb"


def test_formats_prints_ids_and_names(site, served):
    result = run("formats", "--site", str(site))
    assert [line.split()[:2] for line in result.output.splitlines()[1:]] == [
        ["0", "original"],
        ["7", "Thumb"],
        ["8", "Wide"],
    ]


def test_download_writes_the_original(site, served, tmp_path):
    out = tmp_path / "out" / "harbour.jpg"
    result = run("download", "10", "-o", str(out), "--site", str(site))
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == IMAGE
    assert "/1/file/10/download/0" in served.paths()
    assert not list(out.parent.glob("*.part"))


@pytest.mark.parametrize(("spec", "format_id"), [("original", 0), ("0", 0), ("7", 7), ("THUMB", 7)])
def test_download_accepts_a_format_as_original_id_or_name(site, served, tmp_path, spec, format_id):
    out = tmp_path / "x.jpg"
    result = run("download", "10", spec, "-o", str(out), "--site", str(site))
    assert result.exit_code == 0, result.output
    assert f"/1/file/10/download/{format_id}" in served.paths()
    assert ("/1/format" in served.paths()) is (spec == "THUMB")


def test_download_with_crop_options_asks_for_the_custom_format(site, served, tmp_path):
    args = ["--w", "50", "--h", "40", "--x1", "0", "--x2", "100", "--y1", "0", "--y2", "80"]
    result = run("download", "10", *args, "--stretch", "-o", str(tmp_path), "--site", str(site))
    assert result.exit_code == 0, result.output
    request = next(r for r in served.requests if r.url.path == "/1/file/10/download/-1")
    assert dict(request.url.params) == {
        "w": "50", "h": "40", "x1": "0", "x2": "100", "y1": "0", "y2": "80", "stretch": "1",
    }  # fmt: skip
    assert (tmp_path / "10-crop.jpg").read_bytes() == IMAGE


def test_download_into_a_folder_names_the_file_after_id_and_format(site, served, tmp_path):
    result = run("download", "10", "7", "-o", str(tmp_path), "--site", str(site))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "10-format7.jpg").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--w", "50"], "missing: --h, --x1, --x2, --y1, --y2"),
        (["7", "--w", "1", "--h", "1", "--x1", "0", "--x2", "1", "--y1", "0", "--y2", "1"],
         "either FORMAT or the crop options"),
        (["Nope"], "unknown format 'Nope'"),
        (["--", "-1"], "crop options"),
    ],
)  # fmt: skip
def test_download_usage_errors_exit_2_and_say_why(site, served, tmp_path, args, message):
    result = run("download", "10", "-o", str(tmp_path / "x"), "--site", str(site), *args)
    assert result.exit_code == 2 and message in result.output


def test_a_missing_credential_exits_2_naming_the_variable(site, served, monkeypatch):
    monkeypatch.delenv(ENV_CLIENT_SECRET)
    result = run("folders", "--site", str(site))
    assert result.exit_code == 2 and ENV_CLIENT_SECRET in result.output
    assert served.requests == []


def test_a_missing_service_url_exits_2_naming_the_variable(site, served, tmp_path):
    bare = tmp_path / "bare"
    bare.mkdir()
    result = run("formats", "--site", str(bare))
    assert result.exit_code == 2 and ENV_BASE_URL in result.output


def test_a_folder_that_is_not_visible_is_a_usage_error(site, served):
    result = run("files", "77", "--site", str(site))
    assert result.exit_code == 2
    assert "folder 77 does not exist or is not visible" in result.output


def test_a_file_that_is_not_visible_is_a_usage_error(site, served, tmp_path):
    result = run("download", "77", "-o", str(tmp_path / "x.jpg"), "--site", str(site))
    assert result.exit_code == 2
    assert "file 77 does not exist or is not visible" in result.output
    assert not (tmp_path / "x.jpg").exists()


def test_an_expired_download_link_is_still_a_service_error(site, served, tmp_path):
    served.inject("/dn/", httpx.Response(410), count=10)
    result = run("download", "10", "-o", str(tmp_path / "x.jpg"), "--site", str(site))
    assert result.exit_code == 3


def test_refused_credentials_exit_3_without_printing_a_secret(site, served, monkeypatch):
    monkeypatch.setenv(ENV_REFRESH_TOKEN, "refresh-token-WRONG")
    result = run("search", "x", "--site", str(site))
    assert result.exit_code == 3 and ENV_REFRESH_TOKEN in result.output
    assert not any(s in result.output for s in (*SECRETS, "refresh-token-WRONG"))


def test_an_empty_search_is_a_usage_error(site, served):
    assert run("search", " ", "--site", str(site)).exit_code == 2


# Against the sandbox, started by the command itself ------------------------------------------


@pytest.fixture
def sandbox_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    pytest.importorskip("PIL", reason="the sandbox needs the [sandbox] extra (Pillow)")
    for var in (ENV_CLIENT_ID, ENV_CLIENT_SECRET, ENV_REFRESH_TOKEN, ENV_BASE_URL):
        monkeypatch.delenv(var, raising=False)
    (tmp_path / "mediashortcodes.toml").write_text("[service]\nsandbox = true\n")
    return tmp_path


def test_with_sandbox_true_the_commands_run_against_the_sandbox(sandbox_site):
    folders = run("folders", "--site", str(sandbox_site))
    assert folders.exit_code == 0, folders.output
    assert "Nature" in folders.output and "    Autumn" in folders.output
    out = sandbox_site / "thumb.jpg"
    download = run("download", "101", "thumb", "-o", str(out), "--site", str(sandbox_site))
    assert download.exit_code == 0, download.output
    assert max(probe(out.read_bytes()).width, probe(out.read_bytes()).height) == 200
