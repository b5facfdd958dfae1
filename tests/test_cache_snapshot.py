"""The site snapshot: one record per build, never an answer the records would not give."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FakeClock, png

from mediashortcodes.media.cache import MediaCache
from mediashortcodes.media.store import record_name
from mediashortcodes.records import File

DATA = png(2, 3)
SITE = "/sites/blog"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(1_000_000.0)


@pytest.fixture
def open_cache(tmp_path: Path, clock: FakeClock):  # type: ignore[no-untyped-def]
    """Open the same cache again, as the next build (another process) does."""
    opened: list[MediaCache] = []

    def make() -> MediaCache:
        cache = MediaCache(tmp_path / "cache", "test", ttl=60, clock=clock)
        opened.append(cache)
        return cache

    yield make
    for cache in opened:
        cache.close()


def cold_build(cache: MediaCache) -> None:
    """What a first build does: look up, miss, fetch, store; then save the snapshot."""
    cache.open_snapshot(SITE)
    assert cache.get_file(7) is None
    cache.put_folder_files(3, [File(id=7, name="seven", uploaded="u1")])
    assert cache.get_variant("variant:7") is None
    cache.put_variant("variant:7", DATA, ext="png", width=2, height=3)
    assert cache.save_snapshot()


def test_a_build_that_used_exactly_its_snapshot_writes_nothing(open_cache):
    cold_build(open_cache())
    warm = open_cache()
    warm.open_snapshot(SITE)
    assert warm.get_file(7).value.name == "seven"
    assert warm.get_variant("variant:7") is not None
    assert warm.save_snapshot() is False


def test_the_snapshot_answers_even_where_the_record_itself_was_lost(open_cache):
    cold_build(open_cache())
    warm = open_cache()
    (warm.dir / record_name("file:7")).unlink()  # e.g. culled by the size limit
    warm.open_snapshot(SITE)
    assert warm.get_file(7).value.name == "seven"


def test_a_variant_whose_blob_was_removed_by_hand_is_a_miss(open_cache):
    cold_build(open_cache())
    warm = open_cache()
    warm.open_snapshot(SITE)
    blob = warm.blob_path(warm.get_variant("variant:7"))
    blob.unlink()
    warm.open_snapshot(SITE)
    assert warm.get_variant("variant:7") is None


def test_a_stale_snapshot_entry_is_stale_after_the_metadata_ttl(open_cache, clock):
    cold_build(open_cache())
    clock.now += 61
    warm = open_cache()
    warm.open_snapshot(SITE)
    cached = warm.get_file(7)
    assert cached is not None and cached.stale


def test_a_stale_snapshot_entry_gives_way_to_a_fresher_record(open_cache, clock):
    cold_build(open_cache())
    clock.now += 61
    other_site = open_cache()  # another site sharing the cache refreshed the file since
    other_site.put_folder_files(3, [File(id=7, name="seven, renamed", uploaded="u2")])
    warm = open_cache()
    warm.open_snapshot(SITE)
    cached = warm.get_file(7)
    assert cached is not None and not cached.stale
    assert cached.value.name == "seven, renamed"
    assert warm.save_snapshot(), "the snapshot now holds the fresher record"


def test_refresh_ignores_the_snapshot_and_saves_what_it_fetched(open_cache, clock):
    cold_build(open_cache())
    refresh = open_cache()
    (refresh.dir / record_name("file:7")).unlink()
    refresh.open_snapshot(SITE, read=False)
    assert refresh.get_file(7) is None, "the snapshot is not asked"
    clock.now += 1
    refresh.put_folder_files(3, [File(id=7, name="seven again", uploaded="u3")])
    assert refresh.save_snapshot()
    warm = open_cache()
    warm.open_snapshot(SITE)
    assert warm.get_file(7).value.name == "seven again"


def test_each_site_has_its_own_snapshot_holding_only_what_it_used(open_cache):
    cold_build(open_cache())
    other = open_cache()
    other.open_snapshot("/sites/docs")
    assert other.get_file(7) is not None  # from the record, not from the blog's snapshot
    assert other.save_snapshot()
    later = open_cache()
    (later.dir / record_name("file:7")).unlink()
    (later.dir / record_name("variant:7")).unlink()
    later.open_snapshot("/sites/docs")
    assert later.get_file(7) is not None, "the docs' snapshot holds the file it used"
    assert later.get_variant("variant:7") is None, "and not the blog's variant"


def test_a_fully_warm_build_leaves_the_records_untouched(open_cache):
    first = open_cache()
    cold_build(first)
    first.close()
    records = sorted(first.dir.glob("records/*/*"))
    before = [(p.name, p.stat().st_mtime_ns) for p in records]
    warm = open_cache()
    warm.open_snapshot(SITE)
    assert warm.get_file(7) is not None
    assert warm.get_variant("variant:7") is not None
    assert warm.save_snapshot() is False
    warm.close()
    assert [(p.name, p.stat().st_mtime_ns) for p in sorted(first.dir.glob("records/*/*"))] == before


def test_a_damaged_snapshot_is_only_a_missed_shortcut(open_cache):
    cold_build(open_cache())
    for path in open_cache().dir.glob("snapshots/*"):
        path.write_bytes(b"not JSON")
    warm = open_cache()
    warm.open_snapshot(SITE)
    assert warm.get_file(7).value.name == "seven"
    assert warm.save_snapshot(), "saved whole again"


def test_a_build_that_looks_nothing_up_never_opens_the_cache(tmp_path: Path):
    cache = MediaCache(tmp_path / "cache", "test", ttl=60)
    cache.open_snapshot(SITE)
    assert cache.save_snapshot() is False
    cache.close()
    assert not (tmp_path / "cache").exists()


def from_another_version(record):  # type: ignore[no-untyped-def]
    """A snapshot entry as a version whose classes had one more field wrote it."""
    value = record["value"]
    if "file" in value:
        value = {**value, "file": {**value["file"], "added_later": 1}}
    else:
        value = {**value, "added_later": 1}
    return {**record, "value": value}


def test_snapshot_entries_of_another_version_are_not_cached_then_saved_anew(open_cache):
    cold_build(open_cache())
    for path in open_cache().dir.glob("snapshots/*"):
        snapshot = json.loads(path.read_bytes())
        records = {k: from_another_version(v) for k, v in snapshot["records"].items()}
        path.write_text(json.dumps({**snapshot, "records": records}))
    for path in open_cache().dir.glob("records/*/*.json"):
        path.write_text(json.dumps(from_another_version(json.loads(path.read_bytes()))))
    warm = open_cache()
    warm.open_snapshot(SITE)
    assert warm.get_file(7) is None
    assert warm.get_variant("variant:7") is None
    assert warm.damage_warning() is not None and str(warm.dir) in warm.damage_warning()
    warm.put_folder_files(3, [File(id=7, name="seven", uploaded="u1")])
    warm.put_variant("variant:7", DATA, ext="png", width=2, height=3)
    assert warm.save_snapshot()
    later = open_cache()
    later.open_snapshot(SITE)
    assert later.get_file(7).value.name == "seven"
    assert later.get_variant("variant:7") is not None
    assert later.damage_warning() is None
