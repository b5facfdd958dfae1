"""The catalog lists only the folders it needs and remembers where each file lives."""

from __future__ import annotations

from pathlib import Path

import pytest

from mediashortcodes.errors import NotFoundError, ServiceUnreachableError
from mediashortcodes.media.cache import MediaCache
from mediashortcodes.media.catalog import Catalog
from mediashortcodes.records import File, Folder, Format


class FakeService:
    """An in-process stand-in for the API client that counts what it is asked."""

    def __init__(self, folders: dict[int, list[int]]) -> None:
        self.tree = folders
        self.calls: list[str] = []
        self.down = False

    async def folders(self) -> list[Folder]:
        self._call("folders")
        return [Folder(id=f, name=f"f{f}") for f in self.tree]

    async def files(self, folder_id: int) -> list[File]:
        self._call(f"files:{folder_id}")
        if folder_id not in self.tree:
            raise NotFoundError("gone", status=404)
        return [File(id=i, name=f"file {i}", uploaded="2026-01-01") for i in self.tree[folder_id]]

    async def formats(self) -> list[Format]:
        self._call("formats")
        return [Format(id=1, name="thumb")]

    def _call(self, what: str) -> None:
        if self.down:
            raise ServiceUnreachableError("connection refused")
        self.calls.append(what)


@pytest.fixture
def cache(tmp_path: Path) -> MediaCache:
    media_cache = MediaCache(tmp_path, "test", ttl=3600)
    yield media_cache
    media_cache.close()


def catalog_for(service: FakeService, cache: MediaCache, **kwargs: object) -> Catalog:
    async def connect() -> FakeService:
        return service

    return Catalog(cache, connect, jobs=4, **kwargs)  # type: ignore[arg-type]


async def test_cold_lookup_finds_files_and_reports_the_invisible_as_missing(cache) -> None:
    service = FakeService({1: [10, 11], 2: [20], 3: [30]})
    found = await catalog_for(service, cache).files([10, 20, 999])
    assert sorted(found) == [10, 20]
    assert service.calls[0] == "folders"


async def test_warm_lookup_makes_no_call(cache) -> None:
    service = FakeService({1: [10, 11], 2: [20]})
    await catalog_for(service, cache).files([10, 20])
    service.calls.clear()
    found = await catalog_for(service, cache).files([10, 11, 20])
    assert sorted(found) == [10, 11, 20]
    assert service.calls == []


async def test_refresh_lists_only_the_folders_where_the_files_live(cache) -> None:
    service = FakeService({1: [10], 2: [20], 3: [30], 4: [40]})
    await catalog_for(service, cache).files([10, 30])
    service.calls.clear()
    await catalog_for(service, cache, refresh=True).files([30])
    assert service.calls == ["files:3"]


async def test_stops_listing_once_every_id_is_found(cache) -> None:
    service = FakeService({n: [n * 10] for n in range(1, 41)})
    await catalog_for(service, cache).files([10])
    listed = [c for c in service.calls if c.startswith("files:")]
    assert len(listed) < 40


async def test_outage_with_stale_copy_uses_it_and_warns(tmp_path: Path) -> None:
    now = [1000.0]
    stale_cache = MediaCache(tmp_path, "t", ttl=10, clock=lambda: now[0])
    service = FakeService({1: [10]})
    await catalog_for(service, stale_cache).files([10])
    now[0] += 100
    service.down = True
    warnings: list[str] = []
    catalog = catalog_for(service, stale_cache)
    catalog.warn = warnings.append
    found = await catalog.files([10])
    assert list(found) == [10]
    assert warnings[0].endswith("using cached metadata for 1 file")
    stale_cache.close()


async def test_outage_without_a_copy_raises(cache) -> None:
    service = FakeService({1: [10]})
    service.down = True
    with pytest.raises(ServiceUnreachableError):
        await catalog_for(service, cache).files([10])


async def test_offline_uses_only_the_cache(cache) -> None:
    service = FakeService({1: [10]})
    found = await catalog_for(service, cache, offline=True).files([10])
    assert found == {}
    assert service.calls == []


async def test_formats_are_cached(cache) -> None:
    service = FakeService({})
    assert [f.name for f in await catalog_for(service, cache).formats()] == ["thumb"]
    await catalog_for(service, cache).formats()
    assert service.calls == ["formats"]


async def test_several_failing_listings_raise_one_error_and_leave_none_unretrieved(
    cache, caplog
) -> None:
    import gc

    service = FakeService({n: [n * 10] for n in range(1, 9)})

    async def failing(folder_id: int) -> list[File]:
        raise ServiceUnreachableError("connection refused")

    service.files = failing  # type: ignore[method-assign]
    with pytest.raises(ServiceUnreachableError):
        await catalog_for(service, cache).files([999])
    gc.collect()
    assert "never retrieved" not in caplog.text
