"""The service commands: folders, files, search, formats, download."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from conftest import API, CREDENTIALS, DOWNLOADS, FakeService

from mediashortcodes.cli import cli
from mediashortcodes.client import sync_client
from mediashortcodes.client.sync_client import sync_client_from_config
from mediashortcodes.config import (
    ENV_BASE_URL,
    ENV_CACHE_DIR,
    ENV_CLIENT_ID,
    ENV_CLIENT_SECRET,
    ENV_PLAYER_URL,
    ENV_REFRESH_TOKEN,
    ENV_STATIC_URL,
)
from mediashortcodes.media.cache import namespace_for
from mediashortcodes.media.imageinfo import probe

SECRETS = (CREDENTIALS.client_id, CREDENTIALS.client_secret, CREDENTIALS.refresh_token)

# The smallest whole JPEG the build accepts: a 2x1 frame header, one scan, the end marker.
JPEG = (
    b"\xff\xd8"  # SOI
    + b"\xff\xc0\x00\x0b\x08\x00\x01\x00\x02\x01\x01\x11\x00"  # SOF0, 2x1, one component
    + b"\xff\xda\x00\x08\x01\x01\x00\x00\x3f\x00"  # SOS
    + b"\x12\x34"  # compressed data
    + b"\xff\xd9"  # EOI
)
JSON = {"content-type": "application/json"}
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


PNG = (
    PNG_SIGNATURE
    + png_chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
    + png_chunk(b"IDAT", zlib.compress(b"\0\0"))
    + png_chunk(b"IEND", b"")
)

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

    # The commands import the client when they connect (the command line starts without it).
    monkeypatch.setattr(sync_client, "sync_client_from_config", connect)
    fake.download_body = JPEG  # the download is checked like the build's: a whole image
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


@pytest.mark.parametrize(
    "args",
    [["folders"], ["files", "2"], ["search", "harb"], ["formats"], ["download", "10", "7"]],
    ids=lambda args: args[0],
)
def test_site_is_given_as_build_takes_it(site, served, tmp_path, monkeypatch, args):
    # `mediashortcodes folders example_site`, as `build example_site`: SITE after the
    # command's own arguments; run from another folder, so that the default '.' cannot help.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    out = ["-o", str(elsewhere / "x.jpg")] if args[0] == "download" else []
    positional = run(*args, str(site), *out)
    assert positional.exit_code == 0, positional.output
    assert run(*args, "--site", str(site), *out).output == positional.output  # as before


def test_site_given_twice_differently_is_a_usage_error(site, served, tmp_path):
    result = run("folders", str(site), "--site", str(tmp_path / "other"))
    assert result.exit_code == 2
    assert "give the site once" in result.output and str(site) in result.output
    assert served.requests == []


def test_a_site_in_the_place_of_format_says_where_site_goes(site, served, tmp_path):
    result = run("download", "10", str(site), "-o", str(tmp_path / "x.jpg"))
    assert result.exit_code == 2
    assert "is a site, not a FORMAT" in result.output
    assert f"download 10 original {site}" in result.output
    assert served.requests == [] and not (tmp_path / "x.jpg").exists()


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
    assert out.read_bytes() == JPEG
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
    assert (tmp_path / "10-crop.jpg").read_bytes() == JPEG


def test_download_into_a_folder_names_the_file_after_id_and_format(site, served, tmp_path):
    result = run("download", "10", "7", "-o", str(tmp_path), "--site", str(site))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "10-format7.jpg").exists()


def test_download_without_output_writes_into_the_current_folder_once(
    site, served, tmp_path, monkeypatch
):
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    result = run("download", "10", "--site", str(site))
    assert result.exit_code == 0, result.output
    assert (here / "10-original.jpg").read_bytes() == JPEG
    (here / "10-original.jpg").write_bytes(b"mine")
    again = run("download", "10", "--site", str(site))
    assert again.exit_code == 2 and "10-original.jpg already exists" in again.output
    assert (here / "10-original.jpg").read_bytes() == b"mine"  # never replaced unasked


@pytest.mark.parametrize("name", ["../../evil", "/etc/evil", "..", "x" * 5000, "\x1b]0;t\x07"])
def test_a_hostile_format_name_is_never_a_path_out_of_the_folder(
    site, served, tmp_path, monkeypatch, name
):
    here = tmp_path / "a" / "here"
    here.mkdir(parents=True)
    monkeypatch.chdir(here)
    info = {"id": 0, "format": name, "filetype": "jpg", "downloadURL": f"{DOWNLOADS}/dn/T/x"}
    served.inject("/1/file/10/download/0", httpx.Response(200, json=[info]))
    result = run("download", "10", "--site", str(site))
    assert result.exit_code == 0, result.output
    [written] = here.iterdir()
    assert written.read_bytes() == JPEG and written.name.startswith("10-")
    assert len(written.name) < 120 and "\x1b" not in result.output
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["here"]


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


def test_the_fake_downloads_are_images_the_build_would_accept():
    assert (probe(JPEG).kind, probe(JPEG).width) == ("jpeg", 2)
    assert probe(PNG).kind == "png"


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"<!DOCTYPE html><html><body>Down for maintenance</body></html>", "it is an HTML page"),
        (JPEG[:-2], "truncated JPEG"),
        (b"\xff\xd8" + b"\0" * 3000, "corrupt JPEG"),
        (PNG_SIGNATURE + b"\0" * 40, "PNG"),
        (b"", "the download is empty"),
    ],
    ids=["html", "truncated", "padded", "broken-png", "empty"],
)
def test_download_refuses_bytes_that_are_not_a_whole_image_and_writes_nothing(
    site, served, tmp_path, body, reason
):
    served.download_body = body
    out = tmp_path / "dl" / "x.jpg"
    result = run("download", "10", "-o", str(out), "--site", str(site))
    assert result.exit_code == 3, result.output
    assert "file 10" in result.output and reason in result.output
    assert "wrote" not in result.output
    assert not out.exists() and not list(tmp_path.rglob("*.part"))


def test_download_refuses_an_image_of_another_type_than_announced(site, served, tmp_path):
    served.download_body = PNG  # the download information announces a jpg
    result = run("download", "10", "-o", str(tmp_path), "--site", str(site))
    assert result.exit_code == 3
    assert "file 10" in result.output and "'jpg'" in result.output and "PNG" in result.output
    assert list(tmp_path.iterdir()) == [tmp_path / "mediashortcodes.toml"]


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


# Against the session's sandbox, with its faults -----------------------------------------------


@pytest.fixture
def faulty_site(sandbox: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, value in sandbox.env().items():
        monkeypatch.setenv(name, value)
    (tmp_path / "mediashortcodes.toml").write_text("[service]\nmax_retries = 0\n")
    return tmp_path


@pytest.mark.parametrize(
    ("kind", "size", "reason"),
    [("wrong_type", 0, "it is an HTML page"), ("oversize", 3000, "corrupt JPEG")],
    ids=["wrong_type", "oversize"],
)
def test_a_spoiled_download_from_the_sandbox_exits_3_and_writes_nothing(
    sandbox, faulty_site, kind, size, reason
):
    sandbox.fault(kind, path_prefix="/dn/", size=size)
    out = faulty_site / "dl" / "x.jpg"
    result = run("download", "101", "-o", str(out), "--site", str(faulty_site))
    assert result.exit_code == 3, result.output
    assert "file 101" in result.output and reason in result.output
    assert "wrote" not in result.output
    assert not out.exists() and not list(faulty_site.rglob("*.part"))


def test_a_download_from_the_sandbox_without_faults_is_written(sandbox, faulty_site):
    out = faulty_site / "x.png"
    result = run("download", "105", "thumb", "-o", str(out), "--site", str(faulty_site))
    assert result.exit_code == 0, result.output
    assert probe(out.read_bytes()).kind == "png"


# The cache commands --------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["info", "clear"])
def test_cache_commands_without_a_service_url_exit_2_naming_the_variable(
    tmp_path, monkeypatch, command
):
    for var in (ENV_BASE_URL, ENV_PLAYER_URL, ENV_STATIC_URL):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv(ENV_CACHE_DIR, str(tmp_path / "cache"))
    real = tmp_path / "cache" / namespace_for(API, sandbox=False)
    real.mkdir(parents=True)
    (real / "kept").write_text("a record")
    result = run("cache", command, str(tmp_path))
    assert result.exit_code == 2, result.output
    assert ENV_BASE_URL in result.output
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [real.name]
    assert (real / "kept").exists()


def test_a_number_too_large_for_a_float_in_an_answer_exits_3_with_a_message(site, served):
    answer = '[{"id": 10, "name": "Harbour", "filesize": 1e400}]'
    served.inject("/1/folder/2/files", httpx.Response(200, text=answer, headers=JSON))
    result = run("files", "2", "--site", str(site))
    assert result.exit_code == 3, result.output
    assert "error: unreadable files in the answer" in result.output
    assert "Traceback" not in result.output


def test_what_the_service_says_in_an_error_reaches_the_terminal_escaped(site, served):
    # An answer quoted in the error could retitle, recolour or clear the user's terminal.
    served.inject("/1/foldertree", httpx.Response(422, text="no \x1b]0;owned\x07 \x1b[2J here"))
    result = run("folders", "--site", str(site))
    assert result.exit_code == 3, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert r"no \x1b]0;owned\x07 \x1b[2J here" in result.output
