"""Static files are copied as they are, never over (or under) what the build writes."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli


def build(site: Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["build", str(site)])
    return result.exit_code, result.output


@pytest.fixture
def site(make_site: Callable[..., Path]) -> Path:
    root = make_site()
    assert build(root)[0] == 0  # a previous output, to be kept
    return root


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_static_file_in_the_way_of_an_image_a_page_or_the_manifest_is_refused(site: Path):
    before = snapshot(site / "_site")
    image = next((site / "_site" / "media").iterdir()).name
    for name in (f"media/{image}", "about/index.html", "media-usage.json"):
        (site / "static" / name).parent.mkdir(parents=True, exist_ok=True)
        (site / "static" / name).write_bytes(b"not what the build writes")
    code, output = build(site)
    assert code == 2, output
    assert "3 static files in " in output
    assert " would replace, or be replaced by, what the build writes" in output
    for name in (f"media/{image}", "about/index.html", "media-usage.json"):
        assert f"static/{name} is in the way of the build's {name}" in output
    assert snapshot(site / "_site") == before


def test_a_static_file_where_the_build_needs_a_folder_is_refused(site: Path):
    (site / "static" / "gallery").write_text("a file named like a page's folder")
    code, output = build(site)
    assert code == 2 and "static/gallery is in the way of the build's gallery/index.html" in output
    assert "Traceback" not in output


def test_a_symlink_back_up_the_tree_is_skipped_with_a_warning_not_copied_for_ever(site: Path):
    os.symlink("..", site / "static" / "loop")
    code, output = build(site)
    assert code == 0, output
    assert "static/loop: warning: a symlink or not a regular file: skipped" in output
    assert not (site / "_site" / "loop").exists()


def test_a_dangling_symlink_such_as_an_editors_lock_file_is_skipped(site: Path):
    os.symlink("nobody@host.1234", site / "static" / ".#style.css")
    code, output = build(site)
    assert code == 0, output
    assert not (site / "_site" / ".#style.css").exists()
    assert (site / "_site" / "style.css").is_file()
