"""The disk cache: metadata with a time-to-live, image variants, content-addressed blobs.

Wraps diskcache (SQLite, safe for several processes at once) for records, and keeps image
bytes as plain files named by their SHA-256 so they can be hard-linked into a site.
Each service gets its own namespace, so a sandbox and a real service never mix.

Keys are built from every input that changes the output (STYLE.md): a variant is keyed by
file id, format, crop and the file's ``uploaded`` time and size, so a file replaced
upstream is fetched again as soon as its metadata is refreshed.

A site build also keeps a *snapshot*: one file holding every record the build used, so the
next build of the same site reads one file instead of one record per file and variant, and
a fully warm build never opens SQLite (whose every opening writes and syncs its settings).
It is only a shortcut: a stale metadata entry in it, or a variant whose blob is gone, falls
through to the records themselves, exactly as without it.

Damage is a miss, never a published file or a traceback: a blob whose size is not the one
recorded is deleted and fetched again, a record (or snapshot entry) that does not fit the
current classes is not cached, and a database SQLite cannot read is a ConfigError naming
the file and ``mediashortcodes cache clear``.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import diskcache
from diskcache.core import DBNAME

from ..errors import ConfigError
from ..records import File, FileType, Folder, Format

META = "meta"
VARIANT = "variant"

# Records hold plain dicts, turned into the current classes when read. One written by a
# version whose classes had other fields does not fit (TypeError: an unexpected or missing
# argument; KeyError: a missing key) and is treated as not cached: fetched and written again.
MISFIT = (TypeError, KeyError)


@dataclass(frozen=True)
class Stored:
    """An image variant in the blob store."""

    sha256: str
    ext: str
    width: int
    height: int
    size: int

    @property
    def blob_name(self) -> str:
        return f"{self.sha256}.{self.ext}"


@dataclass(frozen=True)
class Cached:
    """A cached value and whether its time-to-live has run out."""

    value: Any
    stale: bool


def namespace_for(base_url: str, sandbox: bool) -> str:
    if sandbox:
        return "sandbox"
    return hashlib.sha256(base_url.rstrip("/").encode()).hexdigest()[:16]


class MediaCache:
    def __init__(self, root: Path, namespace: str, *, ttl: float, clock: Any = time.time) -> None:
        self.root = root
        self.dir = root / namespace
        self.blobs = self.dir / "blobs"
        self._blobs = str(self.blobs)
        self.ttl = ttl
        self._clock = clock
        self._db: diskcache.Cache | None = None
        self._made: set[Path] = set()  # blob directories known to exist
        self._snapshot_file: Path | None = None
        self._snapshot: dict[str, Any] | None = None  # key -> record, as the last build used it
        self._used: dict[str, Any] = {}  # key -> record, as this build used it
        self._asked: set[str] = set()  # keys this build looked up

    @property
    def db(self) -> diskcache.Cache:
        # Opened on first use: a build that needs nothing from the cache never touches it.
        if self._db is None:
            self.dir.mkdir(parents=True, exist_ok=True)
            with self._readable():
                self._db = diskcache.Cache(str(self.dir / "records"), size_limit=2**30)
        return self._db

    @contextmanager
    def _readable(self) -> Iterator[None]:
        """Turn a database SQLite cannot read into an error that says what to do. A busy or
        unreachable one (OperationalError: locked, no permission) is not damage: as it is."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError):
                raise
            raise ConfigError(
                f"the cache database {self.dir / 'records' / DBNAME} is damaged ({exc}); "
                "run `mediashortcodes cache clear SITE` to empty this cache (the next build "
                "downloads what it needs again)"
            ) from None

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    # -- the site snapshot -----------------------------------------------------------------

    def open_snapshot(self, site: str, *, read: bool = True) -> None:
        """Track the records this build uses for `site`; unless `read` is false (--refresh),
        answer from the snapshot its last build saved before asking the records one by one.
        The snapshot is read on the first lookup: a site without shortcodes never opens the cache.
        """
        name = hashlib.sha256(site.encode()).hexdigest()[:16]
        self._snapshot_file = self.dir / "snapshots" / f"{name}.pickle"
        self._snapshot = None if read else {}
        self._used, self._asked = {}, set()

    def save_snapshot(self) -> bool:
        """Save the records this build used as its site's snapshot; a build that used exactly
        the snapshot writes nothing. True if it wrote."""
        path = self._snapshot_file
        if path is None or self._used == (self._snapshot or {}):
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        # Write then rename: two builds of a site may save at once; the last one wins whole.
        tmp = path.parent / f".tmp-{os.getpid()}-{os.urandom(6).hex()}"
        try:
            with open(tmp, "wb") as out:
                pickle.dump(self._used, out, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        self._snapshot = self._used
        return True

    def _load_snapshot(self, path: Path) -> dict[str, Any]:
        try:
            with open(path, "rb") as source:
                snapshot = pickle.load(source)
        except FileNotFoundError:
            return {}
        except Exception:  # a damaged snapshot (unpickling raises anything) is rebuilt
            return {}
        return snapshot if isinstance(snapshot, dict) else {}

    def _get(self, key: str, usable: Callable[[Any], bool] | None = None) -> Any:
        if self._snapshot_file is None:
            return self._read(key)
        self._asked.add(key)
        if self._snapshot is None:
            self._snapshot = self._load_snapshot(self._snapshot_file)
        entry = self._snapshot.get(key)
        if entry is None or (usable is not None and not usable(entry)):
            entry = self._read(key)
        if entry is not None:
            self._used[key] = entry
        return entry

    def _read(self, key: str) -> Any:
        with self._readable():
            return self.db.get(key)

    def _set(self, key: str, entry: Any, tag: str) -> None:
        with self._readable():
            self.db.set(key, entry, tag=tag)
        if key in self._asked:  # fetched because it was missing or stale: used from now on
            self._used[key] = entry

    # -- metadata -------------------------------------------------------------------------

    def _fresh(self, entry: tuple[float, Any]) -> bool:
        return self._clock() - entry[0] <= self.ttl

    def _get_meta(self, key: str) -> Cached | None:
        entry = self._get(key, self._fresh)
        if entry is None:
            return None
        return Cached(entry[1], stale=not self._fresh(entry))

    def _set_meta(self, key: str, value: Any) -> None:
        self._set(key, (self._clock(), value), META)

    def get_file(self, file_id: int) -> Cached | None:
        cached = self._get_meta(f"file:{file_id}")
        if cached is None:
            return None
        try:
            data = dict(cached.value)
            data["type"] = FileType(**data["type"])
            return Cached(File(**data), cached.stale)
        except MISFIT:
            return None

    def put_folder_files(self, folder_id: int, files: list[File]) -> None:
        """Remember every file of a listed folder and where it lives, in one transaction."""
        with self._readable(), self.db.transact():
            for file in files:
                self._set_meta(f"file:{file.id}", asdict(file))
                self.db.set(f"loc:{file.id}", folder_id, tag=META)

    def get_location(self, file_id: int) -> int | None:
        value = self._read(f"loc:{file_id}")
        return value if isinstance(value, int) else None

    def get_folders(self) -> Cached | None:
        cached = self._get_meta("folders")
        if cached is None:
            return None
        try:
            return Cached([Folder(**f) for f in cached.value], cached.stale)
        except MISFIT:
            return None

    def put_folders(self, folders: list[Folder]) -> None:
        self._set_meta("folders", [asdict(f) for f in folders])

    def get_formats(self) -> Cached | None:
        cached = self._get_meta("formats")
        if cached is None:
            return None
        try:
            return Cached([Format(**f) for f in cached.value], cached.stale)
        except MISFIT:
            return None

    def put_formats(self, formats: list[Format]) -> None:
        self._set_meta("formats", [asdict(f) for f in formats])

    # -- image variants -------------------------------------------------------------------

    @staticmethod
    def variant_key(file: File, format_id: int, crop_key: str) -> str:
        return f"variant:{file.id}:{format_id}:{crop_key}:{file.uploaded}:{file.filesize}"

    def get_variant(self, key: str) -> Stored | None:
        value = self._get(key)
        if value is None:
            return None
        try:
            stored = Stored(**value)
        except MISFIT:
            return None
        # The one system call a warm build makes per variant. A blob removed by hand is a
        # miss; so is one whose size is not the size written (cut short, damaged): it is
        # deleted, so the variant is downloaded and verified again, never published as it is.
        path = self.blob_file(stored)
        try:
            if os.stat(path).st_size == stored.size:
                return stored
        except OSError:
            return None
        with suppress(OSError):  # gone already, or not ours to delete: put_variant replaces it
            os.unlink(path)
        return None

    def put_variant(self, key: str, data: bytes, *, ext: str, width: int, height: int) -> Stored:
        sha = hashlib.sha256(data).hexdigest()
        stored = Stored(sha, ext, width, height, len(data))
        path = self.blob_path(stored)
        try:
            intact = path.stat().st_size == stored.size
        except OSError:
            intact = False
        if not intact:  # missing, or damaged since get_variant looked: (re)written whole
            if path.parent not in self._made:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._made.add(path.parent)
            # Write then rename: a build killed mid-write never leaves a torn blob behind,
            # and two builds writing the same blob both end with the same bytes. The blob is
            # read-only from the start (published copies are hard links to it).
            tmp = path.parent / f".tmp-{os.getpid()}-{os.urandom(6).hex()}"
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                os.replace(tmp, path)
            except BaseException:
                tmp.unlink(missing_ok=True)
                raise
        self._set(key, asdict(stored), VARIANT)
        return stored

    def blob_path(self, stored: Stored) -> Path:
        return Path(self.blob_file(stored))

    def blob_file(self, stored: Stored) -> str:
        """The blob's path as text: pathlib (or even os.path.join) costs more than the lookup
        on a warm build, which asks for every variant's blob."""
        return f"{self._blobs}{os.sep}{stored.sha256[:2]}{os.sep}{stored.sha256}.{stored.ext}"

    # -- maintenance ----------------------------------------------------------------------

    def info(self) -> dict[str, Any]:
        records = 0
        if self.dir.is_dir():  # looking creates nothing: no cache yet is 0 records
            with self._readable():
                records = len(self.db)
        blob_files = (
            [p for p in self.blobs.rglob("*") if p.is_file()] if self.blobs.exists() else []
        )
        return {
            "directory": str(self.dir),
            "records": records,
            "blobs": len(blob_files),
            "blob_bytes": sum(p.stat().st_size for p in blob_files),
            "metadata_ttl_seconds": self.ttl,
        }

    def clear(self) -> None:
        self.close()
        if self.dir.exists():
            for path in self.blobs.rglob("*") if self.blobs.exists() else []:
                if path.is_file():
                    path.chmod(0o644)
            shutil.rmtree(self.dir)
