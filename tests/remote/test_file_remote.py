"""A shared cache on a shared disk (``[cache] remote = "file:///..."``, docs/ci.md): a
trusted build writes it, a fresh runner reads every medium from it, a fork writes nothing.
Issue 29, item 10: the folders were never created and nothing was written."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mediashortcodes import config as config_mod

EXAMPLE = Path(__file__).resolve().parents[2] / "example_site"


def files_under(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def site(tmp_path: Path, sandbox: Any) -> Path:
    site = tmp_path / "site"
    shutil.copytree(EXAMPLE, site, ignore=shutil.ignore_patterns("_site", ".mediashortcodes"))
    config = site / "mediashortcodes.toml"
    shared = (tmp_path / "shared disk" / "ci-cache").as_uri()  # not there yet
    config.write_text(
        config.read_text().replace(
            "sandbox = true",
            f'base_url = "{sandbox.base_url}"\nplayer_url = "http://player.test"\n'
            f'static_url = "http://static.test"\ndownload_url = "{sandbox.download_url}"',
        )
        + f'\n[cache]\nremote = "{shared}"\n'
    )
    return site


def build(site: Path, runner: str, *flags: str) -> subprocess.CompletedProcess[str]:
    from mediashortcodes.sandbox import DEMO_CREDENTIALS

    env = {k: v for k, v in os.environ.items() if not k.startswith("MEDIASHORTCODES_CACHE")} | {
        config_mod.ENV_CLIENT_ID: DEMO_CREDENTIALS.client_id,
        config_mod.ENV_CLIENT_SECRET: DEMO_CREDENTIALS.client_secret,
        config_mod.ENV_REFRESH_TOKEN: DEMO_CREDENTIALS.refresh_token,
        config_mod.ENV_CACHE_DIR: str(site.parent / f"cache-{runner}"),
    }
    command = [sys.executable, "-m", "mediashortcodes", "build", str(site)]
    command += ["--output", str(site.parent / f"out-{runner}"), *flags]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)


def test_a_file_remote_is_written_by_a_trusted_build_and_read_by_a_fresh_one(
    site: Path, sandbox: Any
) -> None:
    shared = site.parent / "shared disk" / "ci-cache"
    # A fork's build (read-only by default) writes nothing there, not even a folder.
    fork = build(site, "fork")
    assert fork.returncode == 0, fork.stderr
    assert not (site.parent / "shared disk").exists()
    # --cache-read-only wins over --cache-write: an untrusted build, whatever it asks.
    fork = build(site, "fork-2", "--cache-write", "--cache-read-only")
    assert fork.returncode == 0, fork.stderr
    assert not (site.parent / "shared disk").exists()

    trusted = build(site, "main", "--cache-write")
    assert trusted.returncode == 0, trusted.stderr
    assert "remote cache" not in trusted.stderr, trusted.stderr
    written = files_under(shared)
    blobs = {name: data for name, data in written.items() if "/blobs/" in name}
    assert blobs and all(hashlib.sha256(d).hexdigest() == n[-64:] for n, d in blobs.items())
    assert not [p for p in shared.rglob("*") if p.name.startswith(".")]  # no temporary left

    # A fresh runner: an empty local cache, and the service answers nothing it could ask.
    sandbox.reset_stats()
    fresh = build(site, "pr-1", "--cache-read-only")
    assert fresh.returncode == 0, fresh.stderr
    assert sum(sandbox.stats.values()) == 0, sandbox.stats
    assert "remote cache" not in fresh.stderr, fresh.stderr
    assert files_under(site.parent / "out-pr-1") == files_under(site.parent / "out-main")
    assert files_under(shared) == written  # a reader writes nothing
