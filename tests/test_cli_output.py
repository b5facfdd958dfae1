"""What the command line prints besides results: -v/-q on every command, colour on a terminal
only, progress bars on build, check and report that log lines leave whole, completion."""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import httpx
import pytest
from click.testing import CliRunner
from conftest import CREDENTIALS, FakeService

from mediashortcodes.cli import cli
from mediashortcodes.client import sync_client
from mediashortcodes.client.sync_client import sync_client_from_config

SECRETS = (CREDENTIALS.client_secret, CREDENTIALS.refresh_token, "access-token-1-T0K")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
REPO = Path(__file__).resolve().parents[1]  # python -m mediashortcodes runs this copy


def every_command(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [path]
    for module, _stand_in in cli.lazy.values() if group is cli else ():
        importlib.import_module(module)  # an integration's command registers when loaded
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found += every_command(command, (*path, name))
        else:
            found.append((*path, name))
    return found


def test_every_command_takes_verbose_and_quiet() -> None:
    for path in every_command(cli):
        result = CliRunner().invoke(cli, [*path, "--help"])
        assert result.exit_code == 0, path
        assert "-v, --verbose" in result.output and "-q, --quiet" in result.output, path


@pytest.fixture
def service_site(tmp_path: Path, fake: FakeService, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A site whose service commands reach the in-process fake, with one 503 to retry."""
    (tmp_path / "mediashortcodes.toml").write_text(
        '[service]\nbase_url = "https://api.example.com"\n'
        'download_url = "https://dl.example.com"\nretry_total_seconds = 5\n'
    )
    monkeypatch.setenv("MEDIASHORTCODES_CLIENT_ID", CREDENTIALS.client_id)
    monkeypatch.setenv("MEDIASHORTCODES_CLIENT_SECRET", CREDENTIALS.client_secret)
    monkeypatch.setenv("MEDIASHORTCODES_REFRESH_TOKEN", CREDENTIALS.refresh_token)

    def connect(config: Any, credentials: Any, *, transport: Any = None) -> Any:
        client = sync_client_from_config(config, credentials, transport=fake.transport())
        client._sleep = lambda seconds: None  # the retry's wait, not waited here
        return client

    # The commands import the client when they connect (the command line starts without it).
    monkeypatch.setattr(sync_client, "sync_client_from_config", connect)
    fake.inject("/1/foldertree", httpx.Response(503))
    return tmp_path


def folders(site: Path, *options: str) -> tuple[str, str]:
    result = CliRunner().invoke(cli, ["folders", "--site", str(site), *options])
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def test_without_verbose_a_retry_passes_silently(service_site: Path) -> None:
    out, err = folders(service_site)
    assert "Root" in out and err == ""


def test_verbose_says_each_retry_and_why(service_site: Path) -> None:
    _, err = folders(service_site, "-v")
    assert re.search(r"^info: GET /1/foldertree answered HTTP 503; retry 1 in ", err, re.M), err
    assert "HTTP Request" not in err


def test_very_verbose_shows_each_request_with_its_secrets_masked(service_site: Path) -> None:
    _, err = folders(service_site, "-vv")
    assert "info: HTTP Request: GET https://api.example.com/1/oauth2/token?" in err
    assert "client_secret=***" in err and "refresh_token=***" in err
    assert "debug: fetched an access token" in err
    assert not any(secret in err for secret in SECRETS)


def test_quiet_prints_errors_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDIASHORTCODES_CACHE_DIR", str(tmp_path / "cache"))
    site = tmp_path / "site"
    (site / "content").mkdir(parents=True)
    (site / "templates").mkdir()
    (site / "templates" / "page.html").write_text("{{ page.content }}")
    (site / "mediashortcodes.toml").write_text("[service]\nsandbox = true\n")
    (site / "content" / "index.md").write_text("Hello <% media_image 101 %>\n")
    result = CliRunner().invoke(cli, ["check", str(site), "--offline", "-q"])
    assert result.exit_code == 0 and result.output == ""
    result = CliRunner().invoke(cli, ["build", str(site), "--offline", "-q"])
    assert result.exit_code == 1 and result.output.startswith("error: ")


# -- hostile names and service text: escaped on one line, in every form (issue 29) ----------

FORGED = "x\n::error file=evil::FORGED\n.md"


def offline_site(root: Path, monkeypatch: pytest.MonkeyPatch, pages: dict[str, str]) -> Path:
    monkeypatch.setenv("MEDIASHORTCODES_CACHE_DIR", str(root / "cache"))
    site = root / "site"
    (site / "content").mkdir(parents=True)
    (site / "templates").mkdir()
    (site / "templates" / "page.html").write_text("{{ page.content }}")
    (site / "mediashortcodes.toml").write_text("[service]\nsandbox = true\n")
    for name, text in pages.items():
        (site / "content" / name).write_text(text)
    return site


def test_a_page_named_with_a_newline_forges_no_workflow_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = offline_site(tmp_path, monkeypatch, {FORGED: "<% media_image %>\n"})
    result = CliRunner().invoke(
        cli, ["check", str(site), "--offline"], env={"GITHUB_ACTIONS": "true"}
    )
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines() + result.stderr.splitlines()
    assert not [line for line in lines if line.startswith("::error file=evil")], lines
    shown = "x\\x0a::error file=evil::FORGED\\x0a.md"
    assert f"content/{shown}:1:1: " in result.stderr  # one line, the name escaped
    assert any(line.startswith("::error file=") and "FORGED" in line for line in lines)
    result = CliRunner().invoke(cli, ["check", str(site), "--offline", "--format", "json"])
    paths = {p["path"] for p in json.loads(result.stdout)["problems"]}
    assert str(site / "content" / FORGED) in paths or f"{site}/content/{FORGED}" in paths


@pytest.mark.parametrize(
    ("folder", "commands"), [("content", ("build", "check")), ("static", ("build",))]
)
def test_a_file_name_that_is_not_utf8_is_a_problem_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, folder: str, commands: tuple[str, ...]
) -> None:
    site = offline_site(tmp_path, monkeypatch, {"index.md": "Hello\n"})
    (site / folder).mkdir(exist_ok=True)
    try:
        with open(os.path.join(os.fsencode(site / folder), b"caf\xe9.md"), "wb") as file:
            file.write(b"Hello\n")
    except OSError:  # macOS and Windows keep every name Unicode
        pytest.skip("this file system refuses names that are not UTF-8")
    for command in commands:  # check reads no static file
        result = CliRunner().invoke(cli, [command, str(site), "--offline"])
        assert result.exit_code == 2, result.output
        assert isinstance(result.exception, SystemExit), result.exception  # no traceback
        assert result.stderr.startswith("error: ") and f"{folder}" in result.stderr
        assert "caf\\xe9.md" in result.stderr and "rename" in result.stderr


def test_a_warning_without_a_place_is_escaped_too(capsys: pytest.CaptureFixture[str]) -> None:
    from mediashortcodes.cli.output import warn

    warn("usage: the service said \x1b]0;owned\x07\nforged line")
    assert capsys.readouterr().err == (
        "warning: usage: the service said \\x1b]0;owned\\x07\\x0aforged line\n"
    )


def test_service_text_reaches_annotations_and_json_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mediashortcodes.client import async_client

    hostile = "no such thing\x1b]0;owned\x07 \u202etxt.exe"

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/oauth2/token"):
            token = {"access_token": "at-1", "token_type": "Bearer", "expires_in": 3600}
            return httpx.Response(200, json=token)
        return httpx.Response(400, text=hostile)

    real = async_client.client_from_config
    monkeypatch.setattr(
        async_client,
        "client_from_config",
        lambda config, credentials, **_: real(
            config, credentials, transport=httpx.MockTransport(answer)
        ),
    )
    monkeypatch.setenv("MEDIASHORTCODES_CLIENT_ID", CREDENTIALS.client_id)
    monkeypatch.setenv("MEDIASHORTCODES_CLIENT_SECRET", CREDENTIALS.client_secret)
    monkeypatch.setenv("MEDIASHORTCODES_REFRESH_TOKEN", CREDENTIALS.refresh_token)
    site = offline_site(tmp_path, monkeypatch, {"index.md": "<% media_image 101 alt=x %>\n"})
    (site / "mediashortcodes.toml").write_text(
        '[service]\nbase_url = "https://api.example.com"\nretry_total_seconds = 1\n'
    )
    result = CliRunner().invoke(cli, ["check", str(site)], env={"GITHUB_ACTIONS": "true"})
    assert result.exit_code == 3, result.output
    annotation = next(line for line in result.stdout.splitlines() if line.startswith("::error"))
    assert "no such thing\\x1b]0;owned\\x07 \\u202etxt.exe" in annotation
    for raw in ("\x1b", "\x07", "\u202e"):
        assert raw not in result.output
    result = CliRunner().invoke(cli, ["check", str(site), "--format", "json"])
    assert result.exit_code == 3 and "\u202e" not in result.stdout and "\x1b" not in result.stdout
    assert hostile in json.loads(result.stdout)["problems"][0]["message"]  # the text, exact


# -- colour and progress: a real terminal (a pseudo-terminal) against pipes -----------------


def run_in_terminal(args: list[str], env: dict[str, str]) -> str:
    """Run ``python -m mediashortcodes ARGS`` with stderr on a pseudo-terminal; its output."""
    pty = pytest.importorskip("pty")  # POSIX only, like the terminals it stands for
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "mediashortcodes", *args],
        stdin=subprocess.DEVNULL,
        stdout=terminal,
        stderr=terminal,
        env=env,
        cwd=REPO,
    )
    os.close(terminal)
    chunks = []
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the terminal closed: the process is done
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(controller)
    process.wait(timeout=60)
    return b"".join(chunks).decode("utf-8", "replace")


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "NO_COLOR")}
    env.update(extra)
    return env


def test_errors_are_red_on_a_terminal_only(tmp_path: Path) -> None:
    args = ["build", str(tmp_path / "no-such-site")]
    on_terminal = run_in_terminal(args, clean_env())
    assert "\x1b[31m\x1b[1merror:\x1b[0m" in on_terminal
    assert "\x1b[" not in run_in_terminal(args, clean_env(NO_COLOR="1"))
    assert "\x1b[" not in run_in_terminal(args, clean_env(CI="true"))
    piped = subprocess.run(
        [sys.executable, "-m", "mediashortcodes", *args],
        capture_output=True,
        text=True,
        env=clean_env(),
        check=False,
        cwd=REPO,
    )
    assert piped.stderr.startswith("error: ") and "\x1b[" not in piped.stderr


def sandbox_site(tmp_path: Path, sandbox: Any) -> tuple[Path, dict[str, str]]:
    site = tmp_path / "site"
    (site / "content").mkdir(parents=True)
    (site / "templates").mkdir()
    (site / "templates" / "page.html").write_text("{{ page.content }}")
    for n in range(3):
        (site / "content" / f"p{n}.md").write_text(f"<% media_image {101 + n} alt=x %>\n")
    (site / "mediashortcodes.toml").write_text(
        f'[service]\ndownload_url = "{sandbox.download_url}"\nallow_http_downloads = true\n'
        '[site]\nbase_url = "https://www.example.org"\n'
        '[usage]\ncontact = "web@example.org"\nproject = "Progress"\n'
    )
    env = clean_env(**sandbox.env(), MEDIASHORTCODES_CACHE_DIR=str(tmp_path / "cache"))
    return site, env


def test_check_and_report_draw_a_progress_bar_that_log_lines_leave_whole(
    tmp_path: Path, sandbox: Any
) -> None:
    site, env = sandbox_site(tmp_path, sandbox)
    sandbox.fail(503, count=1, path_prefix="/1/folder")  # a retry to say while the bar runs
    checked = run_in_terminal(["check", str(site), "-v"], env)
    assert "checking media" in checked and "ok: shortcodes of 3 pages checked" in checked
    # The retry's line clears the bar's line first; the bar is drawn again after it.
    line = re.search(r"\r\x1b\[Kinfo: GET /1/foldertree answered HTTP 503[^\r\n]*\r?\n", checked)
    assert line, checked
    assert checked[line.end() :].startswith("\rchecking media  ["), checked

    assert "error" not in run_in_terminal(["build", str(site)], env)
    reported = run_in_terminal(["report", str(site)], env)
    assert "reporting pages" in reported and "3/3" in ANSI.sub("", reported), reported


def test_no_progress_bar_in_a_pipe(tmp_path: Path, sandbox: Any) -> None:
    site, env = sandbox_site(tmp_path, sandbox)
    done = subprocess.run(
        [sys.executable, "-m", "mediashortcodes", "check", str(site)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    assert "checking media" not in done.stderr and "\r" not in done.stderr


# -- shell completion -----------------------------------------------------------------------


def complete(words: str, cwd: Path) -> list[str]:
    env = {"_MEDIASHORTCODES_COMPLETE": "bash_complete", "COMP_WORDS": words}
    env["COMP_CWORD"] = str(len(words.split()) - (0 if words.endswith(" ") else 1))
    old = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(cli, [], env=env, prog_name="mediashortcodes")
    finally:
        os.chdir(old)
    return [line.split(",", 1)[1] for line in result.output.splitlines()]


def test_completion_offers_commands_options_and_the_cached_format_names(
    tmp_path: Path, sandbox: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    site, env = sandbox_site(tmp_path, sandbox)
    (site / "content" / "p0.md").write_text("<% media_image 101 thumb alt=x %>\n")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert "build" in complete("mediashortcodes b", site)
    assert "--verbose" in complete("mediashortcodes check --v", site)
    assert complete("mediashortcodes download 101 ", site) == ["original"]  # nothing cached
    result = CliRunner().invoke(cli, ["build", str(site), "-q"])
    assert result.exit_code == 0, result.output
    assert complete("mediashortcodes download 101 ", site)[:2] == ["original", "thumb"]
    assert complete("mediashortcodes download 101 TH", site) == ["thumb"]
