"""A damaged cache is never published and never a traceback: what a user sees from the CLI."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def downloads(out: str) -> int:
    found = re.search(r"(\d+) downloads?\b", out)
    assert found, out
    return int(found.group(1))


def blobs(cache: Path) -> list[Path]:
    return sorted(p for p in cache.rglob("blobs/*/*") if p.is_file())


def published_copy(site: Path, blob: Path) -> bytes:
    """The bytes published from a blob, under every name its hash ends (a format that serves
    the original as it is publishes the original's bytes under a second name)."""
    copies = {p.read_bytes() for p in (site / "_site" / "media").glob(f"*-{blob.name[:10]}.*")}
    assert len(copies) == 1, copies
    return copies.pop()


def test_a_blob_cut_short_is_downloaded_again_and_published_whole(make_site, env: Path) -> None:
    site = make_site()
    code, out = run("build", str(site))
    assert code == 0, out
    blob = blobs(env)[0]
    whole = blob.read_bytes()  # as the service sent it, verified
    blob.chmod(0o644)
    os.truncate(blob, 100)
    shutil.rmtree(site / "_site")

    code, out = run("build", str(site))
    assert code == 0, out
    assert downloads(out) == 1
    assert published_copy(site, blob) == whole
    assert hashlib.sha256(whole).hexdigest() == blob.name

    code, out = run("build", "--refresh", str(site))
    assert code == 0, out
    assert downloads(out) == 0, "the blob written again is whole: a hit"
    assert published_copy(site, blob) == whole


def test_a_blob_cut_short_is_a_miss_offline_not_a_published_file(make_site, env: Path) -> None:
    site = make_site()
    assert run("build", str(site))[0] == 0
    blob = blobs(env)[0]
    blob.chmod(0o644)
    os.truncate(blob, 100)

    code, out = run("build", "--offline", str(site))
    assert code == 1
    assert "is not in the cache; build once without --offline" in out
    assert not blob.exists(), "the damaged blob is deleted"


def damage_records(cache: Path) -> list[Path]:
    """Write garbage over every record and snapshot of the cache."""
    damaged = [*cache.glob("*/records/*/*.json"), *cache.glob("*/snapshots/*")]
    for path in damaged:
        path.write_bytes(os.urandom(64))
    return damaged


@pytest.mark.parametrize("command", [["build"], ["check"]])
def test_damaged_records_are_misses_with_one_warning_naming_the_cache(
    make_site, env: Path, command: list[str]
) -> None:
    site = make_site()
    assert run("build", str(site))[0] == 0
    assert damage_records(env)

    code, out = run(*command, str(site))
    assert code == 0, out
    (folder,) = [p for p in env.iterdir() if p.name != "memo"]  # the service's, not the memo
    warnings = [line for line in out.splitlines() if "damaged or unreadable" in line]
    assert len(warnings) == 1 and f"the cache {folder} held" in warnings[0], out
    assert "mediashortcodes cache verify" in warnings[0]
    assert "Traceback" not in out


def test_cache_verify_removes_damaged_records_and_a_build_then_mends_the_cache(
    make_site, env: Path
) -> None:
    site = make_site()
    assert run("build", str(site))[0] == 0
    damaged = damage_records(env)
    code, out = run("cache", "verify", str(site))
    assert code == 0, out
    (folder,) = [p for p in env.iterdir() if p.name != "memo"]  # the service's, not the memo
    removed = {line.split(":")[0] for line in out.splitlines() if line.startswith("removed ")}
    assert removed == {f"removed {p.relative_to(folder).as_posix()}" for p in damaged}
    assert not any(path.exists() for path in damaged)
    code, out = run("build", str(site))
    assert code == 0 and "damaged" not in out, out
    code, out = run("build", str(site))
    assert code == 0 and "0 requests" in out, out


def from_another_version(value: Any) -> Any:
    """A record's value as a version whose classes had one more field wrote it."""
    if isinstance(value, dict) and "file" in value:
        return {**value, "file": {**value["file"], "added_in_another_version": 1}}
    if isinstance(value, dict):
        return {**value, "added_in_another_version": 1}
    if isinstance(value, list):
        return [from_another_version(item) for item in value]
    return value


def test_records_and_snapshot_of_another_version_are_fetched_again_not_a_crash(
    make_site, env: Path
) -> None:
    site = make_site()
    code, out = run("build", str(site))
    assert code == 0, out
    first_downloads = downloads(out)
    whole = {blob.name: blob.read_bytes() for blob in blobs(env)}
    for path in env.glob("*/records/*/*.json"):
        record = json.loads(path.read_bytes())
        path.write_text(json.dumps({**record, "value": from_another_version(record["value"])}))
    for path in env.glob("*/snapshots/*"):
        snapshot = json.loads(path.read_bytes())
        records = {
            key: {**record, "value": from_another_version(record["value"])}
            for key, record in snapshot["records"].items()
        }
        path.write_text(json.dumps({**snapshot, "records": records}))

    code, out = run("build", str(site))
    assert code == 0, out
    assert "Traceback" not in out
    assert downloads(out) == first_downloads, "every variant is fetched again"
    for name, data in whole.items():
        assert published_copy(site, Path(name)) == data

    code, out = run("build", str(site))
    assert code == 0, out
    assert downloads(out) == 0 and "0 requests" in out, "written again as this version reads"


class Gadget:
    """Unpickled, it creates a file: code run from the cache."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (open, (str(self.marker), "w"))


def plant_a_diskcache_era_cache(folder: Path, gadget: bytes, jpeg: bytes) -> list[str]:
    """The files a cache held before it was data only, as a CI cache restored from before
    the upgrade still holds them: diskcache's SQLite database (its WAL beside it) and a
    value file, a pickled snapshot, a blob named with its extension. Their layout names."""
    import sqlite3

    (folder / "records" / "3f" / "a1").mkdir(parents=True)
    with sqlite3.connect(folder / "records" / "cache.db") as db:
        db.execute("CREATE TABLE Cache (rowid INTEGER PRIMARY KEY, key BLOB, value BLOB)")
        db.execute("INSERT INTO Cache (key, value) VALUES (?, ?)", (b"variant:101", gadget))
    (folder / "records" / "cache.db-wal").write_bytes(b"")
    (folder / "records" / "3f" / "a1" / "5c0de0a1b2c3d4e5f6.val").write_bytes(gadget)
    (folder / "snapshots").mkdir()
    (folder / "snapshots" / "0123456789abcdef.pickle").write_bytes(gadget)
    sha = hashlib.sha256(jpeg).hexdigest()
    (folder / "blobs" / sha[:2]).mkdir(parents=True)
    (folder / "blobs" / sha[:2] / f"{sha}.jpg").write_bytes(jpeg)
    return [
        f"blobs/{sha[:2]}/{sha}.jpg",
        "records/3f/a1/5c0de0a1b2c3d4e5f6.val",
        "records/cache.db",
        "records/cache.db-wal",
        "snapshots/0123456789abcdef.pickle",
    ]


def test_cache_verify_removes_a_diskcache_era_cache_and_says_so_reading_none_of_it(
    make_site, env: Path, tmp_path: Path
) -> None:
    site = make_site()
    assert run("build", str(site))[0] == 0
    (folder,) = [p for p in env.iterdir() if p.name != "memo"]  # the service's, not the memo
    jpeg = blobs(env)[0].read_bytes()
    shutil.rmtree(folder)  # a cache restored from before the upgrade: the old files only
    marker = tmp_path / "code-ran"
    planted = plant_a_diskcache_era_cache(folder, pickle.dumps(Gadget(marker)), jpeg)

    code, out = run("cache", "verify", str(site))
    assert code == 0, out
    removed = dict(
        line.removeprefix("removed ").split(": ", 1)
        for line in out.splitlines()
        if line.startswith("removed ")
    )
    older = "a file of the older cache format (diskcache and pickles), never read"
    assert removed == dict.fromkeys(planted, older)
    assert out.splitlines()[-1] == (
        f"{folder}: 0 records, 0 images and 0 snapshots sound; 5 removed"
    )
    assert not [p for p in folder.rglob("*") if p.is_file()]
    assert not marker.exists(), "a pickle in the old cache ran code"
    code, out = run("build", str(site))
    assert code == 0 and "damaged" not in out, out
