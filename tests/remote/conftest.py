"""Fixtures of the remote cache's tests: one S3-compatible server (moto's, in its own
process on 127.0.0.1) per session, emptied before each test that asks for a bucket, and the
example site with its [cache] remote on that bucket."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mediashortcodes import config as config_mod

from .s3server import CREDENTIALS, Bucket, S3Server, s3_server


@pytest.fixture(scope="session")
def s3() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


@pytest.fixture
def bucket(s3: S3Server, monkeypatch: pytest.MonkeyPatch) -> Bucket:
    """An empty bucket on the session's server, and the credentials for it in the
    environment (where the storage library's chain finds them)."""
    for name, value in CREDENTIALS.items():
        monkeypatch.setenv(name, value)
    s3.reset()
    return s3.bucket("ci-cache")


EXAMPLE = Path(__file__).resolve().parents[2] / "example_site"


@pytest.fixture
def site(tmp_path: Path, sandbox: Any, bucket: Bucket, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example site on the sandbox, its [cache] remote on the test bucket."""
    from mediashortcodes.sandbox import DEMO_CREDENTIALS

    monkeypatch.setenv(config_mod.ENV_CLIENT_ID, DEMO_CREDENTIALS.client_id)
    monkeypatch.setenv(config_mod.ENV_CLIENT_SECRET, DEMO_CREDENTIALS.client_secret)
    monkeypatch.setenv(config_mod.ENV_REFRESH_TOKEN, DEMO_CREDENTIALS.refresh_token)
    for var in (config_mod.ENV_CACHE_REMOTE_WRITE, config_mod.ENV_CACHE_READ_ONLY):
        monkeypatch.delenv(var, raising=False)
    site = tmp_path / "site"
    shutil.copytree(EXAMPLE, site, ignore=shutil.ignore_patterns("_site", ".mediashortcodes"))
    config = site / "mediashortcodes.toml"
    config.write_text(
        config.read_text().replace(
            "sandbox = true",
            f'base_url = "{sandbox.base_url}"\nplayer_url = "http://player.test"\n'
            f'static_url = "http://static.test"\ndownload_url = "{sandbox.download_url}"',
        )
        + f'\n[cache]\nremote = "{bucket.url()}"\nremote_endpoint = "{bucket.endpoint}"\n'
        "remote_timeout = 5.0\n"
    )
    return site
