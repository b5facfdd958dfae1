"""Image variants: download information -> download -> verify -> store -> publish.

A download link expires, so each download follows its download information at once (an
expired one is asked for again, once). Published names are built here, never taken from
the service: a slug of the file name, the id, the variant and a content hash.
"""

from __future__ import annotations

import hashlib
import logging
import re
import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import CacheMissError, InvalidResponseError, NotFoundError, ServiceError
from ..records import Crop, File
from . import imageinfo
from .cache import MediaCache, Stored
from .catalog import Connect

log = logging.getLogger("mediashortcodes")


@lru_cache(maxsize=4096)  # thousands of variants share a few formats and crops
def variant_label(format_id: int, crop: Crop | None) -> str:
    if crop is not None:
        return "crop-" + hashlib.sha256(crop.key().encode()).hexdigest()[:8]
    return "original" if format_id == 0 else f"format-{format_id}"


def slug(text: str, limit: int = 40) -> str:
    """A lower-case ASCII name part: letters, digits and single hyphens only."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:limit].strip("-")


# A file's variants share its name's stem: worked out once per name, not per variant.
@lru_cache(maxsize=4096)
def _stem(filename: str) -> str:
    return slug(Path(filename).stem) or "file"


def published_name(file: File, format_id: int, crop: Crop | None, stored: Stored) -> str:
    stem = _stem(file.filename or file.name)
    label = variant_label(format_id, crop)
    return f"{stem}-{file.id}-{label}-{stored.sha256[:10]}.{stored.ext}"


def poster_name(file: File, stored: Stored) -> str:
    """The published name of a video's preview image (its click-to-load poster)."""
    return f"{_stem(file.filename or file.name)}-{file.id}-poster-{stored.sha256[:10]}.{stored.ext}"


class Assets:
    def __init__(
        self,
        cache: MediaCache,
        connect: Connect,
        *,
        max_bytes: int,
        offline: bool = False,
    ) -> None:
        self.cache = cache
        self.connect = connect
        self.max_bytes = max_bytes
        self.offline = offline
        self.downloads = 0
        self.hits = 0
        self.remote_hits = 0  # variants the cache's shared tier answered

    def cached(self, file: File, format_id: int, crop: Crop | None) -> Stored | None:
        """The variant if the cache holds it now (no network call)."""
        return self._hit(self.key(file, format_id, crop))

    def key(self, file: File, format_id: int, crop: Crop | None) -> str:
        return self.cache.variant_key(file, format_id, crop.key() if crop else "")

    def _hit(self, key: str) -> Stored | None:
        """The image under ``key`` if the cache holds it now, counted where it came from."""
        stored = self.cache.get_variant(key)
        if stored is not None and key in self.cache.remote_keys:
            self.remote_hits += 1
        elif stored is not None:
            self.hits += 1
        return stored

    async def variant(self, file: File, format_id: int, crop: Crop | None) -> Stored:
        key = self.key(file, format_id, crop)
        stored = await self._cached(key)
        if stored is not None:
            return stored
        label = variant_label(format_id, crop)
        if self.offline:
            raise CacheMissError(
                f"file {file.id} ({label}) is not in the cache; build once without --offline"
            )
        log.info("file %d (%s) is not in the cache: downloading it", file.id, label)
        data, info = await self._fetch(file, format_id, crop)
        return self._store(key, data, file.id, info.filetype)

    @staticmethod
    def _poster_key(file: File) -> str:
        # Not the preview's URL: a service may sign it anew on every listing.
        return f"poster:{file.id}:{file.uploaded}:{file.filesize}"

    async def _cached(self, key: str) -> Stored | None:
        """The image under ``key`` from the cache or its shared tier (never --offline)."""
        stored = self._hit(key)
        if stored is not None:
            return stored
        if not self.offline and await self.cache.prefetch([key]):
            stored = self.cache.get_variant(key)
            if stored is not None:
                self.remote_hits += 1
        return stored

    async def cached_poster(self, file: File) -> Stored | None:
        """A video's preview image from the cache or the shared tier, if either has it."""
        return await self._cached(self._poster_key(file))

    async def poster(self, file: File) -> Stored | None:
        """A video's preview image, downloaded and stored like a variant; None without one."""
        url = file.small_preview or file.thumb_preview
        if not url:
            return None
        key = self._poster_key(file)
        if self.offline:
            raise CacheMissError(
                f"file {file.id}: its preview image is not in the cache; build once without "
                "--offline"
            )
        client = await self.connect()
        return self._store(key, await client.download(url, max_bytes=self.max_bytes), file.id)

    def _store(self, key: str, data: bytes, file_id: int, filetype: str = "") -> Stored:
        """Store a download that is an image (of ``filetype``, when announced)."""
        probe = imageinfo.probe(data)  # raises on anything that is not an image
        if not imageinfo.matches(probe, filetype or probe.kind):
            raise InvalidResponseError(
                f"file {file_id}: the service announced a {filetype} file but sent "
                f"{probe.kind}; the download was not used"
            )
        self.downloads += 1
        return self.cache.put_variant(
            key, data, ext=probe.extension, width=probe.width, height=probe.height
        )

    async def _fetch(self, file: File, format_id: int, crop: Crop | None) -> tuple[bytes, Any]:
        client = await self.connect()
        for attempt in (1, 2):
            infos = await client.download_info(file.id, format_id, crop)
            if not infos:
                raise InvalidResponseError(f"file {file.id}: the service sent no download link")
            info = infos[0]
            try:
                return await client.download(info.download_url, max_bytes=self.max_bytes), info
            except (NotFoundError, ServiceError) as exc:
                # An expired link answers 403, 404 or 410: ask for a fresh one, once.
                if attempt == 2 or exc.status not in (403, 404, 410):
                    raise
        raise AssertionError("unreachable")


def publish(cache: MediaCache, stored: Stored, target: Path) -> None:
    """Put a stored blob at `target` (a hard link when the file system allows it), only as
    the checked file: see :meth:`MediaCache.publish`."""
    cache.publish(stored, target)
