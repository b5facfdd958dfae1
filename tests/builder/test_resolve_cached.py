"""A warm build resolves from the cache alone (no event loop): the same answer as the service
path, and at the first miss nothing of the attempt is left (the service path does it all)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from mediashortcodes import config as config_mod
from mediashortcodes.config import Config
from mediashortcodes.language import parse
from mediashortcodes.media.cache import cache_for
from mediashortcodes.media.resolver import LazyConnection, Resolver
from mediashortcodes.site.builder import BuildOptions, SiteBuilder


def resolver_for(config: Config, ticks: list[int]) -> Resolver:
    cache = cache_for(config)
    cache.open_snapshot(str(config.root))  # as a build does
    return Resolver(config, cache, LazyConnection(config), jobs=4, progress=ticks.append)


def test_the_cache_alone_answers_what_the_service_path_answers(
    make_site: Callable[..., Path],
) -> None:
    # The example site has named formats, crops, srcset widths and a click-to-load video with
    # its poster; this page adds an image without alt text (a warning at each of its places).
    moss = "---\ntitle: Moss\n---\n" + "<% media_image 105 thumb %>\n\nAgain:\n\n" * 2
    site = make_site({"content/moss.md": moss})
    config = config_mod.load(site)
    builder = SiteBuilder(config, BuildOptions(output=site / "_site"))
    builder.build()  # cold: fills the cache
    codes = builder.deferred.shortcodes  # every place the build resolved, layouts' too

    fast_ticks: list[int] = []
    fast = resolver_for(config, fast_ticks).resolve_cached(codes)
    slow_ticks: list[int] = []
    slow = asyncio.run(resolver_for(config, slow_ticks).resolve(codes))

    assert fast is not None
    assert fast.results == slow.results
    assert fast.warnings == slow.warnings and len(fast.warnings) == 2  # the missing alt
    assert (fast.cache_hits, fast.downloads) == (slow.cache_hits, 0)
    assert sum(fast_ticks) == sum(slow_ticks) == len(codes)

    # One variant the cache has not seen: no answer, nothing counted, said or reported.
    new = parse('<% media_image 120 w=64 h=64 x1=0 x2=64 y1=0 y2=64 alt="x" %>', "new.md")
    ticks: list[int] = []
    resolver = resolver_for(config, ticks)
    assert resolver.resolve_cached([*codes, *new.shortcodes]) is None
    assert (resolver.assets.hits, resolver.warn_messages, ticks) == (0, [], [])
    assert resolver.catalog.cache.warnings() == []
