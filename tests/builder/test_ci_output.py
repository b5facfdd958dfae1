"""What CI reads: ``--format json`` on build, check and report, and GitHub Actions
annotations when run under GitHub Actions."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from mediashortcodes.cli import cli


@pytest.fixture
def site(make_site: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example site as ``site/``, run from its parent so problems read ``site/...``."""
    root = make_site()
    monkeypatch.chdir(root.parent)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    return root


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def as_json(result: Result) -> dict[str, Any]:
    return json.loads(result.stdout)  # stdout is the JSON and nothing else


def write(site: Path, name: str, text: str) -> None:
    (site / name).parent.mkdir(parents=True, exist_ok=True)
    (site / name).write_text(text)


def test_build_json_lists_every_error_and_warning_with_its_place(site: Path) -> None:
    write(site, "content/portrait.md", "<% media_image 117 %>\n\n<% media_image 99999 %>\n")
    result = run("build", "site", "--format", "json")
    assert result.exit_code == 1
    data = as_json(result)
    assert (data["command"], data["ok"], data["exit_code"]) == ("build", False, 1)
    by_code = {p["code"]: p for p in data["problems"]}
    assert by_code["media"] == {
        "path": "site/content/portrait.md",
        "line": 3,
        "column": 1,
        "severity": "error",
        "code": "media",
        "message": "file 99999: it does not exist or is not visible to this integration; "
        "check the id (mediashortcodes search QUERY lists files)",
    }
    assert by_code["gdpr"]["severity"] == "warning"
    assert (by_code["gdpr"]["path"], by_code["gdpr"]["line"]) == ("site/content/portrait.md", 1)
    assert "error: 1 problem found" in result.stderr  # people still read stderr


@pytest.mark.parametrize("command", ["build", "check"])
def test_a_stopped_build_still_gives_the_summary_of_what_it_counted(
    site: Path, command: str
) -> None:
    write(site, "content/portrait.md", "<% media_image 117 %>\n\n<% media_image 99999 %>\n")
    result = run(command, "site", "--format", "json")
    assert result.exit_code == 1
    summary = as_json(result)["summary"]
    assert (summary["pages"], summary["videos"], summary["placeholders"]) == (8, 6, 0)
    assert summary["images"] > 0 and summary["requests"] > 0 and summary["seconds"] > 0


def test_build_json_has_the_summary(site: Path) -> None:
    result = run("build", "site", "--format", "json")
    assert result.exit_code == 0, result.output
    data = as_json(result)
    assert data["ok"] is True and data["problems"] == []
    summary = data["summary"]
    assert set(summary) == {
        "pages", "images", "videos", "placeholders", "requests", "downloads", "cache_hits",
        "remote_hits", "encodes", "seconds",
    }  # fmt: skip
    assert (summary["pages"], summary["videos"], summary["placeholders"]) == (7, 6, 0)
    assert summary["downloads"] > 0 and summary["requests"] > 0


def test_check_json_and_a_configuration_error_as_a_problem(site: Path) -> None:
    data = as_json(run("check", "site", "--format", "json"))
    assert (data["command"], data["ok"], data["summary"]["pages"]) == ("check", True, 7)
    toml = site / "mediashortcodes.toml"
    toml.write_text(toml.read_text() + "\n[build]\njobs = 0\n")
    result = run("check", "site", "--format", "json")
    assert result.exit_code == 2
    assert as_json(result)["summary"] == {}  # stopped before it counted anything
    (problem,) = as_json(result)["problems"]
    assert (problem["severity"], problem["code"]) == ("error", "config")
    assert "[build] jobs must be from 1 to 256 (as -j), got 0" in problem["message"]


def test_report_json_dry_run_has_the_requests_and_prints_nothing_else(site: Path) -> None:
    assert run("build", "site").exit_code == 0
    result = run("report", "site", "--dry-run", "--format", "json")
    assert result.exit_code == 0, result.output
    summary = as_json(result)["summary"]
    assert summary["dry_run"] is True
    assert summary["additions"] == len(summary["requests"]) == 7
    assert {r["web"]["page"] for r in summary["requests"]} >= {"https://www.example.org/"}


def test_build_report_json_puts_the_report_beside_the_build(site: Path, sandbox: Any) -> None:
    sandbox.clear_usages()
    try:
        data = as_json(run("build", "site", "--report", "--format", "json"))
    finally:
        sandbox.clear_usages()
    assert data["ok"] is True
    assert data["summary"]["pages"] == 7
    assert data["report"]["pages_reported"] == 7 and data["report"]["failed"] == []


def test_under_github_actions_problems_are_annotations_on_stdout(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    write(site, "content/portrait.md", "<% media_image 117 %>\n\n<% media_image 99999 %>\n")
    result = run("build", "site")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "::error file=site/content/portrait.md,line=3,col=1,title=mediashortcodes (media)::"
        "file 99999: it does not exist or is not visible to this integration; check the id "
        "(mediashortcodes search QUERY lists files)",
        "::warning file=site/content/portrait.md,line=1,col=1,title=mediashortcodes (gdpr)::"
        "file 117 ('Portrait in red') has privacy status 'EXPIRED' (not OK); check its "
        "consent in the service",
    ]


def test_an_annotation_cannot_be_split_into_a_second_command() -> None:
    from mediashortcodes.cli.output import Outcome
    from mediashortcodes.errors import Problem

    hostile = Problem("a,b:c.md", 2, 0, "50% done\n::add-mask::x", "media")
    (line,) = Outcome("build", errors=[hostile]).annotations()
    assert line == (
        "::error file=a%2Cb%3Ac.md,line=2,title=mediashortcodes (media)::50%25 done%0A::add-mask::x"
    )
