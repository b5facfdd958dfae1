"""A fresh runner's head start (media/head_start.py): the shared cache's images are brought
by a second process while the pages render, each checked in full; a warm runner takes none.

The builds run as the command does, in a process of their own (a process with threads,
like this test session, never forks: see site/workers.py).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mediashortcodes import config as config_mod
from mediashortcodes.media import remote_tier
from mediashortcodes.media.cache import cache_for

from .s3server import CREDENTIALS, Bucket, S3Server
from .test_shared_builds import (
    _shas,
    build,
    covered,
    image_packs_of,
    pack_of,
    same_tree,
    shared_warnings,
)

# The build command, each read of the remote logged with the process that made it.
_COUNTED_BUILD = """
import os, runpy, sys
from mediashortcodes.media.remote import RemoteStore

log, sys.argv = sys.argv[1], ["mediashortcodes", *sys.argv[2:]]
read, read_range = RemoteStore.read, RemoteStore.read_range

async def counted(self, name, *, limit):
    with open(log, "a") as out:
        out.write(f"{os.getpid()} {name}\\n")
    return await read(self, name, limit=limit)

async def counted_range(self, name, start, end):
    with open(log, "a") as out:
        out.write(f"{os.getpid()} {name}@{start}-{end}\\n")
    return await read_range(self, name, start, end)

RemoteStore.read, RemoteStore.read_range = counted, counted_range
runpy.run_module("mediashortcodes", run_name="__main__")
"""


def build_command(site: Path, runner: str, log: Path, **env_more: str) -> tuple[int, str, int]:
    """Run the build command as runner ``runner``: its exit code, what it printed on
    standard error, and its process id."""
    env = {
        **os.environ,
        **CREDENTIALS,
        config_mod.ENV_CACHE_DIR: str(site.parent / f"cache-{runner}"),
        **env_more,
    }
    output = site.parent / f"out-{runner}"
    command = [sys.executable, "-c", _COUNTED_BUILD, str(log), "build", str(site)]
    process = subprocess.Popen(
        [*command, "--output", str(output), "--workers", "2"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _out, err = process.communicate(timeout=120)
    finally:
        process.kill()
    return process.returncode, err, process.pid


def logged(log: Path) -> list[tuple[int, str]]:
    if not log.exists():
        return []
    return [
        (int(pid), name)
        for pid, name in (line.split(" ", 1) for line in log.read_text().splitlines())
    ]


def test_a_fresh_runner_brings_the_images_in_a_second_process_while_pages_render(
    site: Path, sandbox: Any, bucket: Bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = build(site, "main", monkeypatch, cache_write=True)
    _name, packed = pack_of(bucket.objects())
    packs = image_packs_of(bucket.objects())
    assert len(_shas(packed)) == writer.downloads
    sandbox.reset_stats()
    log = site.parent / "reads.log"

    code, err, build_pid = build_command(site, "pr-1", log)

    assert code == 0, err
    assert "warning" not in err
    assert f"{writer.downloads} from the shared cache, 0 requests" in err
    assert sum(sandbox.stats.values()) == 0  # nothing asked of the service
    assert same_tree(site.parent / "out-main", site.parent / "out-pr-1")
    reads = logged(log)
    # Every read made by the head start (a process that is not the build's): the pack and
    # the images' index once, the images' pack in a few ranged reads, each byte once (no
    # image alone). The build took the pack from it and asked the remote nothing.
    assert sorted(name.split("/", 1)[1] for _pid, name in reads if "@" not in name) == sorted(
        [remote_tier.PACK, remote_tier.IMAGES]
    )
    assert covered([name for _pid, name in reads if "@" in name], packs)
    assert build_pid not in {pid for pid, _name in reads}
    assert len({pid for pid, _name in reads}) == 1
    # What the remote gave is kept: the blobs, and the records in the snapshot (one file,
    # not one per record).
    kept = [p for p in (site.parent / "cache-pr-1").rglob("*") if p.is_file()]
    assert {p.name for p in kept if p.parent.parent.name == "blobs"} == _shas(packed)
    assert not [p for p in kept if p.parent.parent.name == "records"]
    # The next build of that runner has its snapshot: no head start, no remote read at all.
    log.unlink()
    code, err, _pid = build_command(site, "pr-1", log)
    assert code == 0, err
    assert logged(log) == []


def test_a_warm_runner_asks_nothing_of_a_remote_that_does_not_answer(
    site: Path, s3: S3Server, bucket: Bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(site, "main", monkeypatch, cache_write=True)
    log = site.parent / "reads.log"
    s3.pause()
    try:
        code, err, _pid = build_command(site, "main", log)  # its cache has the snapshot
    finally:
        s3.resume()
    assert code == 0, err
    assert "warning" not in err
    assert logged(log) == []


def test_the_head_start_keeps_no_image_that_fails_its_checks(
    site: Path, sandbox: Any, bucket: Bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(site, "main", monkeypatch, cache_write=True)
    objects = bucket.objects()
    _name, packed = pack_of(objects)
    shas = sorted(_shas(packed))
    tampered = next(key for key in objects if key.endswith("/" + shas[0]))
    # No images' pack (a remote an older version wrote): the images come one by one.
    bucket.delete(next(key for key in objects if key.endswith("/" + remote_tier.IMAGES)))
    # Another valid image under this name: the right signature, not the right SHA-256.
    bucket.put(tampered, next(data for key, data in objects.items() if key.endswith(shas[-1])))
    monkeypatch.setenv(config_mod.ENV_CACHE_DIR, str(site.parent / "cache-pr-1"))
    config = config_mod.load(site)
    cache = cache_for(config, shared=True, jobs=4)
    tier = remote_tier.open_tier(config, cache.dir.name, write=False, jobs=4)

    async def bring() -> int:
        try:
            return await tier.fetch_pack_blobs(cache)
        finally:
            await tier.aclose()

    assert asyncio.run(bring()) == len(shas) - 1
    kept = {
        path.name
        for path in (site.parent / "cache-pr-1").rglob("*")
        if path.is_file() and path.parent.parent.name == "blobs"
    }
    assert kept == set(shas[1:])
    for path in (site.parent / "cache-pr-1").rglob("*"):
        if path.name in kept:
            assert hashlib.sha256(path.read_bytes()).hexdigest() == path.name

    # The build then asks for the one it lacks as ever: a miss, one warning, the service.
    sandbox.reset_stats()
    fresh = build(site, "pr-1", monkeypatch)
    assert sandbox.stats.get("download", 0) == 1
    assert same_tree(site.parent / "out-main", site.parent / "out-pr-1")
    (warning,) = shared_warnings(fresh)
    assert "held 1 entry that failed the checks" in warning


def test_a_build_that_stops_early_ends_its_head_start_and_leaves_nothing_behind(
    site: Path, bucket: Bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(site, "main", monkeypatch, cache_write=True)
    # An output folder no build wrote: refused (exit 2) after the head start has begun.
    taken = site.parent / "out-pr-1"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine")
    temp = site.parent / "temp"
    temp.mkdir()
    code, err, _pid = build_command(site, "pr-1", site.parent / "reads.log", TMPDIR=str(temp))
    assert code == 2, err
    assert "not empty and was not written by a build" in err
    assert (taken / "notes.txt").read_text() == "mine"
    assert not list(temp.glob("mediashortcodes-head-start-*"))
    cache = site.parent / "cache-pr-1"
    assert not [p for p in cache.rglob(".tmp-*")]  # no blob left half-written


def test_an_image_the_images_pack_gives_wrong_is_brought_alone_and_warned_about(
    site: Path, sandbox: Any, bucket: Bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(site, "main", monkeypatch, cache_write=True)
    objects = bucket.objects()
    # The next image's first bytes in place of one's (the same length): its signature
    # right, its SHA-256 not.
    name, listed, data, i = next(
        (name, images, data, i)
        for name, (images, data) in image_packs_of(objects).items()
        for i in range(len(images) - 1)
        if images[i + 1][1] >= images[i][1]
    )
    (sha, size), at = listed[i], sum(size for _sha, size in listed[:i])
    bucket.put(name, data[:at] + data[at + size : at + 2 * size] + data[at + size :])
    log = site.parent / "reads.log"
    sandbox.reset_stats()

    code, err, build_pid = build_command(site, "pr-1", log)

    assert code == 0, err
    assert sum(sandbox.stats.values()) == 0  # the remote's own copy of it came instead
    assert same_tree(site.parent / "out-main", site.parent / "out-pr-1")
    alone = [(pid, n) for pid, n in logged(log) if "/blobs/" in n]
    assert [n.rsplit("/", 1)[1] for _pid, n in alone] == [sha]
    assert build_pid not in {pid for pid, _n in alone}  # the head start read it
    # The build gives the warning the head start could not.
    assert "the shared cache held 1 entry that failed the checks" in err
