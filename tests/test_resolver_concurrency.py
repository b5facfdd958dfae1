"""The resolver asks for file metadata and the format list side by side."""

from __future__ import annotations

import asyncio
from pathlib import Path

from mediashortcodes.config import Config
from mediashortcodes.language import parse
from mediashortcodes.media.cache import MediaCache
from mediashortcodes.media.resolver import Failure, Resolver


class WaitingCatalog:
    """``files`` answers only once ``formats`` was asked: asked one after the other, the
    resolver would wait for ever (here: until the test's timeout)."""

    offline = False

    def __init__(self) -> None:
        self.formats_asked = asyncio.Event()

    async def files(self, ids) -> dict:
        list(ids)
        await self.formats_asked.wait()
        return {}

    async def formats(self) -> list:
        self.formats_asked.set()
        return []


def test_metadata_and_formats_are_asked_at_the_same_time(tmp_path: Path) -> None:
    # Cold, that saves a round trip; with the service down, the two retry sequences that
    # come before the cache's older copies are used overlap instead of adding up.
    async def connect():
        raise AssertionError("the fake catalog needs no client")

    resolver = Resolver(Config(root=tmp_path), MediaCache(tmp_path, "ns", ttl=60), connect, jobs=4)
    resolver.catalog = WaitingCatalog()  # type: ignore[assignment]
    [shortcode] = parse("<% media_image 101 thumb %>", "page.md").shortcodes

    async def main():
        return await asyncio.wait_for(resolver.resolve([shortcode]), timeout=5)

    resolution = asyncio.run(main())
    assert isinstance(resolution.results[0], Failure)  # 101 is not in this empty catalog
