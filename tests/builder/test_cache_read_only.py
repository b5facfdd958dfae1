"""A read-only cache: an untrusted build (a fork's pull request) reads the restored cache
and never writes it, so it cannot poison what the main branch restores."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli

from .conftest import small_site

LAYOUT = "<html><body>{{ page.content }}</body></html>\n"
PAGE = "---\ntitle: Home\n---\n\n<% media_image 101 %>\n\n<% media_image 102 thumb %>\n"


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.output


def snapshot_of(folder: Path) -> dict[str, tuple[str, int]]:
    """Every entry under ``folder``: its content hash (or "dir") and its mtime."""
    if not folder.exists():
        return {}
    return {
        str(p.relative_to(folder)): (
            "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest(),
            p.stat().st_mtime_ns,
        )
        for p in sorted(folder.rglob("*"))
    }


@pytest.fixture
def site(tmp_path: Path, sandbox: Any, env: Path) -> Path:
    files = {"templates/page.html": LAYOUT, "content/index.md": PAGE}
    return small_site(tmp_path / "site", sandbox, files, player=False)


@pytest.mark.parametrize(
    "how",
    [
        {"args": ["--cache-read-only"]},
        {"env": {"MEDIASHORTCODES_CACHE_READ_ONLY": "1"}},
        {"toml": "\n[cache]\nread_only = true\n"},
    ],
    ids=["option", "environment", "config"],
)
def test_a_read_only_build_publishes_the_site_and_writes_nothing_into_the_cache(
    site: Path, env: Path, how: dict[str, Any]
) -> None:
    if "toml" in how:
        with (site / "mediashortcodes.toml").open("a") as config:
            config.write(how["toml"])
    args = ["build", str(site), *how.get("args", [])]

    code, out = run(*args, env=how.get("env"))  # an empty cache: everything fetched
    assert code == 0, out
    assert len(list((site / "_site" / "media").iterdir())) == 2
    assert not env.exists(), "the cache folder was not even created"

    # A trusted build fills the cache (the environment's "0" wins over the config).
    code, out = run("build", str(site), env={"MEDIASHORTCODES_CACHE_READ_ONLY": "0"})
    assert code == 0, out
    before = snapshot_of(env)
    code, out = run(*args, env=how.get("env"))
    assert code == 0 and "0 downloads" in out and "0 requests" in out, out
    assert snapshot_of(env) == before


def test_a_read_only_build_never_deletes_damage_it_only_skips_it(site: Path, env: Path) -> None:
    assert run("build", str(site))[0] == 0
    (blob, *_) = sorted(p for p in env.glob("*/blobs/*/*"))
    blob.chmod(0o644)
    blob.write_bytes(b"<html>".ljust(blob.stat().st_size, b" "))
    before = snapshot_of(env)

    code, out = run("build", str(site), "--cache-read-only")
    assert code == 0, out
    assert "1 download" in out and "read-only" in out, out
    assert snapshot_of(env) == before
    code, out = run("cache", "verify", str(site), env={"MEDIASHORTCODES_CACHE_READ_ONLY": "yes"})
    assert code == 0 and f"would remove {blob.relative_to(blob.parents[2]).as_posix()}" in out
    assert snapshot_of(env) == before


def test_a_read_only_setting_that_is_not_a_yes_or_no_is_exit_2(site: Path) -> None:
    code, out = run("build", str(site), env={"MEDIASHORTCODES_CACHE_READ_ONLY": "maybe"})
    assert code == 2
    assert "MEDIASHORTCODES_CACHE_READ_ONLY must be 1, true, yes or on" in out
