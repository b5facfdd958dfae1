"""A cache written by an attacker (a CI cache restored from a fork's artifact) can never run
code, publish foreign bytes, write outside the output or cache, or leak a secret.

Each test builds a small site once, then tampers with the cache the way someone with write
access to the folder would, and builds again from the command line.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli

from .conftest import small_site

LAYOUT = "<html><body>{{ page.content }}</body></html>\n"
PAGE = "---\ntitle: Home\n---\n\n<% media_image 101 %>\n\n<% media_image 102 thumb %>\n"
SECRET = "MEDIASHORTCODES_CLIENT_SECRET=planted-secret-value-0123456789"


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.output


@pytest.fixture
def site(tmp_path: Path, sandbox: Any, env: Path) -> Path:
    files = {"templates/page.html": LAYOUT, "content/index.md": PAGE}
    root = small_site(tmp_path / "site", sandbox, files, player=False)
    code, out = run("build", str(root))
    assert code == 0, out
    return root


def blobs(cache: Path) -> list[Path]:
    return sorted(p for p in cache.glob("*/blobs/*/*") if not p.name.startswith("."))


def media(site: Path) -> dict[str, bytes]:
    folder = site / "_site" / "media"
    return {p.name: p.read_bytes() for p in folder.iterdir()} if folder.is_dir() else {}


def downloads(out: str) -> int:
    found = re.search(r"(\d+) downloads?\b", out)
    assert found, out
    return int(found.group(1))


def assert_published_bytes_are_what_their_names_say(site: Path) -> None:
    published = media(site)
    assert published, "the site publishes its images"
    for name, data in published.items():
        digest = hashlib.sha256(data).hexdigest()
        assert name.rsplit(".", 1)[0].endswith(digest[:10]), f"{name} holds foreign bytes"
        assert data[:3] in (b"\xff\xd8\xff", b"\x89PN", b"GIF", b"RIF"), name


def rewrite_variants(cache: Path, change: Callable[[dict[str, Any]], dict[str, Any]]) -> int:
    """Apply ``change`` to every variant record of the cache, wherever it is kept (the site's
    snapshot and the records; in a pickle snapshot too, as older versions wrote it)."""
    changed = 0
    for path in cache.glob("*/snapshots/*.pickle"):
        snapshot = pickle.loads(path.read_bytes())
        for key, value in snapshot.items():
            if key.startswith("variant:"):
                snapshot[key] = change(value)
                changed += 1
        path.write_bytes(pickle.dumps(snapshot))
    for path in cache.glob("*/snapshots/*.json"):
        snapshot = json.loads(path.read_bytes())
        for key, record in snapshot["records"].items():
            if key.startswith("variant:"):
                record["value"] = change(record["value"])
                changed += 1
        path.write_text(json.dumps(snapshot))
    for path in cache.glob("*/records/*/*.json"):
        record = json.loads(path.read_bytes())
        if record["key"].startswith("variant:"):
            record["value"] = change(record["value"])
            path.write_text(json.dumps(record))
            changed += 1
    return changed


def outside(tmp_path: Path, site: Path, cache: Path) -> list[Path]:
    """Every file under the test's folder but outside the site's output and the cache."""
    inside = (site / "_site", cache)
    return sorted(
        p
        for p in tmp_path.rglob("*")
        if not any(p == d or d in p.parents for d in inside) and p.is_file()
    )


class Gadget:
    """Unpickled, it creates a file: code run from the cache."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (open, (str(self.marker), "w"))


def test_a_planted_pickle_is_never_loaded_it_is_a_miss_with_a_warning(
    site: Path, env: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "code-ran"
    gadget = pickle.dumps(Gadget(marker))
    planted = [*env.glob("*/snapshots/*"), *env.glob("*/records/*/*")]
    assert planted
    for path in planted:
        if path.is_file():
            path.write_bytes(gadget)
    # And where an older version kept its snapshot, for a cache restored from before.
    digest = hashlib.sha256(str(site.resolve()).encode()).hexdigest()[:16]
    for folder in env.glob("*/snapshots"):
        (folder / f"{digest}.pickle").write_bytes(gadget)

    code, out = run("build", str(site))
    assert code == 0, out
    assert not marker.exists(), "a pickle in the cache ran code"
    assert "Traceback" not in out
    assert (
        f"the cache {next(p for p in env.iterdir() if p.name != 'memo')}" in out
        and "damaged or unreadable" in out
    )
    assert_published_bytes_are_what_their_names_say(site)


def test_a_blob_holding_html_of_the_recorded_size_is_never_published(site: Path, env: Path) -> None:
    for blob in blobs(env):
        size = blob.stat().st_size
        blob.chmod(0o644)
        blob.write_bytes(b"<script>alert(1)</script>".ljust(size, b" "))

    code, out = run("build", str(site))
    assert code == 0, out
    assert downloads(out) == 2, "both images fetched again"
    assert_published_bytes_are_what_their_names_say(site)
    assert not any(b"<script" in data for data in media(site).values())


POISON = b"\xff\xd8\xff<html><script>alert(document.cookie)</script></html>"


def poison(cache: Path) -> list[Path]:
    """Plant a non-image that starts like a JPEG under its own SHA-256 and point every
    variant record (snapshot and records) at it, with its size: all that agrees."""
    sha = hashlib.sha256(POISON).hexdigest()
    planted = next(cache.glob("*/blobs")) / sha[:2] / sha
    planted.parent.mkdir(exist_ok=True)
    planted.write_bytes(POISON)
    assert rewrite_variants(
        cache, lambda value: {**value, "sha256": sha, "ext": "jpg", "size": len(POISON)}
    )
    return [planted]


def test_a_non_image_under_its_own_hash_and_records_is_never_published(
    site: Path, env: Path
) -> None:
    """issue 29, item 2: size, SHA-256 and a JPEG's first bytes all agree; only the image's
    structure gives it away."""
    poison(env)

    code, out = run("build", str(site))
    assert code == 0, out
    assert downloads(out) == 2, "both images fetched again"
    assert_published_bytes_are_what_their_names_say(site)
    assert not any(b"<script" in data for data in media(site).values())
    assert "damaged or unreadable" in out


def test_cache_verify_removes_a_non_image_under_its_own_hash(site: Path, env: Path) -> None:
    (planted,) = poison(env)

    code, out = run("cache", "verify", str(site))
    assert code == 0, out
    assert (
        f"removed blobs/{planted.parent.name}/{planted.name}: not a whole image: truncated JPEG"
        in out
    ), out
    assert not planted.exists()
    code, out = run("build", str(site))
    assert code == 0 and downloads(out) == 2, out
    assert not any(b"<script" in data for data in media(site).values())


def test_a_blob_that_is_a_symlink_to_a_secret_is_never_followed(
    site: Path, env: Path, tmp_path: Path
) -> None:
    for number, blob in enumerate(blobs(env)):
        secret = tmp_path / f"environ-{number}"
        # Of the recorded size and with a JPEG's first bytes: only the link gives it away.
        secret.write_bytes((b"\xff\xd8\xff" + SECRET.encode()).ljust(blob.stat().st_size, b"#"))
        blob.chmod(0o644)
        blob.unlink()
        blob.symlink_to(secret)

    code, out = run("build", str(site))
    assert code == 0, out
    assert_published_bytes_are_what_their_names_say(site)
    for path in (site / "_site").rglob("*"):
        assert path.is_dir() or SECRET.encode() not in path.read_bytes(), path
    for secret in tmp_path.glob("environ-*"):
        assert secret.stat().st_nlink == 1, "the secret was hard-linked into the site"


def test_an_extension_holding_a_path_never_writes_outside_the_output_and_cache(
    site: Path, env: Path, tmp_path: Path
) -> None:
    """The attack as it worked before: the record's extension leads the blob's path and the
    published path out of their folders, and the planted file is there, of the right size."""
    before = outside(tmp_path, site, env)

    def plant(value: dict[str, Any]) -> dict[str, Any]:
        sha = value["sha256"]
        as_before = next(env.glob("*/blobs")) / sha[:2] / f"{sha}.jpg"  # the old blob name
        if as_before.is_file():
            as_before.chmod(0o644)
            as_before.unlink()
        as_before.mkdir(parents=True, exist_ok=True)
        # blobs/ab/<sha>.jpg/../../../.. is the cache folder itself.
        payload = env / f"escaped-{sha[:8]}.pth"
        payload.write_bytes(b"import os\n".ljust(value["size"], b"#"))
        return {**value, "ext": f"jpg/../../../../{payload.name}"}

    assert rewrite_variants(env, plant)

    code, out = run("build", str(site))
    assert code == 0, out
    assert outside(tmp_path, site, env) == before, "a file was written outside output and cache"
    assert not list((site / "_site").rglob("escaped-*")), "published"
    assert_published_bytes_are_what_their_names_say(site)


@pytest.mark.parametrize(
    "change",
    [
        {"ext": "html"},
        {"sha256": "../../../../escaped"},
        {"width": "100%25 onerror=alert(1)"},
        {"size": -1},
    ],
    ids=["html", "hash with ../", "width text", "negative size"],
)
def test_a_record_that_fails_validation_is_a_miss_with_a_warning_naming_the_cache(
    site: Path, env: Path, change: dict[str, Any]
) -> None:
    assert rewrite_variants(env, lambda value: {**value, **change})

    code, out = run("build", str(site))
    assert code == 0, out
    assert downloads(out) == 2, "fetched again"
    assert_published_bytes_are_what_their_names_say(site)
    assert "Traceback" not in out
    assert (
        f"the cache {next(p for p in env.iterdir() if p.name != 'memo')} held" in out
        and "damaged or unreadable" in out
    )
    assert "onerror" not in (site / "_site" / "index.html").read_text()


def test_cache_clear_never_changes_a_file_a_planted_link_points_to(
    site: Path, env: Path, tmp_path: Path
) -> None:
    private = tmp_path / "private-key"
    private.write_text("private")
    private.chmod(0o600)
    (blobs(env)[0].parent / ("0" * 64)).symlink_to(private)

    code, out = run("cache", "clear", str(site))
    assert code == 0, out
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert private.read_text() == "private"
    assert not list(env.glob("*/blobs"))
