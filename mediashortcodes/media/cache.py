"""The disk cache: metadata with a time-to-live, image variants, content-addressed blobs.

Data only (``store.py`` has the layout): image bytes named by their SHA-256, so they can be
hard-linked into a site, and small versioned JSON records keyed by every input that changes
the output (a variant by file id, format, crop and the file's ``uploaded`` time and size).
Each service gets its own folder. A site build also keeps a *snapshot*: the records it used,
in one file, read by the next build instead of one record each (a shortcut only).

The cache is not trusted (a CI cache is restored from what other jobs wrote): anything that
fails its checks is a miss, fetched again, and counted for one warning. A blob is published
only when it is a regular file of the recorded size with its image type's signature (its
full hash is checked when stored and by ``cache verify``). A read-only cache (untrusted
builds) writes nothing into it, keeping what it fetched in a temporary folder. A shared tier
(``remote_tier``) is one more backend behind it, read and written through the cache only.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar

from ..client.redact import redact_urls_in
from ..config import Config
from ..records import File, Folder, Format
from . import cache_records as schema
from .cache_records import Stored
from .cache_verify import VerifyReport, verify
from .store import (
    BLOBS,
    MAX_RECORD_BYTES,
    RECORDS,
    SNAPSHOTS,
    Backend,
    BlobCheck,
    LocalStore,
    blob_name,
    namespace_for,
    open_checked,
    publish_blob,
    record_name,
    scratch_store,
)

_T = TypeVar("_T")

if TYPE_CHECKING:
    from .head_start import HeadStart
    from .remote_tier import RemoteTier

# Damage found in the shared tier is named with this prefix (``remote records/ab/...``).
REMOTE = "remote "

__all__ = ["Cached", "MediaCache", "Stored", "VerifyReport", "cache_for", "namespace_for"]


@dataclass(frozen=True)
class Cached:
    """A cached value and whether its time-to-live has run out."""

    value: Any
    stale: bool


def cache_for(
    config: Config,
    *,
    read_only: bool = False,
    shared: bool = False,
    shared_write: bool = False,
    jobs: int | None = None,
) -> MediaCache:
    """The cache of the configured service; read-only when asked here or by the config
    (``[cache] read_only``, MEDIASHORTCODES_CACHE_READ_ONLY). With ``shared`` (a build) and
    ``[cache] remote``, the shared tier behind it, written only when ``shared_write``
    (--cache-write, ``[cache] remote_write``) and the cache is not read-only: an untrusted
    build writes nowhere."""
    service = config.service
    read_only = read_only or config.cache.read_only
    namespace = namespace_for(service.base_url, service.sandbox)
    write = (shared_write or config.cache.remote_write) and not read_only
    tier = None
    if shared and config.cache.remote:  # its module (and obstore) only for a site that has one
        from .remote_tier import open_tier

        tier = open_tier(config, namespace, write=write, jobs=jobs or config.build.jobs)
    return MediaCache(
        config.cache_dir,
        namespace,
        ttl=config.cache.metadata_ttl,
        read_only=read_only,
        remote=tier,
        remote_write=write and tier is not None,
    )


def _snapshot_name(site: str) -> str:
    return f"{SNAPSHOTS}/{hashlib.sha256(site.encode()).hexdigest()[:16]}.json"


class MediaCache:
    def __init__(
        self,
        root: Path,
        namespace: str,
        *,
        ttl: float,
        clock: Any = time.time,
        read_only: bool = False,
        remote: Backend | None = None,
        remote_write: bool = False,
    ) -> None:
        self.root = root
        self.dir = root / namespace
        self.blobs = self.dir / BLOBS
        self.ttl = ttl
        self.read_only = read_only
        self._clock = clock
        self._store = LocalStore(self.dir)
        # A shared tier of the same layout (names relative to this service's folder): asked
        # when the local folder misses; written only when trusted (``remote_write``).
        self._remote = remote
        self._remote_write = remote_write and not read_only
        self._tier = remote  # kept when the tier is dropped: its damage is still reported
        self._head_start: HeadStart | None = None
        self._notes: list[str] = []
        # Read-only: what this build fetched lives here and in a scratch folder, never in
        # the cache; both go when the cache is closed.
        self._memory: dict[str, dict[str, Any]] = {}
        self._scratch: LocalStore | None = None
        self._checked: dict[str, BlobCheck] = {}  # sha256 -> the blob file found fit
        self.remote_keys: set[str] = set()  # keys whose record this build took from the tier
        self.damaged: list[str] = []  # layout names that failed their checks (each a miss)
        self._snapshot_name: str | None = None
        self._snapshot: dict[str, Any] | None = None  # key -> record, as the last build used
        self._used: dict[str, Any] = {}  # key -> record, as this build used it
        self._asked: set[str] = set()  # keys this build looked up

    def close(self) -> None:
        if self._head_start is not None:
            self._head_start.stop()
            self._head_start = None
        if self._scratch is not None:
            self._scratch.clear()
            self._scratch = None

    def _damage(self, name: str) -> None:
        self.damaged.append(name)

    def warnings(self) -> list[str]:
        """Warning lines about the cache since it was opened: damage, a shared tier lost."""
        lines = [*self._notes, *getattr(self._tier, "notes", ())]
        tier = {f"{REMOTE}{name}" for name in getattr(self._tier, "damaged", ())}
        remote = len({name for name in self.damaged if name.startswith(REMOTE)} | tier)
        if remote:
            lines.append(
                f"warning: the shared cache held {remote} entr{'y' if remote == 1 else 'ies'} "
                "that failed the checks (size, SHA-256, image type or record fields), "
                "ignored and fetched again (alone, or from the service)"
            )
        damage = self.damage_warning()
        return [*lines, *([damage] if damage else [])]

    def damage_warning(self) -> str | None:
        """One line about what failed its checks in the local folder, if anything (the
        shared tier's damage has a line of its own: :meth:`warnings`)."""
        local = {name for name in self.damaged if not name.startswith(REMOTE)}
        if not local:
            return None
        count = len(local)
        fix = (
            "run `mediashortcodes cache verify` to remove them"
            if not self.read_only
            else "left as they are: the cache is read-only"
        )
        return (
            f"warning: the cache {self.dir} held {count} damaged or unreadable "
            f"entr{'y' if count == 1 else 'ies'}, ignored and fetched again ({fix})"
        )

    # -- the shared tier -----------------------------------------------------------------

    def _shared(self) -> RemoteTier | None:
        """The shared tier (a ``remote_tier.RemoteTier``), if the remote backend is one."""
        return self._tier if hasattr(self._tier, "prefetch") else None  # type: ignore[return-value]

    async def prefetch(self, keys: Iterable[str]) -> bool:
        """Ask the shared tier, all at once, for the records of ``keys`` and their images,
        so that the look-ups after it find them (checked as they are read); False, asking
        nothing, when there is no shared tier."""
        tier = self._shared()
        if tier is None or self._remote is None:
            return False
        await tier.prefetch(keys, self)
        return True

    async def flush_shared(self, *, finished: bool) -> None:
        """Write what this build fetched to the shared tier (a trusted build's), then close
        it; when the build ``finished``, the records it used and their packs too."""
        tier = self._shared()
        if tier is not None:
            try:
                await tier.flush(self.used_records() if finished else None, self)
            finally:
                await tier.aclose()

    def start_head_start(self, site: str) -> None:
        """A fresh runner's head start on the shared tier's images (``head_start.py``),
        joined by :meth:`join_head_start`; none for a read-only cache or a warm runner."""
        tier = self._shared()
        if tier is None or self.read_only or self._head_start or self.has_snapshot(site):
            return
        from .head_start import start_head_start

        self._head_start = start_head_start(tier, self)

    def join_head_start(self) -> None:
        """Wait for the head start (at most the shared tier's timeout), then answer from
        the pack it read."""
        head_start, self._head_start = self._head_start, None
        tier = self._shared()
        if head_start is None or tier is None:
            return
        pack = head_start.wait(tier.store.timeout)
        if pack is not None:
            tier.give_pack(pack)
            tier.damaged.update(head_start.damaged)

    # -- the site snapshot -----------------------------------------------------------------

    def open_snapshot(self, site: str, *, read: bool = True) -> None:
        """Track the records this build uses for `site`; unless `read` is false (--refresh),
        answer from the snapshot its last build saved before asking the records one by one.
        The snapshot is read on the first lookup: a site without shortcodes never opens the cache.
        """
        self._snapshot_name = _snapshot_name(site)
        self._snapshot = None if read else {}
        self._used, self._asked = {}, set()

    def save_snapshot(self) -> bool:
        """Save the records this build used as its site's snapshot; a build that used exactly
        the snapshot (or a read-only cache) writes nothing. True if it wrote."""
        name = self._snapshot_name
        if name is None or self.read_only or self._used == (self._snapshot or {}):
            return False
        snapshot = {"v": schema.SNAPSHOT_VERSION, "records": self._used}
        self._store.put(name, schema.dumps(snapshot))
        self._snapshot = self._used
        return True

    def used_records(self) -> dict[str, Any] | None:
        """Key -> record of what this build used (None unless a snapshot was opened): what
        a trusted build shares as the shared tier's pack."""
        return None if self._snapshot_name is None else dict(self._used)

    def _load_snapshot(self, name: str) -> dict[str, Any]:
        data = self._store.get(name)
        snapshot = schema.loads(data)
        if (
            type(snapshot) is dict
            and snapshot.get("v") == schema.SNAPSHOT_VERSION
            and type(snapshot.get("records")) is dict
        ):
            return snapshot["records"]
        if data is not None:  # there, but not a snapshot this version wrote: rebuilt
            self._damage(name)
        return {}

    def _get(
        self,
        key: str,
        decode: Callable[[Any], Any],
        from_snapshot: Callable[[float], bool] = lambda at: True,
    ) -> tuple[float, Any] | None:
        """(fetched at, decoded value) for ``key``, or None (a miss): from the snapshot when
        it holds an entry that decodes and ``from_snapshot(at)`` accepts, else from the
        records. ``decode`` returns None for a value that does not fit."""
        if self._snapshot_name is not None:
            self._asked.add(key)
            if self._snapshot is None:
                self._snapshot = self._load_snapshot(self._snapshot_name)
            entry = self._snapshot.get(key)
            if entry is not None:
                found = self._opened(key, entry, decode, self._snapshot_name)
                if found is not None and from_snapshot(found[0]):
                    self._used[key] = entry
                    return found
        entry = self._read(key)
        found = self._opened(key, entry, decode, record_name(key))
        if found is not None and self._snapshot_name is not None:
            self._used[key] = entry
        return found

    def _opened(
        self, key: str, record: Any, decode: Callable[[Any], Any], where: str
    ) -> tuple[float, Any] | None:
        if record is None:
            return None
        opened = schema.opened(record, key)
        value = None if opened is None else decode(opened[1])
        if value is None:
            self._damage(where)
            return None
        return opened[0], value

    def _read(self, key: str) -> Any:
        record = self._memory.get(key)
        if record is not None:
            return record
        name = record_name(key)
        data = self._store.get(name)
        if data is None and self._remote is not None:
            return self._remote_record(key, name)
        record = schema.loads(data)
        if data is not None and record is None:
            self._damage(name)
            return None
        return record

    def _set(self, key: str, value: Any) -> None:
        record = schema.envelope(key, self._clock(), value)
        if self.read_only:
            self._memory[key] = record
        else:
            data = schema.dumps(record)
            self._store.put(record_name(key), data)
            if self._remote_write:
                self._remote_call(self._remote.put, record_name(key), data)  # type: ignore[union-attr]
        if key in self._asked:  # fetched because it was missing or stale: used from now on
            self._used[key] = record

    # -- metadata -------------------------------------------------------------------------

    def _fresh(self, at: float) -> bool:
        return self._clock() - at <= self.ttl

    def _get_meta(self, key: str, decode: Callable[[Any], Any]) -> Cached | None:
        """A metadata record; from the snapshot only while fresh (another build may have
        written a fresher record since), else as the records have it, stale or not."""
        found = self._get(key, decode, self._fresh)
        if found is None:
            return None
        at, value = found
        return Cached(value, stale=not self._fresh(at))

    def get_file(self, file_id: int) -> Cached | None:
        cached = self._get_meta(f"file:{file_id}", schema.located_file)
        if cached is None:
            return None
        file, _folder = cached.value
        return Cached(file, cached.stale)

    def put_folder_files(self, folder_id: int, files: list[File]) -> None:
        """Remember every file of a listed folder and where it lives."""
        for file in files:
            self._set(f"file:{file.id}", {"file": asdict(file), "folder": folder_id})

    def get_location(self, file_id: int) -> int | None:
        key = f"file:{file_id}"
        found = self._opened(key, self._read(key), schema.located_file, record_name(key))
        return None if found is None else found[1][1]

    def get_folders(self) -> Cached | None:
        return self._get_meta("folders", schema.folders_value)

    def put_folders(self, folders: list[Folder]) -> None:
        self._set("folders", [asdict(f) for f in folders])

    def get_formats(self) -> Cached | None:
        return self._get_meta("formats", schema.formats_value)

    def put_formats(self, formats: list[Format]) -> None:
        self._set("formats", [asdict(f) for f in formats])

    # -- image variants -------------------------------------------------------------------

    @staticmethod
    def variant_key(file: File, format_id: int, crop_key: str) -> str:
        return f"variant:{file.id}:{format_id}:{crop_key}:{file.uploaded}:{file.filesize}"

    def get_variant(self, key: str) -> Stored | None:
        got = self._get(key, schema.stored)
        if got is None:
            return None
        found: Stored = got[1]
        # The warm path's one look at the blob: a regular file (never through a link) of
        # the recorded size that starts with its type's signature. A blob removed by hand is
        # a miss; one that fails the check is damage: deleted (unless read-only), so the
        # variant is downloaded and verified again, never published as it is.
        check = self._check(found)
        if check is not None:
            return found
        if self._store.kind(blob_name(found.sha256)):
            self._damage(blob_name(found.sha256))
            if not self.read_only:
                self._store.delete(blob_name(found.sha256))
        if self._remote is not None and self._blob_from_remote(found):
            return found
        return None

    def _remote_record(self, key: str, name: str) -> Any:
        """The shared tier's record for ``key``, kept here once it passed the same checks as
        a local one; one that fails them is remote damage. Kept in memory when read-only,
        and in a site build, whose snapshot (one file, saved when it has resolved) keeps
        every record it used: a fresh runner writes one file, not one per record (each new
        file is system time on the cores the build needs)."""
        data = self._remote_call(self._remote.get, name, MAX_RECORD_BYTES)  # type: ignore[union-attr]
        if data is None:
            return None
        record = schema.loads(data)
        if schema.decoded(record, key) is None:
            self._damage(f"{REMOTE}{name}")
            return None
        if self.read_only or self._snapshot_name is not None:
            self._memory[key] = record
        else:
            self._store.put(name, data)
        self.remote_keys.add(key)
        return record

    def _blob_from_remote(self, found: Stored) -> bool:
        """Bring the variant's blob from the shared tier, checked in full (size, SHA-256,
        signature) before it is kept; True when it is now here."""
        name = blob_name(found.sha256)
        # One byte over the recorded size: a longer object reaches the checks below and is
        # counted as damage, as a longer local blob is, instead of passing for a plain miss.
        data = self._remote_call(self._remote.get, name, found.size + 1)  # type: ignore[union-attr]
        if data is None:
            return False
        if not self.keep_blob(found, data):
            self._damage(f"{REMOTE}{name}")
            return False
        return self._check(found) is not None

    def keep_blob(self, found: Stored, data: bytes) -> bool:
        """Keep ``data`` as the blob of ``found`` if it is exactly that image (size, SHA-256,
        signature: what came from elsewhere is checked in full); False, keeping nothing,
        when it is not."""
        if not schema.is_image_of(found, data):
            return False
        self._writable_store().put(blob_name(found.sha256), data, mode=0o444)
        return True

    def blob_bytes(self, found: Stored) -> bytes | None:
        """The bytes of the blob of ``found`` if they are exactly that image (size, SHA-256,
        signature, checked in full: what goes to the shared tier is never a planted file);
        None when they are not, or it is not here."""
        try:
            with self.open_blob(found) as source:
                data = source.read(found.size + 1)
        except OSError:
            return None
        return data if schema.is_image_of(found, data) else None

    def has_blob(self, found: Stored) -> bool:
        """Whether the blob of ``found`` is here and fit to publish (the warm path's check)."""
        return found.sha256 in self._checked or self._check(found) is not None

    def has_snapshot(self, site: str) -> bool:
        """Whether a build of ``site`` saved its snapshot here (else: a fresh runner)."""
        return self._store.kind(_snapshot_name(site)) == "file"

    def _writable_store(self) -> LocalStore:
        """Where this build keeps what it fetched: the cache, or (read-only) a scratch folder."""
        if not self.read_only:
            return self._store
        if self._scratch is None:
            self._scratch = scratch_store()
        return self._scratch

    def _remote_call(self, method: Callable[..., Any], *args: Any) -> Any:
        """Call the shared tier; a failure is a warning and the build goes on without it."""
        try:
            return method(*args)
        except Exception as exc:
            self._notes.append(
                f"warning: the shared cache failed ({type(exc).__name__}: "
                f"{redact_urls_in(str(exc))}); this build goes on without it"
            )
            self._remote = None
            self._remote_write = False
            return None

    def _check(self, stored: Stored) -> BlobCheck | None:
        fits = schema.HEAD_CHECKS[stored.ext]
        check = None
        if self._scratch is not None:
            check = self._scratch.check_blob(stored.sha256, stored.size, fits)
        if check is None:
            check = self._store.check_blob(stored.sha256, stored.size, fits)
        if check is not None:
            self._checked[stored.sha256] = check
        return check

    def put_variant(self, key: str, data: bytes, *, ext: str, width: int, height: int) -> Stored:
        """Store a downloaded variant (its bytes already verified as an image of ``ext``)."""
        sha = hashlib.sha256(data).hexdigest()
        found = Stored(sha, ext, width, height, len(data))
        if schema.stored(asdict(found)) is None or not schema.head_fits(ext, data[:16]):
            raise ValueError(f"not a storable {ext} variant")
        store = self._writable_store()
        # An existing blob of that name is kept only if its bytes hash to it (checked in
        # full here, on the cold path): a planted or damaged one is written over. Another
        # build sharing the cache may remove the name between our write and our look (it
        # found it absent a moment before, and clears it before writing): write it again.
        for _attempt in range(3):
            if (store.blob_digest(sha) or ("",))[0] != sha:
                store.delete(blob_name(sha))
                store.put(blob_name(sha), data, mode=0o444)  # read-only: published as links
            check = store.check_blob(sha, len(data), schema.HEAD_CHECKS[ext])
            if check is not None:
                break
        else:
            raise FileNotFoundError(f"the blob {sha} kept vanishing from {store.root}")
        self._checked[sha] = check
        if self._remote_write:  # the blob before its record: no record without its image
            self._remote_call(self._remote.put, blob_name(sha), data)  # type: ignore[union-attr]
        self._set(key, asdict(found))
        return found

    def blob_path(self, stored: Stored) -> Path:
        check = self._checked.get(stored.sha256)
        return Path(check.path) if check else self.dir / blob_name(stored.sha256)

    def open_blob(self, stored: Stored) -> BinaryIO:
        """The variant's blob open for reading: the file that passed its checks, never one
        swapped in since or reached through a link (for writers that copy, not link)."""
        return self._use_checked(stored, open_checked)

    def publish(self, stored: Stored, target: Path) -> None:
        """Put the variant's blob at ``target``: a hard link to the blob file that passed
        its checks (the same file, never one swapped in since), else a copy."""
        self._use_checked(stored, lambda check: publish_blob(check, target))

    def _use_checked(self, stored: Stored, use: Callable[[BlobCheck], _T]) -> _T:
        check = self._checked.get(stored.sha256) or self._check(stored)
        for _attempt in range(3):
            if check is None:
                raise FileNotFoundError(f"the cached image {stored.sha256} is gone or damaged")
            try:
                return use(check)
            except FileNotFoundError:
                # Another build sharing the cache wrote this blob again (same name, same
                # bytes) after it was checked here: check the file now there, use that.
                self._checked.pop(stored.sha256, None)
                check = self._check(stored)
        raise FileNotFoundError(f"the cached image {stored.sha256} kept changing")

    # -- maintenance ----------------------------------------------------------------------

    def info(self) -> dict[str, Any]:
        records = blobs = blob_bytes = 0
        for name in self._store.names():
            if self._store.kind(name) != "file":
                continue
            if name.startswith(f"{RECORDS}/") and name.endswith(".json"):
                records += 1
            elif name.startswith(f"{BLOBS}/"):
                blobs += 1
                blob_bytes += os.lstat(self.dir / name).st_size
        return {
            "directory": str(self.dir),
            "records": records,
            "blobs": blobs,
            "blob_bytes": blob_bytes,
            "metadata_ttl_seconds": self.ttl,
            "read_only": self.read_only,
        }

    def clear(self) -> None:
        self.close()
        self._store.clear()

    def verify(self, *, remove: bool = True) -> VerifyReport:
        """Check every entry (``cache_verify.verify``); with ``remove``, delete what fails."""
        return verify(self._store, remove=remove)
