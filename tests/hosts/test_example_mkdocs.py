"""The MkDocs version of the example magazine builds with one command against the embedded
sandbox, as the README says."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .sites import broken_media, run

pytest.importorskip("mkdocs")
pytest.importorskip("material")

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).resolve().parents[2] / "example_mkdocs"


def test_the_example_builds_with_every_image_and_film(
    tmp_path: Path, host_env: dict[str, str]
) -> None:
    project = tmp_path / "example_mkdocs"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("site", ".cache"))
    # service: {sandbox: true}: no credentials, no service URL; only the test's cache.
    env = {
        k: v
        for k, v in host_env.items()
        if not k.startswith("MEDIASHORTCODES_") or k == "MEDIASHORTCODES_CACHE_DIR"
    }
    done = run(["mkdocs", "build"], project, env)
    assert done.returncode == 0, done.stderr
    site = project / "site"
    assert broken_media(site) == []
    pages = json.loads((site / "media-usage.json").read_text())["pages"]
    assert len(pages) == 7 and pages["https://www.example.org/gallery/"]["files"] == [
        101, 102, 103, 104, 105, 107, 109, 110, 112, 118,
    ]  # fmt: skip
    assert (site / "gallery/index.html").read_text().count("<img") == 10  # md_in_html
    assert "<iframe" in (site / "videos/index.html").read_text()
