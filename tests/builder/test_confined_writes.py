"""A contributor's page or static file can publish only itself: a symlink in content/ or
static/ is never followed, and a page name cannot put its HTML outside its folder."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli

SECRET = "MEDIASHORTCODES_REFRESH_TOKEN=planted-refresh-token-0123456789"


def build(site: Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["build", str(site)], catch_exceptions=False)
    return result.exit_code, result.output


def published_bytes(site: Path) -> bytes:
    return b"".join(p.read_bytes() for p in (site / "_site").rglob("*") if p.is_file())


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "environ").write_text(SECRET)
    (folder / "notes.md").write_text(f"---\ntitle: Notes\n---\n\n{SECRET}\n")
    return folder


@pytest.mark.parametrize(
    ("link", "target"),
    [
        ("static/environ.txt", "environ"),
        ("static/leak", "."),
        ("content/leak.md", "notes.md"),
        ("content/leak", "."),
    ],
    ids=["static file", "static folder", "content page", "content folder"],
)
def test_a_symlink_out_of_the_site_is_skipped_with_a_warning_never_published(
    make_site: Callable[..., Path], secret: Path, link: str, target: str
) -> None:
    site = make_site()
    os.symlink(secret / target, site / link)

    code, output = build(site)
    assert code == 0, output
    assert f"{link}: warning: a symlink or not a regular file: skipped" in output
    assert SECRET.encode() not in published_bytes(site)


@pytest.mark.parametrize("page", ["content/...md", "content/articles/...md", "content/..md"])
def test_a_page_named_with_dots_only_is_exit_2_and_writes_nothing(
    make_site: Callable[..., Path], tmp_path: Path, page: str
) -> None:
    site = make_site({page: "---\ntitle: Dots\n---\n\nReplaced.\n"})
    before = {p for p in tmp_path.rglob("*") if p.is_file()}

    code, output = build(site)
    assert code == 2, output
    assert f"{page}: a page's name or folder cannot be dots only" in output
    after = {p for p in tmp_path.rglob("*") if p.is_file()}
    # Outside the site: the cache and the config folder (the page memo's key).
    assert {p for p in after - before if not {"cache", "config"} & set(p.parts)} == set()
