"""The blob store: variants written once, read-only, and published as hard links."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from conftest import png

from mediashortcodes.media.assets import publish
from mediashortcodes.media.cache import MediaCache
from mediashortcodes.media.store import LocalStore, record_name

DATA = png(2, 3)


@pytest.fixture
def cache(tmp_path: Path):  # type: ignore[no-untyped-def]
    media_cache = MediaCache(tmp_path / "cache", "test", ttl=60)
    yield media_cache
    media_cache.close()


def test_a_variant_is_stored_read_only_under_its_hash_with_no_temporary_file_left(cache):
    stored = cache.put_variant("variant:1", DATA, ext="png", width=2, height=3)
    path = cache.blob_path(stored)
    assert path.read_bytes() == DATA
    assert path.name == stored.sha256 and path.parent.name == stored.sha256[:2]
    assert not stat.S_IMODE(path.stat().st_mode) & 0o222
    assert [p.name for p in path.parent.iterdir()] == [path.name]
    assert cache.get_variant("variant:1") == stored


def test_the_same_bytes_under_two_keys_are_stored_once(cache):
    first = cache.put_variant("variant:1", DATA, ext="png", width=2, height=3)
    second = cache.put_variant("variant:2", DATA, ext="png", width=2, height=3)
    assert cache.blob_path(first) == cache.blob_path(second)
    assert len([p for p in cache.blobs.rglob("*") if p.is_file()]) == 1


def test_publishing_links_the_blob_into_a_new_directory_once(cache, tmp_path: Path):
    stored = cache.put_variant("variant:1", DATA, ext="png", width=2, height=3)
    target = tmp_path / "site" / "media" / "a.png"
    publish(cache, stored, target)
    publish(cache, stored, target)
    assert target.read_bytes() == DATA
    assert os.path.samefile(target, cache.blob_path(stored))


def test_publishing_a_blob_removed_by_hand_fails_clearly(cache, tmp_path: Path):
    stored = cache.put_variant("variant:1", DATA, ext="png", width=2, height=3)
    blob = cache.blob_path(stored)
    blob.unlink()
    with pytest.raises(FileNotFoundError):
        publish(cache, stored, tmp_path / "site" / "media" / "a.png")
    assert cache.get_variant("variant:1") is None


def damage(path: Path, size: int = 5) -> None:
    path.chmod(0o644)
    os.truncate(path, size)


def test_a_blob_whose_size_is_not_the_size_written_is_a_miss_and_deleted(cache):
    stored = cache.put_variant("variant:1", DATA, ext="png", width=2, height=3)
    blob = cache.blob_path(stored)
    damage(blob)
    next_build = MediaCache(cache.root, "test", ttl=60)  # each build checks each blob once
    assert next_build.get_variant("variant:1") is None
    assert not blob.exists()
    again = next_build.put_variant("variant:1", DATA, ext="png", width=2, height=3)
    assert next_build.get_variant("variant:1") == again
    assert blob.read_bytes() == DATA


def test_storing_over_a_damaged_blob_writes_it_whole(cache):
    stored = cache.put_variant("variant:1", DATA, ext="png", width=2, height=3)
    damage(cache.blob_path(stored))
    cache.put_variant("variant:2", DATA, ext="png", width=2, height=3)  # the same bytes
    assert cache.blob_path(stored).read_bytes() == DATA
    assert cache.get_variant("variant:1") == stored


def test_storing_over_a_blob_of_the_right_size_but_other_bytes_writes_it_whole(cache):
    """A planted blob under the name of what is being stored is hashed in full, not kept."""
    stored = cache.put_variant("variant:1", DATA, ext="png", width=2, height=3)
    blob = cache.blob_path(stored)
    blob.chmod(0o644)
    blob.write_bytes(DATA[:8] + b"X" * (len(DATA) - 8))  # same size, same signature
    cache.put_variant("variant:2", DATA, ext="png", width=2, height=3)
    assert blob.read_bytes() == DATA


def test_a_variant_record_that_does_not_fit_stored_is_a_miss(cache):
    stored = cache.put_variant("variant:1", DATA, ext="png", width=2, height=3)
    record_file = cache.dir / record_name("variant:1")
    record = {"sha256": stored.sha256, "ext": "png", "width": 2, "height": 3}
    envelope = '{"v":1,"key":"variant:1","at":1,"value":%s}'
    for value in (
        record,  # no size
        {**record, "size": stored.size, "added_later": 1},
        {**record, "size": str(stored.size)},
        {**record, "size": stored.size, "ext": "html"},
        {**record, "size": stored.size, "sha256": "../" + stored.sha256[3:]},
    ):
        record_file.write_text(envelope % json.dumps(value))
        assert MediaCache(cache.root, "test", ttl=60).get_variant("variant:1") is None, value


def test_a_blob_linked_in_its_place_is_a_miss_with_one_warning_and_never_published(
    cache, tmp_path: Path
):
    # A warm lookup never follows a link at the blob's name, even to the right bytes.
    stored = cache.put_variant("variant:1", DATA, ext="png", width=2, height=3)
    cache.open_snapshot("/sites/blog")
    cache.get_variant("variant:1")
    assert cache.save_snapshot()
    elsewhere = tmp_path / "elsewhere.png"
    elsewhere.write_bytes(DATA)
    blob = cache.blob_path(stored)
    blob.unlink()
    blob.symlink_to(elsewhere)
    warm = MediaCache(cache.root, "test", ttl=60)
    warm.open_snapshot("/sites/blog")
    assert warm.get_variant("variant:1") is None
    assert len(warm.warnings()) == 1
    with pytest.raises(FileNotFoundError):
        publish(warm, stored, tmp_path / "site" / "a.png")
    assert not (tmp_path / "site" / "a.png").exists()
    assert elsewhere.read_bytes() == DATA  # the link's target is left alone


def test_a_blob_another_build_wrote_again_after_the_check_is_still_published(cache, tmp_path: Path):
    # Two builds sharing one cache both missed the variant and both wrote its blob: the
    # second's rename replaced the file the first had checked (same name, same bytes).
    stored = cache.put_variant("variant:1", DATA, ext="png", width=2, height=3)
    blob = cache.blob_path(stored)
    replacement = blob.with_name("replacement")
    replacement.write_bytes(DATA)
    os.replace(replacement, blob)
    target = tmp_path / "site" / "media" / "a.png"
    publish(cache, stored, target)
    assert target.read_bytes() == DATA
    assert os.path.samefile(target, blob)


def test_a_blob_replaced_by_other_bytes_after_the_check_is_never_published(cache, tmp_path: Path):
    stored = cache.put_variant("variant:1", DATA, ext="png", width=2, height=3)
    blob = cache.blob_path(stored)
    replacement = blob.with_name("replacement")
    replacement.write_bytes(b"<script>alert(1)</script>")
    os.replace(replacement, blob)
    target = tmp_path / "site" / "media" / "a.png"
    with pytest.raises(FileNotFoundError):
        publish(cache, stored, target)
    assert not target.exists()


def test_a_blob_read_for_a_copy_is_the_file_checked_never_a_link_swapped_in(cache, tmp_path: Path):
    # Writers that copy (the Wagtail static export) read the blob through open_blob: a
    # link to a secret put in the blob's place after its check is never read.
    stored = cache.put_variant("variant:1", DATA, ext="png", width=2, height=3)
    with cache.open_blob(stored) as image:
        assert image.read() == DATA
    secret = tmp_path / "secret.env"
    secret.write_bytes(b"CLIENT_SECRET=s3cr3t")
    blob = cache.blob_path(stored)
    blob.unlink()
    blob.symlink_to(secret)
    with pytest.raises(OSError):
        cache.open_blob(stored).read()


def test_a_blob_another_build_removed_right_after_this_one_wrote_it_is_written_again(
    cache, monkeypatch: pytest.MonkeyPatch
):
    # Two builds sharing one cache: the other found the blob absent, then cleared the name
    # before writing it, just after this build had written it.
    written: list[str] = []
    real_put = LocalStore.put

    def put_then_cleared_by_another_build(self, name, data, **options):  # type: ignore[no-untyped-def]
        check = real_put(self, name, data, **options)
        written.append(name)
        if len(written) == 1:
            os.unlink(self.root / name)
        return check

    monkeypatch.setattr(LocalStore, "put", put_then_cleared_by_another_build)
    stored = cache.put_variant("variant:1", DATA, ext="png", width=2, height=3)
    assert cache.blob_path(stored).read_bytes() == DATA
    assert cache.get_variant("variant:1") == stored
