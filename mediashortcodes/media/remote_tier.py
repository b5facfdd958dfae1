"""The shared tier: the cache's layout (``store.py``'s names) in a remote, as a backend.

The cache reads a backend one name at a time, far too slow for a bucket 20 ms away, so it
first asks :meth:`RemoteTier.prefetch` for all it lacks at once. The packs, and the order
of the writes, are docs/ci.md's; all the tier gives is checked like local data.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from ..config import Config
from . import cache_records as schema
from .remote import RemoteStore, open_remote
from .store import BLOBS, MAX_RECORD_BYTES, blob_name, record_name

_T = TypeVar("_T")

# Largest record we write (a list of 10,000 folders is ~2 MB).
RECORD_LIMIT = min(MAX_RECORD_BYTES, 16 * 1024 * 1024)
# The pack (a new format gets a new name) and the most it may weigh (W1's: ~0.5 MB).
PACK = "packs/records-v1.json"
PACK_VERSION = 1
PACK_LIMIT = min(MAX_RECORD_BYTES, 128 * 1024 * 1024)
# The images' packs' index, their folder, and the most they weigh (beyond: no packs).
IMAGES = "packs/images-v1.json"
IMAGES_VERSION = 1
IMAGE_PACKS = "packs/images"
IMAGE_PACK_LIMIT = 256 * 1024 * 1024
IMAGES_LIMIT = 16 * 1024 * 1024  # the index: about 76 bytes an image (W1's: 60 kB)
# One ranged read of an images' pack: RANGE_LEAST to RANGE_MOST bytes, reading over gaps
# smaller than RANGE_GAP.
RANGE_LEAST = 1024 * 1024
RANGE_MOST = 8 * 1024 * 1024
RANGE_GAP = 64 * 1024


class LocalBlobs(Protocol):
    """``cache.MediaCache``, as the tier asks it about images."""

    def has_blob(self, found: schema.Stored) -> bool: ...

    def blob_bytes(self, found: schema.Stored) -> bytes | None: ...

    def keep_blob(self, found: schema.Stored, data: bytes) -> bool: ...


class RemoteTier:
    """A ``store.SharedTier`` over a :class:`RemoteStore`, under one service's folder."""

    def __init__(
        self,
        store: RemoteStore,
        namespace: str,
        *,
        max_blob_bytes: int,
        notes: list[str],
    ) -> None:
        self.store = store
        self.notes = notes  # the store's warnings
        self._prefix = f"{namespace}/"
        self._max_blob_bytes = max_blob_bytes
        self._fetched: dict[str, bytes | None] = {}  # name -> what the remote answered
        self._records: dict[str, bytes] = {}  # records to write, once the blobs are there
        self._uploads: set[asyncio.Task[None]] = set()
        self._sent: set[str] = set()  # blobs this build sent (or is sending)
        self._loads: dict[str, asyncio.Future[Any]] = {}  # reads in flight; the packs' kept
        self._packed: dict[str, Any] | None = None  # key -> record, as the pack held them
        self._given_pack: bytes | None = None  # see give_pack
        self.pack_data: bytes | None = None  # the pack's bytes, once read (None: none)
        # Names that failed their checks: one warning; a trusted build writes them over.
        self.damaged: set[str] = set()

    # -- the cache's Backend (synchronous, never a network call)

    def get(self, name: str, limit: int) -> bytes | None:
        data = self._fetched.get(name)
        if data is not None and name.startswith(f"{BLOBS}/"):
            self._fetched[name] = None  # the cache keeps it from here on: not held twice
        return data if data is not None and len(data) <= limit else None

    def put(self, name: str, data: bytes) -> None:
        if not self.store.write_enabled:
            return
        if not name.startswith(f"{BLOBS}/"):
            self._records[name] = data
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not inside a build's loop: nothing to send it with
            return
        if name in self._sent:  # two variants, one image: one PUT
            return
        self._sent.add(name)
        task = loop.create_task(self._upload_blob(name, data))
        self._uploads.add(task)
        task.add_done_callback(self._uploads.discard)

    # -- the network side

    async def prefetch(self, keys: Iterable[str], local: LocalBlobs) -> None:
        """Fetch the records of ``keys`` and their images, from the packs where they can."""
        keys = set(keys)
        pack, _wanted, _kept = await self._from_packs(keys, local, self._hold)
        await asyncio.gather(*(self._fetch_record(key, pack.get(key), local) for key in keys))

    async def _from_packs(
        self,
        keys: set[str] | None,
        local: LocalBlobs,
        keep: Callable[[schema.Stored, bytes], bool],
        read: Callable[[bytes], None] | None = None,
    ) -> tuple[dict[str, Any], dict[str, schema.Stored], set[str]]:
        """The pack's records (its bytes given to ``read``); the images of those of ``keys``
        (None: all) that ``local`` lacks; the SHA-256s of those the images' packs gave."""
        pack, index = await asyncio.gather(
            self._once(PACK, self._load_pack), self._once(IMAGES, self._load_images)
        )
        if read is not None and self.pack_data is not None:
            read(self.pack_data)
        if index is None and keys is not None:
            return pack, {}, set()
        wanted = self._lacking(pack.values() if keys is None else map(pack.get, keys), local)
        kept = await self._bring_from_image_pack(index, wanted, keep) if index else set()
        return pack, wanted, kept

    def _hold(self, found: schema.Stored, data: bytes) -> bool:
        if hashlib.sha256(data).hexdigest() != found.sha256:
            return False
        self._fetched[blob_name(found.sha256)] = data
        return True

    async def _once(self, name: str, load: Callable[[], Awaitable[_T]]) -> _T:
        """What ``load`` gives, loaded once per build (a second asker waits for the first)."""
        if name not in self._loads:
            self._loads[name] = asyncio.ensure_future(load())
        return await asyncio.shield(self._loads[name])

    def give_pack(self, data: bytes) -> None:
        """The pack as the head start read it: its records answer the cache from now on."""
        self._given_pack = data
        for key, record in self._parsed_pack(data).items():
            self._fetched.setdefault(record_name(key), schema.dumps(record))

    async def _load_pack(self) -> dict[str, Any]:
        if self._given_pack is not None:  # parsed when given
            return self._packed or {}
        data = await self.store.read(self._prefix + PACK, limit=PACK_LIMIT)
        return self._parsed_pack(data)

    def _parsed_pack(self, data: bytes | None) -> dict[str, Any]:
        self.pack_data = data
        pack = schema.loads(data)
        if (
            type(pack) is dict
            and len(pack) == 2
            and pack.get("v") == PACK_VERSION
            and type(pack.get("records")) is dict
        ):
            self._packed = pack["records"]
        elif data is not None:
            self.damaged.add(PACK)
        return self._packed or {}

    async def _fetch_record(self, key: str, packed: Any, local: LocalBlobs) -> None:
        name = record_name(key)
        if packed is None:
            record = schema.loads(await self._read(name, RECORD_LIMIT))
        else:  # as if it came alone: the cache checks it field by field (and its key)
            self._fetched.setdefault(name, schema.dumps(packed))
            record = packed
        found = self._image_of(record)
        if found is None or local.has_blob(found):
            return
        blob = blob_name(found.sha256)
        data = await self._read(blob, found.size)
        if data is not None and hashlib.sha256(data).hexdigest() != found.sha256:
            self.damaged.add(blob)  # the cache refuses it; a trusted build writes it over

    async def fetch_pack_blobs(
        self, local: LocalBlobs, read: Callable[[bytes], None] = lambda data: None
    ) -> int:
        """Keep in ``local`` every image the pack names that it lacks; the number kept. The
        pack's bytes go to ``read``."""
        keep = local.keep_blob
        _pack, wanted, kept = await self._from_packs(None, local, keep, read)

        async def bring(found: schema.Stored) -> bool:
            data = await self.store.read(self._prefix + blob_name(found.sha256), limit=found.size)
            return data is not None and keep(found, data)

        alone = await asyncio.gather(
            *(bring(found) for sha, found in wanted.items() if sha not in kept)
        )
        return len(kept) + sum(alone)

    def _lacking(self, records: Iterable[Any], local: LocalBlobs) -> dict[str, schema.Stored]:
        """The images ``records`` name that neither the local cache nor this tier holds."""
        lacking: dict[str, schema.Stored] = {}
        for record in records:
            found = self._image_of(record)
            if found is None or found.sha256 in lacking:
                continue
            if blob_name(found.sha256) not in self._fetched and not local.has_blob(found):
                lacking[found.sha256] = found
        return lacking

    async def _bring_from_image_pack(
        self,
        index: ImagesIndex,
        wanted: dict[str, schema.Stored],
        keep: Callable[[schema.Stored, bytes], bool],
    ) -> set[str]:
        """The SHA-256s of the ``wanted`` images ``keep`` took from the images' packs."""
        here = sorted(
            (*index.at[sha][:2], found)
            for sha, found in wanted.items()
            if sha in index.at and index.at[sha][2] == found.size
        )
        total = sum(found.size for _pack, _at, found in here)
        most = min(RANGE_MOST, max(RANGE_LEAST, total // max(1, self.store.jobs)))
        ranges: list[tuple[str, list[tuple[int, schema.Stored]]]] = []
        for pack, at, found in here:
            if ranges and ranges[-1][0] == pack:
                part = ranges[-1][1]
                first, (last, previous) = part[0][0], part[-1]
                if at - (last + previous.size) <= RANGE_GAP and at + found.size - first <= most:
                    part.append((at, found))
                    continue
            ranges.append((pack, [(at, found)]))

        async def bring(pack: str, part: list[tuple[int, schema.Stored]]) -> list[str]:
            start, name = part[0][0], f"{IMAGE_PACKS}/{pack}"
            data = await self.store.read_range(
                self._prefix + name, start, part[-1][0] + part[-1][1].size
            )
            if data is None:
                return []
            kept = []
            for at, found in part:
                if keep(found, data[at - start : at - start + found.size]):
                    kept.append(found.sha256)
                else:
                    self.damaged.add(f"{name}#{found.sha256}")
            return kept

        done = await asyncio.gather(*(bring(pack, part) for pack, part in ranges))
        return {sha for kept in done for sha in kept}

    async def _load_images(self) -> ImagesIndex | None:
        data = await self.store.read(self._prefix + IMAGES, limit=IMAGES_LIMIT)
        if data is None:
            return None
        index = images_index(schema.loads(data), self._max_blob_bytes)
        if index is None:
            self.damaged.add(IMAGES)
        return index

    def _image_of(self, record: Any) -> schema.Stored | None:
        """The image a record names (a variant's, a poster's), if usable."""
        if type(record) is not dict:
            return None
        if str(record.get("key")).partition(":")[0] not in schema.STORED_KINDS:
            return None
        found = schema.stored(record.get("value"))
        return found if found is not None and found.size <= self._max_blob_bytes else None

    async def _read(self, name: str, limit: int) -> bytes | None:
        """The remote's answer for ``name``, asked once per build (a second asker waits)."""
        if name in self._fetched:
            return self._fetched[name]
        data = await self._once(name, lambda: self.store.read(self._prefix + name, limit=limit))
        self._loads.pop(name, None)  # held in _fetched from here on
        self._fetched.setdefault(name, data)
        return data

    async def _upload_blob(self, name: str, data: bytes) -> None:
        await self.store.write(self._prefix + name, data, create=name not in self.damaged)

    async def flush(self, used: dict[str, Any] | None, local: LocalBlobs) -> None:
        """Wait for the blobs, then write the records (with ``used``, only those, then the
        packs)."""
        while self._uploads:
            await asyncio.gather(*list(self._uploads))
        records, self._records = self._records, {}
        if used is not None:
            names = {record_name(key) for key in used}
            records = {name: data for name, data in records.items() if name in names}
        await asyncio.gather(
            *(self.store.write(self._prefix + n, d, create=False) for n, d in records.items())
        )
        if not used or not self.store.write_enabled:
            return
        if used != self._packed:
            pack = schema.dumps({"v": PACK_VERSION, "records": used})
            await self.store.write(self._prefix + PACK, pack, create=False)
        await self._write_image_pack(used, local)

    async def _write_image_pack(self, used: dict[str, Any], local: LocalBlobs) -> None:
        """Write the images of ``used`` as images' packs (those not there yet), then their
        index; none over IMAGE_PACK_LIMIT or when an image is not whole here."""
        images = sorted(
            {found.sha256: found for r in used.values() if (found := self._image_of(r))}.values(),
            key=lambda found: found.sha256,
        )
        if not images or sum(found.size for found in images) > IMAGE_PACK_LIMIT:
            return
        groups: dict[str, list[schema.Stored]] = {}
        for found in images:  # by the first digit: a new image changes one pack of 16
            groups.setdefault(found.sha256[0], []).append(found)
        there: ImagesIndex | None = await self._once(IMAGES, self._load_images)
        known = {} if there is None else {listing: name for name, listing in there.packs}
        listed = {
            digit: tuple((f.sha256, f.size) for f in group) for digit, group in groups.items()
        }

        async def pack_of(digit: str) -> str | None:
            name = await self._still_there(known.get(listed[digit]))
            return name or await self._write_one_pack(groups[digit], local)

        names = await asyncio.gather(*map(pack_of, groups))
        if None in names:
            return
        packs = [{"pack": name, "images": listed[d]} for d, name in zip(groups, names, strict=True)]
        if there is None or [p["pack"] for p in packs] != [p[0] for p in there.packs]:
            index = schema.dumps({"v": IMAGES_VERSION, "packs": packs})
            await self.store.write(self._prefix + IMAGES, index, create=False)

    async def _still_there(self, name: str | None) -> str | None:
        """``name``, if that images' pack is in the remote."""
        if name is None:
            return None
        found = await self.store.read_range(f"{self._prefix}{IMAGE_PACKS}/{name}", 0, 1)
        return name if found is not None else None

    async def _write_one_pack(self, images: list[schema.Stored], local: LocalBlobs) -> str | None:
        """The name of the images' pack of ``images``, written; else None."""
        data = bytearray()  # built in place: a large site's pack is held once, not twice
        for found in images:
            blob = local.blob_bytes(found)
            if blob is None:
                return None
            data += blob
        name = f"{hashlib.sha256(data).hexdigest()}.bin"
        written = await self.store.write(f"{self._prefix}{IMAGE_PACKS}/{name}", data, create=True)
        return name if written else None

    async def aclose(self) -> None:
        await self.store.aclose()


@dataclass(frozen=True)
class ImagesIndex:
    """The images' packs' index, checked: each pack's list, and where each image is."""

    packs: list[tuple[str, tuple[tuple[str, int], ...]]]  # (<sha256>.bin, ((sha256, size)...))
    at: dict[str, tuple[str, int, int]]  # sha256 -> (its pack's name, offset, size)


def images_index(value: Any, max_blob_bytes: int) -> ImagesIndex | None:
    """The index, if as this version writes it."""
    if type(value) is not dict or len(value) != 2 or value.get("v") != IMAGES_VERSION:
        return None
    packs = value.get("packs")
    if type(packs) is not list:
        return None
    checked: list[tuple[str, tuple[tuple[str, int], ...]]] = []
    at: dict[str, tuple[str, int, int]] = {}
    total = 0
    for pack in packs:
        if type(pack) is not dict or len(pack) != 2:
            return None
        name, listed = pack.get("pack"), pack.get("images")
        if type(name) is not str or not name.endswith(".bin") or not schema.is_sha256(name[:-4]):
            return None
        if type(listed) is not list:
            return None
        offset = 0
        for entry in listed:
            if type(entry) is not list or len(entry) != 2:
                return None
            sha, size = entry
            if not schema.is_sha256(sha) or type(size) is not int or not 0 < size <= max_blob_bytes:
                return None
            at.setdefault(sha, (name, offset, size))
            offset += size
            total += size
            if total > IMAGE_PACK_LIMIT:
                return None
        checked.append((name, tuple(map(tuple, listed))))
    return ImagesIndex(checked, at)


def open_tier(config: Config, namespace: str, *, write: bool, jobs: int) -> RemoteTier:
    cache, notes = config.cache, []
    store = open_remote(
        cache.remote,
        endpoint=cache.remote_endpoint,
        write=write,
        timeout=cache.remote_timeout,
        jobs=jobs,
        warn=notes.append,
    )
    return RemoteTier(store, namespace, max_blob_bytes=config.images.max_bytes, notes=notes)
