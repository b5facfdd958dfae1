"""``mediashortcodes report`` without a service: dry run, disabled reporting, bad input."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli
from mediashortcodes.usage.manifest import Manifest

SITE = "https://s.org"


def make_site(root: Path, usage: str = 'contact = "Ann"\nproject = "Web"\n') -> Path:
    (root / "_site").mkdir(parents=True)
    (root / "mediashortcodes.toml").write_text(
        f'[service]\nbase_url = "http://127.0.0.1:9"\nplayer_url = "http://p"\n'
        f'static_url = "http://s"\n[site]\nbase_url = "{SITE}"\n[usage]\n{usage}'
    )
    Manifest.from_pages(
        SITE, [(f"{SITE}/", "Home", [2, 1]), (f"{SITE}/about/", "About", [])]
    ).write_atomic(root / "_site" / "media-usage.json")
    return root


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    for name in ("CLIENT_ID", "CLIENT_SECRET", "REFRESH_TOKEN", "BASE_URL"):
        monkeypatch.delenv(f"MEDIASHORTCODES_{name}", raising=False)
    return CliRunner()


def test_dry_run_prints_each_request_and_sends_nothing(runner: CliRunner, tmp_path: Path) -> None:
    site = make_site(tmp_path)
    result = runner.invoke(cli, ["report", str(site), "--dry-run"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("POST /1/files/multiple/usages {")
    body = json.loads(lines[0].removeprefix("POST /1/files/multiple/usages "))
    assert body["id"] == [1, 2]
    assert body["web"] == {"page": f"{SITE}/", "pageName": "Home"}
    assert lines[-1] == (
        "dry run: 1 page would be reported (1 addition, 0 removals), 1 unchanged; nothing was sent"
    )
    assert not (site / ".mediashortcodes").exists()


def test_a_dry_run_shows_a_page_name_steering_the_terminal_escaped(
    runner: CliRunner, tmp_path: Path
) -> None:
    site = make_site(tmp_path)
    Manifest.from_pages(SITE, [(f"{SITE}/", "Home \u202egnp.exe \x9b31m", [1])]).write_atomic(
        site / "_site" / "media-usage.json"
    )
    result = runner.invoke(cli, ["report", str(site), "--dry-run"])
    assert result.exit_code == 0, result.output
    line = result.stdout.splitlines()[0]
    assert "\u202e" not in line and "\x9b" not in line
    body = json.loads(line.removeprefix("POST /1/files/multiple/usages "))
    assert body["web"]["pageName"] == "Home \u202egnp.exe \x9b31m"  # the same text, escaped


def test_disabled_reporting_says_so(runner: CliRunner, tmp_path: Path) -> None:
    site = make_site(tmp_path, usage="enabled = false\n")
    result = runner.invoke(cli, ["report", str(site)])
    assert result.exit_code == 0
    assert "usage reporting is disabled" in result.stdout


def test_a_site_not_built_yet_is_a_usage_error(runner: CliRunner, tmp_path: Path) -> None:
    site = make_site(tmp_path)
    (site / "_site" / "media-usage.json").unlink()
    result = runner.invoke(cli, ["report", str(site), "--dry-run"])
    assert result.exit_code == 2
    assert "run `mediashortcodes build` first" in result.stderr
    assert "`mediashortcodes report --output DIR`" in result.stderr  # for a site built elsewhere


def test_a_previous_that_cannot_be_read_is_a_usage_error(runner: CliRunner, tmp_path: Path) -> None:
    site = make_site(tmp_path)
    result = runner.invoke(cli, ["report", str(site), "--previous", str(tmp_path / "nope.json")])
    assert result.exit_code == 2
    assert "--previous" in result.stderr


DEEP = '{"site": "https://s.org", "pages": {"x": ' + "[" * 100_000 + "]" * 100_000 + "}}"


@pytest.mark.parametrize("where", ["previous", "state", "built"])
def test_deeply_nested_json_is_a_usage_error_naming_the_file(
    runner: CliRunner, tmp_path: Path, where: str
) -> None:
    site = make_site(tmp_path)
    paths = {
        "previous": tmp_path / "live.json",
        "state": site / ".mediashortcodes" / "usage-state.json",
        "built": site / "_site" / "media-usage.json",
    }
    paths[where].parent.mkdir(exist_ok=True)
    paths[where].write_text(DEEP)
    args = ["--previous", str(paths["previous"])] if where == "previous" else []
    result = runner.invoke(cli, ["report", str(site), "--dry-run", *args])
    assert result.exit_code == 2, result.output
    assert f"{paths[where]}: nested too deeply" in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize("bad", ["-1", "1" * 30, "9223372036854775808"])
def test_a_previous_with_file_ids_no_service_has_is_refused_as_malformed(
    runner: CliRunner, tmp_path: Path, bad: str
) -> None:
    site = make_site(tmp_path)
    live = tmp_path / "live.json"
    live.write_text(f'{{"site": "{SITE}", "pages": {{"{SITE}/old/": {{"files": [{bad}]}}}}}}')
    result = runner.invoke(cli, ["report", str(site), "--dry-run", "--previous", str(live)])
    assert result.exit_code == 2, result.output
    assert f"--previous {live}: page {SITE}/old/: file ids must be" in result.stderr
    assert "POST" not in result.stdout


def test_report_jobs_is_shown_like_the_other_commands_jobs(runner: CliRunner) -> None:
    report = runner.invoke(cli, ["report", "--help"], terminal_width=200).output
    build = runner.invoke(cli, ["build", "--help"], terminal_width=200).output
    line = " ".join(next(x for x in report.splitlines() if "--jobs" in x).split())
    assert line == " ".join(next(x for x in build.splitlines() if "--jobs" in x).split())
    assert "-j, --jobs N" in line and "16" in line and "INTEGER" not in line


def test_missing_credentials_are_named_before_anything_is_sent(
    runner: CliRunner, tmp_path: Path
) -> None:
    result = runner.invoke(cli, ["report", str(make_site(tmp_path))])
    assert result.exit_code == 2
    assert "MEDIASHORTCODES_CLIENT_ID" in result.stderr


def test_empty_usage_settings_give_a_warning(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(cli, ["report", str(make_site(tmp_path, usage="")), "--dry-run"])
    assert "warning: [usage] contact is empty" in result.stderr


def test_an_unchanged_site_needs_no_credentials(runner: CliRunner, tmp_path: Path) -> None:
    site = make_site(tmp_path)
    state = site / ".mediashortcodes" / "usage-state.json"
    Manifest.load(site / "_site" / "media-usage.json").write_atomic(state)
    result = runner.invoke(cli, ["report", str(site)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == (
        "0 pages reported (0 additions, 0 removals), 2 unchanged"
    )


def test_output_reports_the_build_written_there(runner: CliRunner, tmp_path: Path) -> None:
    site = make_site(tmp_path)
    elsewhere = tmp_path / "public"
    Manifest.from_pages(SITE, [(f"{SITE}/new/", "New", [9])]).write_atomic(
        elsewhere / "media-usage.json"
    )
    result = runner.invoke(cli, ["report", str(site), "--output", str(elsewhere), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert [
        json.loads(line.split(" ", 2)[2])["web"]["page"] for line in result.stdout.splitlines()[:-1]
    ] == [f"{SITE}/new/"]


def test_a_manifest_built_for_another_base_url_is_refused(
    runner: CliRunner, tmp_path: Path
) -> None:
    site = make_site(tmp_path)
    toml = site / "mediashortcodes.toml"
    toml.write_text(toml.read_text().replace(SITE, "https://new.s.org"))
    result = runner.invoke(cli, ["report", str(site), "--dry-run"])
    assert result.exit_code == 2
    assert f"was built for {SITE}, but [site] base_url is now https://new.s.org" in result.stderr
    assert "run `mediashortcodes build` first" in result.stderr


def test_a_usage_state_lock_that_cannot_be_made_is_a_clear_error(
    runner: CliRunner, tmp_path: Path
) -> None:
    site = make_site(tmp_path)
    state = site / ".mediashortcodes" / "usage-state.json"
    Manifest.load(site / "_site" / "media-usage.json").write_atomic(state)
    (site / ".mediashortcodes" / "usage-state.json.lock").mkdir()
    result = runner.invoke(cli, ["report", str(site)])
    assert result.exit_code == 2, result.output
    assert "usage-state.json.lock: cannot lock the usage state" in result.stderr
    assert "Traceback" not in result.output + result.stderr


def test_a_usage_state_folder_that_is_a_link_out_of_the_site_is_never_read_or_written(
    runner: CliRunner, tmp_path: Path
) -> None:
    site = make_site(tmp_path / "site")
    elsewhere = tmp_path / "elsewhere"
    # A planted state there: read, it would have the report remove file 5 from a page.
    planted = Manifest.from_pages(SITE, [(f"{SITE}/gone/", "Gone", [5])])
    planted.write_atomic(elsewhere / "usage-state.json")
    os.symlink(elsewhere, site / ".mediashortcodes")

    result = runner.invoke(cli, ["report", str(site), "--dry-run"])
    assert result.exit_code == 2, result.output
    assert (
        f"{site / '.mediashortcodes'}: is a symlink, so nothing is read or written through it"
        in result.stderr
    )
    assert "/gone/" not in result.stdout
    assert sorted(p.name for p in elsewhere.iterdir()) == ["usage-state.json"]
    assert Manifest.load(elsewhere / "usage-state.json") == planted
