"""``mediashortcodes pick``: prints the address, opens the browser, stops on Ctrl-C."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli
from mediashortcodes.picker import cli as picker_cli


@pytest.fixture
def sandbox_site(tmp_path: Path) -> Path:
    (tmp_path / "mediashortcodes.toml").write_text("[service]\nsandbox = true\n")
    return tmp_path


def visit_then_interrupt(opened: list[str], seen: dict) -> None:
    """Stands in for the wait: the page is used as a browser would, then Ctrl-C."""
    with httpx.Client(follow_redirects=True, timeout=10) as browser:
        page = browser.get(opened[0])
        seen["page"] = page.status_code
        seen["folders"] = browser.get(str(page.url.join("/api/folders"))).json()
    raise KeyboardInterrupt


def test_pick_serves_the_site_service_and_stops_on_ctrl_c(
    sandbox_site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    seen: dict = {}
    monkeypatch.setattr("webbrowser.open", opened.append)
    monkeypatch.setattr(
        picker_cli, "wait_until_interrupted", lambda: visit_then_interrupt(opened, seen)
    )
    result = CliRunner().invoke(cli, ["pick", str(sandbox_site), "--locale", "sv_SE"])
    assert result.exit_code == 0, result.output
    assert f"Media picker running at {opened[0]}" in result.output
    assert opened[0].startswith("http://127.0.0.1:")
    assert "Stopped." in result.output
    assert seen["page"] == 200
    assert seen["folders"][0]["name"] == "Nature"


def test_no_browser_only_prints_the_address(
    sandbox_site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", opened.append)

    def interrupt() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(picker_cli, "wait_until_interrupted", interrupt)
    result = CliRunner().invoke(cli, ["pick", str(sandbox_site), "--no-browser"])
    assert result.exit_code == 0, result.output
    assert opened == []
    assert "/?token=" in result.output


def test_an_unknown_locale_is_a_usage_error_naming_the_choices(sandbox_site: Path) -> None:
    result = CliRunner().invoke(cli, ["pick", str(sandbox_site), "--locale", "de_DE"])
    assert result.exit_code == 2
    assert "sv_SE" in result.output and "fi_FI" in result.output


def test_missing_credentials_for_a_real_service_exit_with_the_variable_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("CLIENT_ID", "CLIENT_SECRET", "REFRESH_TOKEN"):
        monkeypatch.delenv(f"MEDIASHORTCODES_{name}", raising=False)
    (tmp_path / "mediashortcodes.toml").write_text(
        '[service]\nbase_url = "https://api.example.com"\nplayer_url = "https://p.example.com"\n'
        'static_url = "https://s.example.com"\n'
    )
    result = CliRunner().invoke(cli, ["pick", str(tmp_path), "--no-browser"])
    assert result.exit_code == 2
    assert "MEDIASHORTCODES_CLIENT_ID" in result.output
