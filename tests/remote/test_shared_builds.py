"""Builds sharing a remote cache on a real S3-compatible server (moto's, on 127.0.0.1),
the service being the sandbox: what a CI runner sees.

Each "runner" is a build with a local cache folder of its own; the bucket is what they share.
"""

from __future__ import annotations

import filecmp
import hashlib
import itertools
import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mediashortcodes import config as config_mod
from mediashortcodes.media import cache_records, remote_tier
from mediashortcodes.media.remote import RemoteStore
from mediashortcodes.site.builder import BuildOptions, BuildResult, SiteBuilder

from .s3server import CREDENTIALS, Bucket, S3Server


def build(site: Path, runner: str, monkeypatch: pytest.MonkeyPatch, **options: Any) -> BuildResult:
    """Build ``site`` as CI runner ``runner`` would: its own local cache and output."""
    monkeypatch.setenv(config_mod.ENV_CACHE_DIR, str(site.parent / f"cache-{runner}"))
    output = site.parent / f"out-{runner}"
    return SiteBuilder(config_mod.load(site), BuildOptions(output=output, **options)).build()


def same_tree(a: Path, b: Path) -> bool:
    compared = filecmp.dircmp(a, b)
    if compared.left_only or compared.right_only or compared.funny_files:
        return False
    _same, differ, errors = filecmp.cmpfiles(a, b, compared.common_files, shallow=False)
    return not differ and not errors and all(same_tree(a / d, b / d) for d in compared.common_dirs)


def shared_warnings(result: BuildResult) -> list[str]:
    return [str(w) for w in result.warnings if "shared cache" in str(w) or "remote cache" in str(w)]


def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names the builds from now on read from the remote (one GET each), a ranged read
    as ``name@start-end``."""
    names: list[str] = []
    read, read_range = RemoteStore.read, RemoteStore.read_range

    async def counted(self: RemoteStore, name: str, *, limit: int) -> bytes | None:
        names.append(name)
        return await read(self, name, limit=limit)

    async def counted_range(self: RemoteStore, name: str, start: int, end: int) -> bytes | None:
        names.append(f"{name}@{start}-{end}")
        return await read_range(self, name, start, end)

    monkeypatch.setattr(RemoteStore, "read", counted)
    monkeypatch.setattr(RemoteStore, "read_range", counted_range)
    return names


def image_packs_of(objects: dict[str, bytes]) -> dict[str, tuple[list[list[Any]], bytes]]:
    """The images' packs in the index's order, by their names in the bucket: each one's list
    ([sha256, size] each) and bytes."""
    (index,) = (key for key in objects if key.endswith("/" + remote_tier.IMAGES))
    listed = json.loads(objects[index])
    assert listed["v"] == remote_tier.IMAGES_VERSION
    folder = index.removesuffix(remote_tier.IMAGES)
    packs = {f"{folder}{remote_tier.IMAGE_PACKS}/{p['pack']}": p["images"] for p in listed["packs"]}
    return {name: (images, objects[name]) for name, images in packs.items()}


def covered(ranges: list[str], packs: dict[str, tuple[list[list[Any]], bytes]]) -> bool:
    """Whether ranged reads (``name@start-end``) cover each of ``packs`` once, byte for byte
    (the reads' names are the bucket's without its first folder)."""
    spans: dict[str, list[tuple[int, ...]]] = {}
    for read in ranges:
        name, _, span = read.rpartition("@")
        spans.setdefault(name, []).append(tuple(map(int, span.split("-"))))
    if set(spans) != {name.split("/", 1)[1] for name in packs}:
        return False
    for name, (_images, data) in packs.items():
        parts = sorted(spans[name.split("/", 1)[1]])
        if parts[0][0] != 0 or parts[-1][1] != len(data):
            return False
        if not all(a[1] == b[0] for a, b in itertools.pairwise(parts)):
            return False
    return True


def blob_bytes(objects: dict[str, bytes], sha: str) -> bytes:
    return objects[next(k for k in objects if k.endswith(f"/blobs/{sha[:2]}/{sha}"))]


def pack_of(objects: dict[str, bytes]) -> tuple[str, dict[str, Any]]:
    (name,) = (key for key in objects if key.endswith("/" + remote_tier.PACK))
    pack = json.loads(objects[name])
    assert pack["v"] == remote_tier.PACK_VERSION
    return name, pack["records"]


def test_a_fresh_runner_builds_from_the_remote_without_asking_the_service(
    site: Path, sandbox: Any, bucket: Bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = build(site, "main", monkeypatch, cache_write=True)
    assert writer.downloads > 0
    objects = bucket.objects()
    # The local layout: blobs by SHA-256 and JSON records, under the service's folder, the
    # pack of the records the build used and the images' packs (their index, and the packs
    # each named by its SHA-256); no snapshot, no usage state, no token.
    packs = image_packs_of(objects)
    assert objects and all(
        key.split("/")[2] in ("blobs", "records")
        or key.endswith(("/" + remote_tier.PACK, "/" + remote_tier.IMAGES))
        or key in packs
        for key in objects
    ), sorted(objects)
    for key, data in objects.items():
        if key.split("/")[2] == "blobs":
            assert hashlib.sha256(data).hexdigest() == key.rsplit("/", 1)[1]
        elif key not in packs:
            assert json.loads(data)["v"] == 1
    # The images' packs: each image the records name, once, end to end, in the index's
    # order, those whose SHA-256 starts with one digit in one pack.
    assert sorted(sha for images, _data in packs.values() for sha, _size in images) == sorted(
        _shas(pack_of(objects)[1])
    )
    for name, (images, data) in packs.items():
        assert name.endswith(f"/{hashlib.sha256(data).hexdigest()}.bin")
        assert len({sha[0] for sha, _size in images}) == 1
        assert data == b"".join(blob_bytes(objects, sha) for sha, _size in images)
    issued = sandbox.issued_tokens()
    assert issued and not any(
        token.encode() in data for token in issued for data in objects.values()
    )
    # Only the records the build used go up (not every file of each folder it listed),
    # each also in the pack, as it was uploaded.
    _name, packed = pack_of(objects)
    records = {
        json.loads(data)["key"]: json.loads(data)
        for key, data in objects.items()
        if key.split("/")[2] == "records"
    }
    assert records and records == packed

    sandbox.reset_stats()
    asked = reads(monkeypatch)
    fresh = build(site, "pr-1", monkeypatch, cache_read_only=True)
    assert sum(sandbox.stats.values()) == 0
    assert fresh.requests == 0 and fresh.downloads == 0
    assert fresh.remote_hits == writer.downloads
    assert same_tree(site.parent / "out-main", site.parent / "out-pr-1")
    assert shared_warnings(fresh) == []
    # Its records came in one read (the pack), its images in a few ranged reads of the
    # images' pack, each byte once; no image alone.
    assert sorted(name.split("/", 1)[1] for name in asked if "@" not in name) == sorted(
        [remote_tier.PACK, remote_tier.IMAGES]
    )
    assert covered([name for name in asked if "@" in name], packs)
    assert bucket.objects() == objects  # a reader writes nothing


def _shas(records: dict[str, Any]) -> set[str]:
    """The images the records name (variants', posters')."""
    return {
        r["value"]["sha256"]
        for key, r in records.items()
        if key.partition(":")[0] in cache_records.STORED_KINDS
    }


def test_a_tampered_pack_costs_one_warning_and_the_build_goes_on(
    site: Path, sandbox: Any, bucket: Bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(site, "main", monkeypatch, cache_write=True)
    objects = bucket.objects()
    name, packed = pack_of(objects)
    variants = sorted(key for key in packed if key.startswith("variant:"))
    # One entry another variant's record (a record under another key is no answer), one
    # with a field of the wrong type: two misses, fetched from the service.
    packed[variants[0]] = packed[variants[1]]
    packed[variants[2]]["value"]["size"] = "12"
    bucket.put(name, json.dumps({"v": 1, "records": packed}).encode())
    sandbox.reset_stats()
    fresh = build(site, "pr-1", monkeypatch)
    assert sandbox.stats.get("download", 0) == 2
    assert same_tree(site.parent / "out-main", site.parent / "out-pr-1")
    (warning,) = shared_warnings(fresh)
    assert "held 2 entries that failed the checks" in warning

    # A pack that is not one this version wrote: one warning, the records asked one by one.
    bucket.put(name, b'{"v": 1, "records": [')
    sandbox.reset_stats()
    again = build(site, "pr-2", monkeypatch)
    assert sum(sandbox.stats.values()) == 0
    assert same_tree(site.parent / "out-main", site.parent / "out-pr-2")
    (warning,) = shared_warnings(again)
    assert "held 1 entry that failed the checks" in warning

    # The next trusted build writes the pack anew, whole.
    build(site, "main-2", monkeypatch, cache_write=True)
    assert _shas(pack_of(bucket.objects())[1]) == _shas(pack_of(objects)[1])


def test_a_remote_hit_is_kept_locally_for_the_next_build(
    site: Path, sandbox: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(site, "main", monkeypatch, cache_write=True)
    build(site, "runner-2", monkeypatch)
    sandbox.reset_stats()
    with socket.socket() as probe:  # the remote gone: asking it would be a warning
        probe.bind(("127.0.0.1", 0))
        monkeypatch.setenv(
            config_mod.ENV_CACHE_REMOTE_ENDPOINT, f"http://127.0.0.1:{probe.getsockname()[1]}"
        )
    again = build(site, "runner-2", monkeypatch)  # the same runner
    assert sum(sandbox.stats.values()) == 0 and again.remote_hits == 0
    assert again.cache_hits > 0 and shared_warnings(again) == []


def test_a_build_that_may_not_write_writes_nothing(
    site: Path, bucket: Bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    cold = build(site, "pr-1", monkeypatch)  # read-only by default
    assert cold.downloads > 0
    assert bucket.objects() == {}
    # --cache-read-only wins over --cache-write and remote_write: an untrusted build.
    monkeypatch.setenv(config_mod.ENV_CACHE_REMOTE_WRITE, "1")
    build(site, "pr-2", monkeypatch, cache_write=True, cache_read_only=True)
    assert bucket.objects() == {}


def test_metadata_from_the_remote_obeys_the_time_to_live(
    site: Path, sandbox: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(site, "main", monkeypatch, cache_write=True)
    config = site / "mediashortcodes.toml"
    config.write_text(config.read_text() + "metadata_ttl = 0\n")
    sandbox.reset_stats()
    build(site, "pr-1", monkeypatch)
    # The file records it found are stale: listed again; the images are still the remote's.
    assert sandbox.stats.get("files", 0) > 0
    assert sandbox.stats.get("download", 0) == 0


def test_a_tampered_blob_and_record_are_misses_with_one_warning_never_published(
    site: Path, sandbox: Any, bucket: Bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(site, "main", monkeypatch, cache_write=True)
    objects = bucket.objects()
    records = {
        key: json.loads(data) for key, data in objects.items() if key.split("/")[2] == "records"
    }
    variants = sorted(key for key, r in records.items() if r["key"].startswith("variant:"))
    shas = [records[key]["value"]["sha256"] for key in variants]
    blob = next(k for k in objects if k.endswith("/" + shas[0]))
    # A valid image of another variant in place of one blob (its name no longer its
    # SHA-256), and another variant's record that is not JSON; no pack (a remote an older
    # version wrote), so the records are read one by one.
    bucket.put(blob, next(objects[k] for k in objects if k.endswith("/" + shas[-1])))
    bucket.put(variants[-1], b"<script>alert(1)</script>")
    bucket.delete(pack_of(objects)[0])
    sandbox.reset_stats()
    fresh = build(site, "pr-1", monkeypatch)
    assert sandbox.stats.get("download", 0) == 2  # those two, fetched from the service
    assert same_tree(site.parent / "out-main", site.parent / "out-pr-1")
    (warning,) = shared_warnings(fresh)
    assert "held 2 entries that failed the checks" in warning

    # A trusted build repairs the blob it found damaged; the record is replaced.
    build(site, "main-2", monkeypatch, cache_write=True)
    repaired = bucket.objects()
    assert hashlib.sha256(repaired[blob]).hexdigest() == shas[0]
    assert json.loads(repaired[variants[-1]])["v"] == 1


def test_a_non_image_under_its_own_hash_in_the_remote_is_never_published(
    site: Path, sandbox: Any, bucket: Bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    """issue 29, item 2: a blob that starts like a JPEG, under its own SHA-256, with every
    variant's record and the pack rewritten to it: only the image's structure gives it away."""
    build(site, "main", monkeypatch, cache_write=True)
    objects = bucket.objects()
    poison = b"\xff\xd8\xff<html><script>alert(document.cookie)</script></html>"
    sha = hashlib.sha256(poison).hexdigest()
    name, packed = pack_of(objects)
    folder = name.removesuffix(remote_tier.PACK)
    bucket.put(f"{folder}blobs/{sha[:2]}/{sha}", poison)
    for key, data in objects.items():
        record = json.loads(data) if key.split("/")[2] == "records" else None
        if record and record["key"].startswith("variant:"):
            record["value"].update(sha256=sha, ext="jpg", size=len(poison))
            packed[record["key"]] = record
            bucket.put(key, json.dumps(record).encode())
    bucket.put(name, json.dumps({"v": 1, "records": packed}).encode())
    sandbox.reset_stats()
    fresh = build(site, "pr-1", monkeypatch)
    assert sandbox.stats.get("download", 0) > 0  # the images, from the service instead
    assert same_tree(site.parent / "out-main", site.parent / "out-pr-1")
    published = [p.read_bytes() for p in (site.parent / "out-pr-1").rglob("*") if p.is_file()]
    assert not any(b"alert(document.cookie)" in data for data in published)
    (warning,) = shared_warnings(fresh)
    assert "failed the checks" in warning


@pytest.mark.slow
def test_a_remote_that_stops_answering_mid_build_costs_one_warning(
    site: Path, s3: S3Server, sandbox: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(site, "main", monkeypatch, cache_write=True)
    prefetch = remote_tier.RemoteTier.prefetch
    calls = 0

    async def freezing_after_the_first_call(
        self: remote_tier.RemoteTier, keys: Any, local: Any
    ) -> None:
        nonlocal calls
        calls += 1
        if calls == 2:  # the file records came; now the server hangs
            s3.pause()
        await prefetch(self, keys, local)

    monkeypatch.setattr(remote_tier.RemoteTier, "prefetch", freezing_after_the_first_call)
    try:
        fresh = build(site, "pr-1", monkeypatch)
    finally:
        s3.resume()
    assert calls > 2
    assert sandbox.stats.get("download", 0) > 0  # the images came from the service instead
    assert same_tree(site.parent / "out-main", site.parent / "out-pr-1")
    (warning,) = shared_warnings(fresh)
    assert "no answer within 5 s" in warning


@pytest.mark.slow
def test_two_runners_writing_at_once_leave_a_consistent_store(
    site: Path, sandbox: Any, bucket: Bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {
        **os.environ,
        **CREDENTIALS,
        config_mod.ENV_CACHE_REMOTE_WRITE: "1",
    }
    runners = []
    for name in ("a", "b"):
        runners.append(
            subprocess.Popen(
                [sys.executable, "-m", "mediashortcodes", "build", str(site), "--output",
                 str(site.parent / f"out-{name}"), "--cache-write"],
                env={**env, config_mod.ENV_CACHE_DIR: str(site.parent / f"cache-{name}")},
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )  # fmt: skip
    for runner in runners:
        _out, err = runner.communicate(timeout=120)
        assert runner.returncode == 0, err
    objects = bucket.objects()
    for key, data in objects.items():  # every object whole and true to its name
        if key.split("/")[2] == "blobs":
            assert hashlib.sha256(data).hexdigest() == key.rsplit("/", 1)[1]
        elif key.split("/")[2] == "records":
            record = json.loads(data)
            if record["key"].startswith("variant:"):
                blob = f"{key.split('/records/')[0]}/blobs/{record['value']['sha256'][:2]}/"
                assert blob + record["value"]["sha256"] in objects
    # The pack is one writer's, whole: each of its images is there; so are the images'
    # packs its index names, each true to its name and to the index.
    name, packed = pack_of(objects)
    folder = name.removesuffix(remote_tier.PACK)
    assert all(f"{folder}blobs/{sha[:2]}/{sha}" in objects for sha in _shas(packed))
    for pack_name, (images, data) in image_packs_of(objects).items():
        assert pack_name.endswith(f"/{hashlib.sha256(data).hexdigest()}.bin")
        assert data == b"".join(blob_bytes(objects, sha) for sha, _size in images)
    sandbox.reset_stats()
    build(site, "pr-1", monkeypatch)
    assert sum(sandbox.stats.values()) == 0
    assert same_tree(site.parent / "out-a", site.parent / "out-pr-1")


def test_a_trusted_build_writes_only_the_images_packs_its_new_images_change(
    site: Path, bucket: Bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(site, "main", monkeypatch, cache_write=True)
    first = image_packs_of(bucket.objects())
    # Another trusted runner building the same images: the index lists them already.
    build(site, "main-2", monkeypatch, cache_write=True)
    after = bucket.objects()
    assert list(image_packs_of(after)) == list(first)
    assert sorted(k for k in after if f"/{remote_tier.IMAGE_PACKS}/" in k) == sorted(first)

    # A page shows one more variant: one new images' pack (the one its SHA-256 belongs in),
    # the others as they were; the index names it, and the old one stays (a build never
    # deletes from the shared tier).
    page = site / "content" / "articles" / "autumn-walk.md"
    page.write_text(
        page.read_text().replace(
            '<% media_image 104 "medium" %>',
            '<% media_image 104 thumb %>\n<% media_image 104 "medium" %>',
        )
    )
    build(site, "main", monkeypatch, cache_write=True)
    objects = bucket.objects()
    second = image_packs_of(objects)
    (new,) = set(second) - set(first)
    (old,) = set(first) - set(second)
    assert old in objects
    assert len(second[new][0]) == len(first[old][0]) + 1
    assert new.endswith(f"/{hashlib.sha256(second[new][1]).hexdigest()}.bin")


def test_an_image_the_images_pack_gives_wrong_is_read_alone_with_one_warning(
    site: Path, sandbox: Any, bucket: Bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(site, "main", monkeypatch, cache_write=True)
    objects = bucket.objects()
    name, (listed, data) = next(iter(image_packs_of(objects).items()))
    # One byte in the middle of its first image changed (its signature still right, its
    # SHA-256 not).
    sha, size = listed[0]
    at = size // 2
    bucket.put(name, data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :])
    sandbox.reset_stats()
    asked = reads(monkeypatch)
    fresh = build(site, "pr-1", monkeypatch)
    assert sum(sandbox.stats.values()) == 0  # the image came alone from the remote
    assert [n.rsplit("/", 1)[1] for n in asked if "/blobs/" in n] == [sha]
    assert same_tree(site.parent / "out-main", site.parent / "out-pr-1")
    (warning,) = shared_warnings(fresh)
    assert "held 1 entry that failed the checks" in warning

    # An index that is not one this version wrote: one warning, the images one by one.
    index = next(k for k in objects if k.endswith("/" + remote_tier.IMAGES))
    bucket.put(index, b'{"v": 1, "packs": [{"pack": "../../records/x.bin", "images": []}]}')
    sandbox.reset_stats()
    asked = reads(monkeypatch)
    again = build(site, "pr-2", monkeypatch)
    assert sum(sandbox.stats.values()) == 0
    assert len([n for n in asked if "/blobs/" in n]) == len(_shas(pack_of(objects)[1]))
    assert not [n for n in asked if "@" in n]
    assert same_tree(site.parent / "out-main", site.parent / "out-pr-2")
    (warning,) = shared_warnings(again)
    assert "held 1 entry that failed the checks" in warning


SHA = "ab" * 32
LIMIT = remote_tier.IMAGE_PACK_LIMIT


def index_of(*packs: Any) -> dict[str, Any]:
    return {"v": 1, "packs": [{"pack": name, "images": images} for name, images in packs]}


@pytest.mark.parametrize(
    "index",
    [
        None,
        [],
        {"v": 2, "packs": []},
        {"v": 1, "packs": [], "more": 1},
        {"v": 1, "packs": {}},
        {"v": 1, "packs": [[f"{SHA}.bin", []]]},
        {"v": 1, "packs": [{"pack": f"{SHA}.bin", "images": [], "more": 1}]},
        index_of(("../../blobs/ab/x.bin", [])),
        index_of((f"{SHA}.exe", [])),
        index_of((f"{SHA.upper()}.bin", [])),
        index_of((f"{SHA}.bin", {})),
        index_of((f"{SHA}.bin", [[SHA]])),
        index_of((f"{SHA}.bin", [["ab", 10]])),
        index_of((f"{SHA}.bin", [[SHA, 0]])),
        index_of((f"{SHA}.bin", [[SHA, -5]])),
        index_of((f"{SHA}.bin", [[SHA, True]])),
        index_of((f"{SHA}.bin", [[SHA, 10.0]])),
        index_of((f"{SHA}.bin", [[SHA, 1001]])),  # more than a blob may weigh
        index_of(*[(f"{SHA}.bin", [[SHA, 1000]] * 1000)] * (LIMIT // 1_000_000 + 1)),
    ],
)
def test_an_images_index_this_version_did_not_write_is_none(index: Any) -> None:
    assert remote_tier.images_index(index, max_blob_bytes=1000) is None


def test_an_images_index_places_each_image_in_its_pack_after_the_one_before() -> None:
    other, third = "cd" * 32, "ef" * 32
    index = remote_tier.images_index(
        index_of((f"{SHA}.bin", [[SHA, 10], [other, 5]]), (f"{other}.bin", [[third, 7]])),
        max_blob_bytes=1000,
    )
    assert index is not None
    assert index.at == {
        SHA: (f"{SHA}.bin", 0, 10),
        other: (f"{SHA}.bin", 10, 5),
        third: (f"{other}.bin", 0, 7),
    }
