"""The disk cache: metadata with a time-to-live, image variants, content-addressed blobs.

In ``store.py``'s layout; a site build's *snapshot* keeps the records it used in one file.
Anything failing its checks is a miss, fetched again, and one warning (docs/reliability.md).
The shared tier (``remote_tier``) is one more backend, read and written through here only.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar, cast

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
    SharedTier,
    blob_name,
    namespace_for,
    open_checked,
    publish_blob,
    record_name,
)

_T = TypeVar("_T")

if TYPE_CHECKING:
    from .head_start import HeadStart
    from .remote_tier import RemoteTier

# Damage found in the shared tier is named with this prefix (``remote records/ab/...``).
REMOTE = "remote "


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
    """The configured service's cache, read-only when asked or configured. With ``shared``
    (a build) and ``[cache] remote``, the shared tier behind it, written only when
    ``shared_write`` (or ``[cache] remote_write``) and the cache is not read-only."""
    service = config.service
    read_only = read_only or config.cache.read_only
    namespace = namespace_for(service.base_url, service.sandbox)
    write = (shared_write or config.cache.remote_write) and not read_only
    tier = None
    if shared and config.cache.remote:  # its module only for a site that has one
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
        # The shared tier (names relative to this folder): asked when the local folder
        # misses, written only when trusted. ``_tier`` stays when a failing one is dropped.
        self._remote = remote
        self._remote_write = remote_write and not read_only
        self._tier = cast("RemoteTier", remote) if isinstance(remote, SharedTier) else None
        self._head_start: HeadStart | None = None
        self._notes: list[str] = []
        # Records fetched when read-only (or taken from the tier): memory, not the cache.
        self._memory: dict[str, dict[str, Any]] = {}
        self._scratch: LocalStore | None = None
        # Each image found fit once per build (read whole, hashed, its structure walked:
        # the check a download gets) -> the very file checked; never read for it again.
        self._checked: dict[Stored, BlobCheck] = {}
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

    def warnings(self) -> list[str]:
        """Warning lines about the cache since it was opened: damage, a shared tier lost."""
        tier = self._tier
        lines = [*self._notes, *(tier.notes if tier else ())]
        damaged = {f"{REMOTE}{name}" for name in (tier.damaged if tier else ())}
        remote = len({name for name in self.damaged if name.startswith(REMOTE)} | damaged)
        if remote:
            lines.append(
                f"warning: the shared cache held {remote} entr{'y' if remote == 1 else 'ies'} "
                "that failed the checks (size, SHA-256, image type or record fields), "
                "ignored and fetched again (alone, or from the service)"
            )
        damage = self.damage_warning()
        return [*lines, *([damage] if damage else [])]

    def damage_warning(self) -> str | None:
        """One line about what failed its checks in the local folder, if anything."""
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

    async def prefetch(self, keys: Iterable[str]) -> bool:
        """Bring the records of ``keys`` and their images from the shared tier at once."""
        if self._tier is None or self._remote is None:
            return False
        await self._tier.prefetch(keys, self)
        return True

    async def flush_shared(self, *, finished: bool) -> None:
        """Write what this build fetched to the shared tier (``finished``: its packs too)."""
        if self._tier is not None:
            used = finished and self._snapshot_name is not None
            try:
                await self._tier.flush(dict(self._used) if used else None, self)
            finally:
                await self._tier.aclose()

    def start_head_start(self, site: str) -> None:
        """A fresh runner's head start on the shared tier's images (``head_start.py``)."""
        if self._tier is None or self.read_only or self._head_start:
            return
        if self._store.kind(_snapshot_name(site)) == "file":  # a warm runner
            return
        from .head_start import start_head_start

        self._head_start = start_head_start(self._tier, self)

    def join_head_start(self) -> None:
        """Wait for the head start (at most the tier's timeout); answer from its pack."""
        head_start, self._head_start = self._head_start, None
        tier = self._tier
        if head_start is None or tier is None:
            return
        pack = head_start.wait(tier.store.timeout)
        if pack is not None:
            tier.give_pack(pack)
            tier.damaged.update(head_start.damaged)

    def open_snapshot(self, site: str, *, read: bool = True) -> None:
        """Track the records this build uses for `site`; unless `read` is false (--refresh),
        answer from its last snapshot first (read on the first lookup)."""
        self._snapshot_name = _snapshot_name(site)
        self._snapshot = None if read else {}
        self._used, self._asked, self._checked = {}, set(), {}

    def save_snapshot(self) -> bool:
        """Save the records this build used as the site's snapshot; True if it wrote."""
        name = self._snapshot_name
        if name is None or self.read_only or self._used == (self._snapshot or {}):
            return False
        snapshot = {"v": schema.SNAPSHOT_VERSION, "records": self._used}
        self._store.put(name, schema.dumps(snapshot))
        self._snapshot = self._used
        return True

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
            self.damaged.append(name)
        return {}

    def _get(
        self, key: str, from_snapshot: Callable[[float], bool] = lambda at: True
    ) -> tuple[float, Any] | None:
        """(fetched at, decoded value) for ``key`` or None: from the snapshot when its entry
        decodes and ``from_snapshot(at)`` accepts it, else from the records."""
        if self._snapshot_name is not None:
            self._asked.add(key)
            if self._snapshot is None:
                self._snapshot = self._load_snapshot(self._snapshot_name)
            entry = self._snapshot.get(key)
            if entry is not None:
                found = self._opened(key, entry, self._snapshot_name)
                if found is not None and from_snapshot(found[0]):
                    self._used[key] = entry
                    return found
        entry = self._read(key)
        found = self._opened(key, entry, record_name(key))
        if found is not None and self._snapshot_name is not None:
            self._used[key] = entry
        return found

    def _opened(self, key: str, record: Any, where: str) -> tuple[float, Any] | None:
        found = None if record is None else schema.decoded(record, key)
        if record is not None and found is None:
            self.damaged.append(where)
        return found

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
            self.damaged.append(name)
            return None
        return record

    def _set(self, key: str, value: Any) -> None:
        record = schema.envelope(key, self._clock(), value)
        if self.read_only:
            self._memory[key] = record
        else:
            data = schema.dumps(record)
            self._store.put(record_name(key), data)
            self._share(record_name(key), data)
        if key in self._asked:  # fetched because it was missing or stale: used from now on
            self._used[key] = record

    def _fresh(self, at: float) -> bool:
        return self._clock() - at <= self.ttl

    def _get_meta(self, key: str) -> Cached | None:
        """A metadata record; from the snapshot only while fresh, else from the records."""
        found = self._get(key, self._fresh)
        if found is None:
            return None
        at, value = found
        return Cached(value, stale=not self._fresh(at))

    def get_file(self, file_id: int) -> Cached | None:
        cached = self._get_meta(f"file:{file_id}")
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
        found = self._opened(key, self._read(key), record_name(key))
        return None if found is None else found[1][1]

    def get_folders(self) -> Cached | None:
        return self._get_meta("folders")

    def put_folders(self, folders: list[Folder]) -> None:
        self._set("folders", [asdict(f) for f in folders])

    def get_formats(self) -> Cached | None:
        return self._get_meta("formats")

    def put_formats(self, formats: list[Format]) -> None:
        self._set("formats", [asdict(f) for f in formats])

    @staticmethod
    def variant_key(file: File, format_id: int, crop_key: str) -> str:
        return f"variant:{file.id}:{format_id}:{crop_key}:{file.uploaded}:{file.filesize}"

    def get_variant(self, key: str) -> Stored | None:
        got = self._get(key)
        if got is None or not isinstance(got[1], Stored):
            return None
        found: Stored = got[1]
        # The blob gets a download's check, once per build. One that fails is damage,
        # deleted unless read-only, and downloaded again.
        if self._check(found) is not None:
            return found
        name = blob_name(found.sha256)
        if self._store.kind(name):
            self.damaged.append(name)
            if not self.read_only:
                self._store.delete(name)
        # One byte over the size: a longer object is damage, not a plain miss.
        if self._from_remote(name, found.size + 1, lambda data: self.keep_blob(found, data)):
            return found if self._check(found) is not None else None
        return None

    def get_preview(self, key: str) -> str | None:
        """A placeholder's CSS value (``media/encode.py``) if the cache holds it."""
        got = self._get(key)
        return None if got is None else str(got[1])

    def put_preview(self, key: str, value: str) -> None:
        self._set(key, value)

    def _remote_record(self, key: str, name: str) -> Any:
        """The shared tier's record for ``key`` if it passes a local record's checks. A
        site build keeps it in memory (its snapshot keeps it: one file, not one per record)."""
        data = self._from_remote(
            name, MAX_RECORD_BYTES, lambda data: schema.decoded(schema.loads(data), key) is not None
        )
        if data is None:
            return None
        record = schema.loads(data)
        if self.read_only or self._snapshot_name is not None:
            self._memory[key] = record
        else:
            self._store.put(name, data)
        self.remote_keys.add(key)
        return record

    def _from_remote(self, name: str, limit: int, fits: Callable[[bytes], bool]) -> bytes | None:
        """The shared tier's ``name`` if ``fits`` takes it; what it refuses is damage."""
        if self._remote is None:
            return None
        data = self._remote_call(self._remote.get, name, limit)
        if data is not None and not fits(data):
            self.damaged.append(f"{REMOTE}{name}")
            return None
        return data

    def _share(self, name: str, data: bytes) -> None:
        if self._remote_write:
            self._remote_call(self._remote.put, name, data)  # type: ignore[union-attr]

    def keep_blob(self, found: Stored, data: bytes) -> bool:
        """Keep ``data`` as the blob of ``found`` if it is exactly that image, checked."""
        if not schema.is_image_of(found, data):
            return False
        self._checked[found] = self._writable_store().put(blob_name(found.sha256), data, mode=0o444)
        return True

    def blob_bytes(self, found: Stored) -> bytes | None:
        """The blob of ``found`` if here and exactly that image: the file checked, its
        bytes those checked (what goes to the shared tier is never a planted file)."""
        try:
            with self.open_blob(found) as source:
                data = source.read(found.size + 1)
        except OSError:
            return None
        same = len(data) == found.size and hashlib.sha256(data).hexdigest() == found.sha256
        return data if same else None

    def has_blob(self, found: Stored) -> bool:
        """Whether the blob of ``found`` is here and fit to publish."""
        return self._check(found) is not None

    def _writable_store(self) -> LocalStore:
        """Where this build keeps what it fetched: the cache, or a scratch folder."""
        if not self.read_only:
            return self._store
        if self._scratch is None:
            self._scratch = LocalStore(Path(tempfile.mkdtemp(prefix="mediashortcodes-")))
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
        """The file of ``stored`` if it is that image, checked once per build."""
        check = self._checked.get(stored)
        if check is None and self._scratch is not None:
            check = self._scratch.check_blob(stored)
        if check is None:
            check = self._store.check_blob(stored)
        if check is not None:
            self._checked[stored] = check
        return check

    def put_variant(self, key: str, data: bytes, *, ext: str, width: int, height: int) -> Stored:
        """Store a download its caller found to be an image of ``ext``, ``width`` x
        ``height`` (``imageinfo.probe``: the one check, not made again here)."""
        sha = hashlib.sha256(data).hexdigest()
        found = Stored(sha, ext, width, height, len(data))
        if schema.stored(asdict(found)) is None:
            raise ValueError(f"not a storable {ext} variant")
        store = self._writable_store()
        # Written whole over whatever is there; another build may remove it right after: the
        # file written must still be at its name, else it is written again.
        for _attempt in range(3):
            check = store.put(blob_name(sha), data, mode=0o444)  # read-only: published as links
            try:
                open_checked(check).close()
                break
            except OSError:
                continue
        else:
            raise FileNotFoundError(f"the blob {sha} kept vanishing from {store.root}")
        self._checked[found] = check
        self._share(blob_name(sha), data)  # the blob before its record
        self._set(key, asdict(found))
        return found

    def blob_path(self, stored: Stored) -> Path:
        check = self._checked.get(stored)
        return Path(check.path) if check else self.dir / blob_name(stored.sha256)

    def open_blob(self, stored: Stored) -> BinaryIO:
        """The variant's blob open for reading: the very file that passed its checks."""
        return self._use_checked(stored, open_checked)

    def publish(self, stored: Stored, target: Path) -> None:
        """Put the variant's blob at ``target``: a hard link of the file checked, else a copy."""
        self._use_checked(stored, lambda check: publish_blob(check, target))

    def _use_checked(self, stored: Stored, use: Callable[[BlobCheck], _T]) -> _T:
        check = self._check(stored)
        for _attempt in range(3):
            if check is None:
                raise FileNotFoundError(f"the cached image {stored.sha256} is gone or damaged")
            try:
                return use(check)
            except FileNotFoundError:
                # Another build wrote this blob again since: check the file now there.
                self._checked.pop(stored, None)
                check = self._check(stored)
        raise FileNotFoundError(f"the cached image {stored.sha256} kept changing")

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
        """Check every entry (``cache_verify``); with ``remove``, delete what fails."""
        return verify(self._store, remove=remove)
