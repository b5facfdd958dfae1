"""The admin chooser's service: the picker's browsing core (``picker/browse.py``) answered
through the live renderer's client, cache and outage breaker, so the chooser and the pages
it fills share one token, one cache and one cool-down after an outage.

- The folder tree and the format list come from the cache while fresh (older copies during
  an outage); a file chosen by id is looked up as a page's shortcode is (``Catalog``).
- A folder's listing (the service returns a folder whole) is kept here for a short while,
  so paging through it does not list it again; every listing also fills the cache's file
  records, which the page's shortcodes then find without asking.
- Previews are fetched by the server and kept in the cache's blob store as any downloaded
  image is: the browser never sees a service address.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from ..errors import OUTAGES, NotFoundError
from ..media.cache import MediaCache
from ..media.catalog import Catalog
from ..media.imageinfo import probe
from ..picker.browse import PREVIEW_MAX_BYTES, Browser
from ..records import File, Folder, Format
from . import rendering
from .live import LiveRenderer

if TYPE_CHECKING:
    from ..client.async_client import AsyncClient

__all__ = ["ChooserBrowser", "LiveService", "chooser_browser"]

T = TypeVar("T")
Connect = Callable[[], Awaitable["AsyncClient"]]

LISTING_SECONDS = 60.0  # how long a folder's listing or a search serves the next pages
LISTINGS_KEPT = 32


class LiveService:
    """``browse.Service`` over a :class:`LiveRenderer` (thread-safe)."""

    def __init__(self, renderer: LiveRenderer, clock: Callable[[], float] = time.monotonic):
        self._renderer = renderer
        self._clock = clock
        self._lock = threading.Lock()
        self._listings: OrderedDict[tuple[str, str], tuple[float, list[File]]] = OrderedDict()

    @property
    def cache(self) -> MediaCache:
        return self._renderer.cache

    def _run(self, work: Callable[[Connect], Awaitable[T]]) -> T:
        return self._renderer.with_service(work)

    def folders(self) -> list[Folder]:
        async def work(connect: Connect) -> list[Folder]:
            cached = self.cache.get_folders()
            if cached is not None and not cached.stale:
                return list(cached.value)
            try:
                folders = await (await connect()).folders()
            except OUTAGES:
                if cached is None:
                    raise
                return list(cached.value)
            self.cache.put_folders(folders)
            return folders

        return self._run(work)

    def files(self, folder_id: int) -> list[File]:
        async def work(connect: Connect) -> list[File]:
            files = await (await connect()).files(folder_id)
            self.cache.put_folder_files(folder_id, files)
            return files

        return self._listing(("folder", str(folder_id)), work)

    def search(self, query: str) -> list[File]:
        async def work(connect: Connect) -> list[File]:
            return await (await connect()).search(query)

        return self._listing(("search", query), work)

    def _listing(
        self, key: tuple[str, str], work: Callable[[Connect], Awaitable[list[File]]]
    ) -> list[File]:
        now = self._clock()
        with self._lock:
            kept = self._listings.get(key)
            if kept is not None and now - kept[0] <= LISTING_SECONDS:
                return kept[1]
        files = self._run(work)
        with self._lock:
            self._listings[key] = (now, files)
            self._listings.move_to_end(key)
            while len(self._listings) > LISTINGS_KEPT:
                self._listings.popitem(last=False)
        return files

    def formats(self) -> list[Format]:
        async def work(connect: Connect) -> list[Format]:
            return await Catalog(self.cache, connect).formats()

        return self._run(work)

    def download(self, url: str, *, max_bytes: int) -> bytes:
        async def work(connect: Connect) -> bytes:
            return await (await connect()).download(url, max_bytes=max_bytes)

        return self._run(work)

    def file(self, file_id: int) -> File | None:
        """The file as a page's shortcode would find it, or None if the integration cannot
        see it."""

        async def work(connect: Connect) -> File | None:
            found = await Catalog(self.cache, connect, jobs=self._renderer.config.build.jobs).files(
                [file_id]
            )
            return found.get(file_id)

        return self._run(work)

    def cached_file(self, file_id: int) -> File | None:
        """The file's cached record, without asking the service (for labels)."""
        return self._run(lambda connect: _cached(self.cache, file_id))

    def cached_preview(self, file: File, size: str, url: str) -> bytes:
        key = MediaCache.variant_key(file, 0, f"preview-{size}")

        async def work(connect: Connect) -> bytes:
            stored = self.cache.get_variant(key)
            data = None if stored is None else self.cache.blob_bytes(stored)
            if data is None:
                data = await (await connect()).download(url, max_bytes=PREVIEW_MAX_BYTES)
                info = probe(data)
                self.cache.put_variant(
                    key, data, ext=info.extension, width=info.width, height=info.height
                )
            return data

        return self._run(work)


async def _cached(cache: MediaCache, file_id: int) -> File | None:
    found = cache.get_file(file_id)
    return None if found is None else found.value


class ChooserBrowser(Browser):
    """The browsing core for the admin: previews through the cache, and a file not listed
    in this process yet (a field's current value) looked up as a shortcode's would be."""

    def __init__(self, service: LiveService) -> None:
        super().__init__(service)
        self.service = service

    def known_file(self, file_id: int) -> File:
        try:
            return super().known_file(file_id)
        except NotFoundError:
            pass
        file = self.service.file(file_id)
        if file is None:
            raise NotFoundError(
                f"file {file_id} is not visible to this site's integration: it was deleted, "
                "or it lives in a folder the integration cannot see; choose another file"
            ) from None
        self._remember([file])
        return file

    def download_preview(self, file: File, size: str, url: str) -> bytes:
        return self.service.cached_preview(file, size, url)


_browser: tuple[LiveRenderer, ChooserBrowser] | None = None
_browser_lock = threading.Lock()


def chooser_browser() -> ChooserBrowser:
    """The chooser's browser over the current live renderer (a new one after its reset)."""
    global _browser
    renderer = rendering.live_renderer()
    with _browser_lock:
        if _browser is None or _browser[0] is not renderer:
            _browser = (renderer, ChooserBrowser(LiveService(renderer)))
        return _browser[1]
