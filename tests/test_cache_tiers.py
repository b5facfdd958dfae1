"""A read-only cache writes nothing; a shared tier of the same layout is believed only
after the same checks as the local folder."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import png

from mediashortcodes.media.cache import MediaCache
from mediashortcodes.media.store import blob_name, record_name
from mediashortcodes.records import File

DATA = png(2, 3)
OTHER = png(3, 2)  # of the same size


class MemoryBackend:
    """A shared tier in memory: the Backend protocol over a dict."""

    def __init__(self) -> None:
        self.objects: dict[str, bytes] = {}
        self.fail = False

    def get(self, name: str, limit: int) -> bytes | None:
        if self.fail:
            raise ConnectionError("the shared store is down")
        data = self.objects.get(name)
        return data if data is not None and len(data) <= limit else None

    def put(self, name: str, data: bytes) -> None:
        if self.fail:
            raise ConnectionError("the shared store is down")
        self.objects[name] = data

    def delete(self, name: str) -> None:
        self.objects.pop(name, None)

    def names(self) -> Iterator[str]:
        return iter(list(self.objects))


def files_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def test_a_read_only_cache_answers_what_it_fetched_and_writes_nothing(tmp_path: Path):
    cache = MediaCache(tmp_path / "cache", "test", ttl=60, read_only=True)
    cache.put_folder_files(3, [File(id=7, name="seven")])
    stored = cache.put_variant("variant:7", DATA, ext="png", width=2, height=3)
    cache.open_snapshot("/sites/blog")
    assert cache.get_file(7).value.name == "seven"
    assert cache.get_variant("variant:7") == stored
    target = tmp_path / "site" / "media" / "a.png"
    cache.publish(stored, target)
    assert cache.save_snapshot() is False
    cache.close()
    assert target.read_bytes() == DATA, "published before the scratch folder went"
    assert not (tmp_path / "cache").exists()


def test_a_read_only_cache_reads_what_a_trusted_build_wrote_and_leaves_it_as_it_was(
    tmp_path: Path,
):
    trusted = MediaCache(tmp_path / "cache", "test", ttl=60)
    stored = trusted.put_variant("variant:7", DATA, ext="png", width=2, height=3)
    blob = trusted.blob_path(stored)
    blob.chmod(0o644)
    blob.write_bytes(b"<html>" + DATA[6:])  # damaged since: a miss, but not deleted
    before = {p: p.read_bytes() for p in files_under(tmp_path / "cache")}
    untrusted = MediaCache(tmp_path / "cache", "test", ttl=60, read_only=True)
    assert untrusted.get_variant("variant:7") is None
    assert "read-only" in (untrusted.damage_warning() or "")
    untrusted.put_variant("variant:7", DATA, ext="png", width=2, height=3)
    untrusted.close()
    assert {p: p.read_bytes() for p in files_under(tmp_path / "cache")} == before


@pytest.fixture
def shared() -> MemoryBackend:
    return MemoryBackend()


def test_a_variant_a_trusted_build_shared_is_brought_from_the_shared_tier(
    tmp_path: Path, shared: MemoryBackend
):
    writer = MediaCache(tmp_path / "a", "test", ttl=60, remote=shared, remote_write=True)
    writer.put_folder_files(3, [File(id=7, name="seven")])
    stored = writer.put_variant("variant:7", DATA, ext="png", width=2, height=3)
    assert blob_name(stored.sha256) in shared.objects
    assert record_name("variant:7") in shared.objects

    reader = MediaCache(tmp_path / "b", "test", ttl=60, remote=shared)
    assert reader.get_file(7).value.name == "seven"
    assert reader.get_variant("variant:7") == stored
    assert reader.blob_path(stored).read_bytes() == DATA
    assert reader.blob_path(stored).is_relative_to(tmp_path / "b")


def test_a_shared_blob_that_is_not_what_its_name_says_is_a_miss_kept_nowhere(
    tmp_path: Path, shared: MemoryBackend
):
    writer = MediaCache(tmp_path / "a", "test", ttl=60, remote=shared, remote_write=True)
    stored = writer.put_variant("variant:7", DATA, ext="png", width=2, height=3)
    assert hashlib.sha256(OTHER).hexdigest() != stored.sha256
    shared.objects[blob_name(stored.sha256)] = OTHER  # a valid image, the wrong one

    reader = MediaCache(tmp_path / "b", "test", ttl=60, remote=shared)
    assert reader.get_variant("variant:7") is None
    assert reader.damage_warning() is None  # nothing wrong with the local folder
    (warning,) = reader.warnings()
    assert "the shared cache held 1 entry that failed the checks" in warning
    assert not (tmp_path / "b" / "test" / blob_name(stored.sha256)).exists()


def test_a_video_poster_comes_from_the_shared_tier_and_survives_verify(
    tmp_path: Path, shared: MemoryBackend
):
    key = "poster:7:2024-01-01:123"
    writer = MediaCache(tmp_path / "a", "test", ttl=60, remote=shared, remote_write=True)
    stored = writer.put_variant(key, DATA, ext="png", width=2, height=3)
    assert writer.verify().removed == []

    reader = MediaCache(tmp_path / "b", "test", ttl=60, remote=shared)
    assert reader.get_variant(key) == stored
    assert reader.warnings() == []
    assert reader.verify().removed == []
    assert reader.get_variant(key) == stored


def test_an_untrusted_build_never_writes_the_shared_tier(tmp_path: Path, shared: MemoryBackend):
    cache = MediaCache(
        tmp_path / "a", "test", ttl=60, remote=shared, remote_write=True, read_only=True
    )
    cache.put_folder_files(3, [File(id=7, name="seven")])
    cache.put_variant("variant:7", DATA, ext="png", width=2, height=3)
    cache.close()
    assert shared.objects == {}


def test_a_shared_tier_that_fails_is_one_warning_and_the_build_goes_on(
    tmp_path: Path, shared: MemoryBackend
):
    shared.fail = True
    cache = MediaCache(tmp_path / "a", "test", ttl=60, remote=shared, remote_write=True)
    assert cache.get_file(7) is None
    stored = cache.put_variant("variant:7", DATA, ext="png", width=2, height=3)
    assert cache.get_variant("variant:7") == stored
    (warning,) = cache.warnings()
    assert "shared cache failed (ConnectionError" in warning
