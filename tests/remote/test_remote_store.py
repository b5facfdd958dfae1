"""The remote store against a real S3-compatible server: conditional writes, read-only,
bounded reads, and failures that cost one deadline and one warning, never an exception."""

from __future__ import annotations

import asyncio
import socket
import sys

import pytest

from mediashortcodes.errors import ConfigError
from mediashortcodes.media.remote import MAX_FAILURES, RemoteStore, open_remote

from .s3server import Bucket, S3Server


def remote(bucket: Bucket, *, write: bool = False, timeout: float = 10.0, warn=None):
    return open_remote(
        bucket.url("p"),
        endpoint=bucket.endpoint,
        write=write,
        timeout=timeout,
        warn=(warn if warn is not None else pytest.fail),
    )


async def test_a_blob_is_written_only_if_absent_and_a_record_is_replaced(bucket: Bucket) -> None:
    store = remote(bucket, write=True)
    try:
        assert await store.read("blobs/ab/abc.png", limit=100) is None
        await store.write("blobs/ab/abc.png", b"first", create=True)
        await store.write("blobs/ab/abc.png", b"second", create=True)  # already there: kept
        await store.write("records/r.json", b"old", create=False)
        await store.write("records/r.json", b"new", create=False)
    finally:
        await store.aclose()
    assert bucket.objects() == {"p/blobs/ab/abc.png": b"first", "p/records/r.json": b"new"}
    assert store.stats.writes == 3


async def test_a_ranged_read_gives_exactly_its_bytes_or_nothing(bucket: Bucket) -> None:
    bucket.put("p/pack.bin", bytes(range(100)))
    store = remote(bucket)
    try:
        assert await store.read_range("pack.bin", 10, 20) == bytes(range(10, 20))
        assert await store.read_range("pack.bin", 90, 110) is None  # the object is shorter
        assert await store.read_range("absent.bin", 0, 10) is None
    finally:
        await store.aclose()
    assert store.stats.failures == 0


async def test_a_write_says_whether_the_object_is_there(bucket: Bucket) -> None:
    store = remote(bucket, write=True)
    try:
        assert await store.write("blobs/ab/abc.png", b"first", create=True)
        assert await store.write("blobs/ab/abc.png", b"second", create=True)  # there: kept
    finally:
        await store.aclose()
    reader = remote(bucket)
    try:
        assert not await reader.write("records/r.json", b"x", create=False)  # may not write
    finally:
        await reader.aclose()


async def test_a_read_only_store_sends_no_write(bucket: Bucket) -> None:
    store = remote(bucket)
    try:
        await store.write("records/r.json", b"x", create=False)
    finally:
        await store.aclose()
    assert bucket.objects() == {}
    assert store.stats.puts == 0


async def test_a_read_stops_one_byte_past_its_limit(bucket: Bucket) -> None:
    bucket.put("p/big", b"x" * 10_000)
    store = remote(bucket)
    try:
        assert await store.read("big", limit=10) == b"x" * 11
    finally:
        await store.aclose()


async def test_a_frozen_server_costs_one_deadline_and_one_warning(
    s3: S3Server, bucket: Bucket
) -> None:
    warnings: list[str] = []
    store = remote(bucket, timeout=0.5, warn=warnings.append)
    s3.pause()
    try:
        found = await asyncio.gather(*(store.read(f"k{i}", limit=10) for i in range(40)))
    finally:
        s3.resume()
        await store.aclose()
    assert found == [None] * 40
    # The calls in flight when it froze timed out (and the few that got a turn before the
    # third failure); the breaker skipped the rest: a wait of about two deadlines at most.
    assert store.stats.reads < 16 + MAX_FAILURES and not store.available
    assert warnings == [
        f"the remote cache {bucket.url('p')} failed (no answer within 0.5 s); this build "
        "goes on with the local cache and the service"
    ]


async def test_an_unreachable_server_is_one_warning_and_no_error(bucket: Bucket) -> None:
    warnings: list[str] = []
    with socket.socket() as probe:  # a port where nothing listens
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    store = open_remote(bucket.url("p"), endpoint=closed, write=True, warn=warnings.append)
    try:
        assert await store.read("k", limit=10) is None
        await store.write("k", b"x", create=True)
    finally:
        await store.aclose()
    assert len(warnings) == 1
    assert warnings[0].startswith(f"the remote cache {bucket.url('p')} failed (")


async def test_memory_urls_work_for_tests_and_experiments() -> None:
    store = open_remote("memory://remote-store-test/p", write=True)
    await store.write("x", b"1", create=True)
    await store.write("x", b"2", create=True)
    assert await store.read("x", limit=10) == b"1"
    assert await store.read("y", limit=10) is None
    await store.aclose()


async def test_a_file_url_writes_a_folder_whole_and_makes_its_folders(tmp_path) -> None:
    root = tmp_path / "shared disk" / "cache"  # not there yet; a space in its URL
    store = open_remote(root.as_uri(), write=True, warn=pytest.fail)
    await store.write("blobs/ab/x", b"1", create=True)
    await store.write("blobs/ab/x", b"2", create=True)  # there already: kept
    await store.write("pack.json", b"old", create=False)
    await store.write("pack.json", b"new", create=False)
    assert await store.read("blobs/ab/x", limit=10) == b"1"
    assert await store.read_range("pack.json", 1, 3) == b"ew"
    assert await store.read("nothing", limit=10) is None
    await store.aclose()
    assert sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()) == [
        "blobs/ab/x",
        "pack.json",
    ]


async def test_a_reader_of_a_file_url_never_sees_half_an_object(tmp_path) -> None:
    store = open_remote(tmp_path.as_uri(), write=True, warn=pytest.fail)
    size = 4 << 20
    await store.write("pack.json", b"a" * size, create=False)
    seen: set[bytes] = set()

    async def read() -> None:
        for _ in range(40):
            data = await store.read("pack.json", limit=size)
            assert data is not None and len(data) == size and len(set(data)) == 1
            seen.add(data[:1])

    async def write() -> None:
        for turn in range(20):
            await store.write("pack.json", (b"b" if turn % 2 else b"a") * size, create=False)

    await asyncio.gather(read(), write())
    assert seen


def test_an_unknown_protocol_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown storage protocol 'nosuch'"):
        open_remote("nosuch://bucket/prefix")


def test_an_endpoint_is_for_s3_urls_only() -> None:
    with pytest.raises(ConfigError, match="remote_endpoint is for s3://"):
        open_remote("memory://x/y", endpoint="http://127.0.0.1:9000")


class _Refusing:
    """Objects whose every call fails with a message that echoes a credential."""

    def __init__(self, secret: str) -> None:
        self.secret = secret

    async def set_up(self) -> None:
        return None

    async def get(self, name: str, end: int, start: int = 0) -> bytes:
        raise PermissionError(f"access denied for key {self.secret} at s3://b/p/{name}?X-Sig=abc")


async def test_a_failure_warning_never_shows_the_storage_credentials(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    secret = "aws-secret-S3CR3T-value"
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret)
    warnings: list[str] = []
    store = RemoteStore(_Refusing(secret), display="s3://b/p", warn=warnings.append)
    assert await store.read("k", limit=10) is None
    (warning,) = warnings
    assert secret not in warning and "X-Sig" not in warning
    assert "PermissionError: access denied for key *** at s3://b/p/k" in warning


def test_a_remote_without_its_library_names_the_extra_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("obstore", "fsspec"):  # as if the extra were not installed
        monkeypatch.setitem(sys.modules, name, None)
    for url in ("s3://bucket/prefix", "memory://bucket/prefix"):
        with pytest.raises(ConfigError, match=r'pip install "mediashortcodes\[remote\]"'):
            open_remote(url)


async def test_a_runner_without_credentials_reads_nothing_and_warns_once(
    bucket: Bucket, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    for name in ("AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"):
        monkeypatch.setenv(name, str(tmp_path / "none"))
    bucket.put("p/k", b"data")
    warnings: list[str] = []
    store = remote(bucket, warn=warnings.append)
    try:
        assert [await store.read("k", limit=10) for _ in range(3)] == [None] * 3
    finally:
        await store.aclose()
    (warning,) = warnings
    assert warning.startswith(f"the remote cache {bucket.url('p')} failed (PermissionError: no ")
    assert store.stats.reads == 0  # nothing sent without credentials


async def test_credentials_from_a_profile_come_through_boto3s_chain(
    bucket: Bucket, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from .s3server import CREDENTIALS

    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(name, raising=False)
    profile = tmp_path / "credentials"
    profile.write_text(
        "[ci]\n"
        f"aws_access_key_id = {CREDENTIALS['AWS_ACCESS_KEY_ID']}\n"
        f"aws_secret_access_key = {CREDENTIALS['AWS_SECRET_ACCESS_KEY']}\n"
    )
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(profile))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_PROFILE", "ci")
    bucket.put("p/k", b"data")
    store = remote(bucket)
    try:
        assert await store.read("k", limit=10) == b"data"
    finally:
        await store.aclose()


_READ_ONE = """
import asyncio, sys
from mediashortcodes.media.remote import open_remote

async def main():
    store = open_remote(sys.argv[1], endpoint=sys.argv[2], warn=print)
    try:
        print(await store.read("k", limit=10))
    finally:
        await store.aclose()
    print("boto3" in sys.modules)

asyncio.run(main())
"""


def test_credentials_in_the_environment_are_read_without_importing_boto3(
    bucket: Bucket,
) -> None:
    """The environment is the first link of boto3's chain: obstore reads it itself, and the
    0.13 s of boto3's import stay off every build that has its keys there (CI's way)."""
    import subprocess

    bucket.put("p/k", b"data")
    done = subprocess.run(
        [sys.executable, "-c", _READ_ONE, bucket.url("p"), bucket.endpoint],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["b'data'", "False"]
