"""A damaged cache is never published and never a traceback: what a user sees from the CLI."""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import shutil
from pathlib import Path
from typing import Any

import diskcache
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


def published_copy(site: Path, blob: Path) -> Path:
    """The published file of a blob: its name ends with the start of the blob's hash."""
    sha, ext = blob.name.split(".")
    (found,) = (site / "_site" / "media").glob(f"*-{sha[:10]}.{ext}")
    return found


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
    assert published_copy(site, blob).read_bytes() == whole
    assert hashlib.sha256(whole).hexdigest() == blob.name.split(".")[0]

    code, out = run("build", "--refresh", str(site))
    assert code == 0, out
    assert downloads(out) == 0, "the blob written again is whole: a hit"
    assert published_copy(site, blob).read_bytes() == whole


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


def damage_database(cache: Path) -> Path:
    (database,) = cache.glob("*/records/cache.db")
    for snapshot in cache.glob("*/snapshots/*"):
        snapshot.unlink()
    database.write_bytes(os.urandom(4096))
    return database


@pytest.mark.parametrize("command", [["build"], ["check"], ["cache", "info"]])
def test_a_damaged_cache_database_exits_2_naming_the_file_and_the_fix(
    make_site, env: Path, command: list[str]
) -> None:
    site = make_site()
    assert run("build", str(site))[0] == 0
    database = damage_database(env)

    code, out = run(*command, str(site))
    assert code == 2, out
    assert str(database) in out and "damaged" in out
    assert "mediashortcodes cache clear" in out
    assert "Traceback" not in out


def test_cache_clear_mends_a_damaged_cache_database(make_site, env: Path) -> None:
    site = make_site()
    assert run("build", str(site))[0] == 0
    damage_database(env)
    assert run("cache", "clear", str(site))[0] == 0
    code, out = run("build", str(site))
    assert code == 0, out
    assert downloads(out) > 0


def from_another_version(value: Any) -> Any:
    """A record as a version whose classes had one more field wrote it."""
    if isinstance(value, dict):
        return {**value, "added_in_another_version": 1}
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], dict):
        return (value[0], from_another_version(value[1]))  # metadata: (time, record)
    return value


def test_records_and_snapshot_of_another_version_are_fetched_again_not_a_crash(
    make_site, env: Path
) -> None:
    site = make_site()
    code, out = run("build", str(site))
    assert code == 0, out
    first_downloads = downloads(out)
    whole = {blob.name: blob.read_bytes() for blob in blobs(env)}
    (records,) = env.glob("*/records")
    with diskcache.Cache(str(records)) as db:
        for key in list(db):
            db.set(key, from_another_version(db.get(key)))
    for path in env.glob("*/snapshots/*"):
        snapshot = pickle.loads(path.read_bytes())
        path.write_bytes(pickle.dumps({k: from_another_version(v) for k, v in snapshot.items()}))

    code, out = run("build", str(site))
    assert code == 0, out
    assert "Traceback" not in out
    assert downloads(out) == first_downloads, "every variant is fetched again"
    for name, data in whole.items():
        assert published_copy(site, Path(name)).read_bytes() == data

    code, out = run("build", str(site))
    assert code == 0, out
    assert downloads(out) == 0 and "0 requests" in out, "written again as this version reads"
