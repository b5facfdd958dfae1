"""Fixtures of the remote cache's tests: one S3-compatible server (moto's, in its own
process on 127.0.0.1) per session, emptied before each test that asks for a bucket."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

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
