"""File id -> File metadata, from folder listings (the service has no single-file endpoint).

It lists only what it needs: the folders where the cache says an id lived, then the
others in parallel until every id is found; each listing is remembered whole. The cache
first prefetches what it lacks from its shared tier, so a fresh CI runner lists nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING

from ..errors import NotFoundError, RateLimitedError, ServerError, ServiceUnreachableError, counted
from ..records import File, Format
from .cache import MediaCache

if TYPE_CHECKING:
    from ..client.async_client import AsyncClient

log = logging.getLogger("mediashortcodes")

Connect = Callable[[], Awaitable["AsyncClient"]]
# Failures after which an older cached copy is better than no build at all.
OUTAGES = (ServiceUnreachableError, ServerError, RateLimitedError)


class Catalog:
    def __init__(
        self,
        cache: MediaCache,
        connect: Connect,
        *,
        jobs: int = 16,
        refresh: bool = False,
        offline: bool = False,
        warn: Callable[[str], None] = log.warning,
    ) -> None:
        self.cache = cache
        self.connect = connect
        self.jobs = max(1, jobs)
        self.refresh = refresh
        self.offline = offline
        self.warn = warn
        self.listed: set[int] = set()  # ids whose metadata this catalog read from the service

    def _usable(self, stale: bool) -> bool:
        return self.offline or not (stale or self.refresh)

    async def files(self, ids: Iterable[int]) -> dict[int, File]:
        """Metadata for the ids the integration can see; ids it cannot see are left out."""
        found: dict[int, File] = {}
        fallback: dict[int, File] = {}
        need = self._from_cache(sorted(set(ids)), found, fallback)
        absent = need - fallback.keys()
        if absent and await self._prefetch(f"file:{i}" for i in absent):
            need = (need - absent) | self._from_cache(absent, found, fallback)
        if not need or self.offline:
            return found
        log.info(
            "metadata of %s %s: asking the service",
            counted(len(need), "file"),
            "to refresh (--refresh)" if self.refresh else "not cached or older than metadata_ttl",
        )
        try:
            found.update(await self._look_up(need))
        except OUTAGES as exc:
            if need - fallback.keys():
                raise
            self.warn(
                f"the service is unavailable ({exc}); using cached metadata for "
                f"{counted(len(fallback), 'file')}"
            )
            found.update(fallback)
        return found

    async def _prefetch(self, keys: Iterable[str]) -> bool:
        """Let the cache bring ``keys`` from its shared tier (never --offline)."""
        return not self.offline and await self.cache.prefetch(keys)

    def _from_cache(
        self, ids: Iterable[int], found: dict[int, File], fallback: dict[int, File]
    ) -> set[int]:
        """The ids the cache cannot answer (stale answers go in ``fallback``)."""
        need: set[int] = set()
        for file_id in ids:
            cached = self.cache.get_file(file_id)
            if cached is not None and self._usable(cached.stale):
                found[file_id] = cached.value
            else:
                need.add(file_id)
                if cached is not None:
                    fallback[file_id] = cached.value
        return need

    async def fresh(self, file: File) -> File | None:
        """``file`` as the service lists it now (preview URLs may be signed anew)."""
        if file.id in self.listed:
            return file
        return (await self._look_up({file.id})).get(file.id)

    async def _look_up(self, need: set[int]) -> dict[int, File]:
        client = await self.connect()
        found: dict[int, File] = {}
        listed: set[int] = set()

        async def list_folder(folder_id: int) -> None:
            listed.add(folder_id)
            try:
                files = await client.files(folder_id)
            except NotFoundError:
                return  # the folder went away or is no longer visible
            self.cache.put_folder_files(folder_id, files)
            self.listed.update(f.id for f in files)
            found.update((f.id, f) for f in files if f.id in need)

        known = {loc for i in need if (loc := self.cache.get_location(i)) is not None}
        await self._run_until_found(known, list_folder, need, found)
        if need - found.keys():
            folders = await self._folder_ids(client)
            rest = [f for f in folders if f not in listed]
            await self._run_until_found(rest, list_folder, need, found)
        return found

    async def _run_until_found(
        self,
        folder_ids: Iterable[int],
        list_folder: Callable[[int], Awaitable[None]],
        need: set[int],
        found: dict[int, File],
    ) -> None:
        """List folders, at most `jobs` at a time, until every needed id is found."""
        queue = list(folder_ids)
        running: set[asyncio.Task[None]] = set()
        try:
            while (queue or running) and need - found.keys():
                while queue and len(running) < self.jobs:
                    running.add(asyncio.create_task(list_folder(queue.pop(0))))
                done, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                # Read every outcome before raising: no exception is left unretrieved.
                errors = [exc for task in done if (exc := task.exception()) is not None]
                if errors:
                    raise errors[0]
        finally:
            for task in running:
                task.cancel()
            if running:
                await asyncio.gather(*running, return_exceptions=True)

    async def _folder_ids(self, client: AsyncClient) -> list[int]:
        cached = self.cache.get_folders()
        if cached is None and await self._prefetch(["folders"]):
            cached = self.cache.get_folders()
        if cached is not None and not cached.stale and not self.refresh:
            return [f.id for f in cached.value]
        folders = await client.folders()
        self.cache.put_folders(folders)
        return [f.id for f in folders]

    async def formats(self) -> list[Format]:
        cached = self.cache.get_formats()
        if cached is None and await self._prefetch(["formats"]):
            cached = self.cache.get_formats()
        if cached is not None and self._usable(cached.stale):
            return cached.value
        if self.offline:
            return []
        log.info("the format list is not cached or older than metadata_ttl: asking the service")
        try:
            client = await self.connect()
            formats = await client.formats()
        except OUTAGES as exc:
            if cached is None:
                raise
            self.warn(f"the service is unavailable ({exc}); using the cached format list")
            return cached.value
        self.cache.put_formats(formats)
        return formats
