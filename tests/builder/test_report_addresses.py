"""Usage data that cannot be wrong: whose pages a report names, and where it refuses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from mediashortcodes.cli import cli
from mediashortcodes.usage.manifest import Manifest

from .conftest import small_site

SITE = "https://www.mysite.test"
OTHER = "https://www.example.org"
USAGE = '[usage]\ncontact = "Ann"\nproject = "Web"\n'


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def built(root: Path, sandbox: Any, base_url: str | None = SITE) -> Path:
    """A one-page site pointed at the sandbox, with or without ``[site] base_url``."""
    site_table = f'[site]\nbase_url = "{base_url}"\n' if base_url else ""
    files = {
        "content/index.md": "<% media_image 101 %>\n",
        "templates/page.html": "{{ page.content }}\n",
    }
    site = small_site(root, sandbox, files, player=False)
    toml = site / "mediashortcodes.toml"
    toml.write_text(toml.read_text() + site_table + USAGE)
    return site


@pytest.fixture
def reported(sandbox: Any, env: Path) -> Any:
    sandbox.clear_usages()
    yield sandbox
    sandbox.clear_usages()


def test_a_previous_manifest_of_another_site_is_refused_naming_both(
    reported: Any, tmp_path: Path
) -> None:
    site = built(tmp_path / "site", reported)
    assert invoke("build", str(site)).exit_code == 0
    other = Manifest.from_pages(OTHER, [(f"{OTHER}/news/", "News", [101, 102])])
    other.write_atomic(tmp_path / "other.json")
    result = invoke("report", str(site), "--previous", str(tmp_path / "other.json"))
    assert result.exit_code == 2, result.output
    assert OTHER in result.stderr and SITE in result.stderr
    assert reported.usages == []


def test_report_refuses_a_site_without_base_url_and_names_the_key(
    reported: Any, tmp_path: Path
) -> None:
    site = built(tmp_path / "site", reported, base_url=None)
    build = invoke("build", str(site))
    assert build.exit_code == 0, build.output  # a build alone goes on
    manifest = json.loads((site / "_site" / "media-usage.json").read_text())
    assert OTHER not in json.dumps(manifest)  # no made-up address
    result = invoke("report", str(site))
    assert result.exit_code == 2
    assert "[site] base_url is not set" in result.stderr
    assert reported.usages == []


def test_build_report_without_base_url_refuses_before_building(
    reported: Any, tmp_path: Path
) -> None:
    site = built(tmp_path / "site", reported, base_url=None)
    result = invoke("build", str(site), "--report")
    assert result.exit_code == 2
    assert "[site] base_url is not set" in result.stderr
    assert not (site / "_site").exists()
    assert reported.usages == []


def test_a_preview_build_is_named_by_base_url_and_never_reported_unless_asked(
    reported: Any, tmp_path: Path
) -> None:
    site = built(tmp_path / "site", reported)
    preview = "https://pr-7.preview.test"
    result = invoke("build", str(site), "--base-url", preview)
    assert result.exit_code == 0, result.output
    assert list(Manifest.load(site / "_site" / "media-usage.json").pages) == [f"{preview}/"]
    refused = invoke("report", str(site))
    assert refused.exit_code == 2
    assert f"was built for {preview}" in refused.stderr
    assert reported.usages == []

    asked = invoke("build", str(site), "--base-url", preview, "--report")
    assert asked.exit_code == 0, asked.output
    assert [u["web"]["page"] for u in reported.usages] == [f"{preview}/"]


def test_base_url_must_be_an_absolute_address(tmp_path: Path, reported: Any) -> None:
    site = built(tmp_path / "site", reported)
    result = invoke("build", str(site), "--base-url", "preview.test")
    assert result.exit_code == 2
    assert "--base-url must be an absolute http(s) URL" in result.stderr


def test_first_deploy_with_previous_missing_ok_reports_every_page(
    reported: Any, tmp_path: Path
) -> None:
    site = built(tmp_path / "site", reported)
    assert invoke("build", str(site)).exit_code == 0
    missing = str(tmp_path / "live" / "media-usage.json")
    refused = invoke("report", str(site), "--previous", missing)
    assert refused.exit_code == 2
    assert "--previous-missing ok" in refused.stderr
    result = invoke("report", str(site), "--previous", missing, "--previous-missing", "ok")
    assert result.exit_code == 0, result.output
    assert [u["web"]["page"] for u in reported.usages] == [f"{SITE}/"]
    assert "no such file; --previous-missing ok" in result.stderr


def test_a_previous_url_that_cannot_be_reached_is_exit_3(reported: Any, tmp_path: Path) -> None:
    site = built(tmp_path / "site", reported)
    assert invoke("build", str(site)).exit_code == 0
    result = invoke(
        "report",
        str(site),
        "--previous",
        "http://127.0.0.1:9/media-usage.json",
        "--previous-missing",
        "ok",
    )
    assert result.exit_code == 3
    assert "cannot fetch it" in result.stderr
    assert reported.usages == []
