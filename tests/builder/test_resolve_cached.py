"""A warm build resolves from the cache alone: no request (not even for a token), the same
answer as the build that filled the cache; one new variant costs only its own download."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mediashortcodes import config as config_mod
from mediashortcodes.config import Config
from mediashortcodes.language import Shortcode, parse
from mediashortcodes.media.cache import cache_for
from mediashortcodes.media.resolve_step import resolve_site
from mediashortcodes.media.resolver import Failure, Resolution
from mediashortcodes.site.builder import BuildOptions, SiteBuilder


def resolved(
    config: Config, codes: list[Shortcode]
) -> tuple[Resolution, int, list[tuple[int, int]]]:
    ticks: list[tuple[int, int]] = []
    cache = cache_for(config)
    cache.open_snapshot(str(config.root))  # as a build does
    try:
        resolution, requests, _warnings = resolve_site(
            config, cache, codes, jobs=4, progress=lambda *done_of: ticks.append(done_of)
        )
    finally:
        cache.close()
    return resolution, requests, ticks


def test_the_cache_alone_answers_a_warm_build_and_a_new_variant_costs_only_itself(
    make_site: Callable[..., Path],
) -> None:
    # The example site has named formats, crops, srcset widths and a click-to-load video with
    # its poster; this page adds an image without alt text (a warning at each of its places).
    moss = "---\ntitle: Moss\n---\n" + "<% media_image 105 thumb %>\n\nAgain:\n\n" * 2
    site = make_site({"content/moss.md": moss})
    config = config_mod.load(site)
    builder = SiteBuilder(config, BuildOptions(output=site / "_site"))
    builder.build()  # cold: fills the cache
    codes = list(
        builder.pipeline.renderer.shortcodes
    )  # every place the build resolved, layouts' too

    warm, requests, ticks = resolved(config, codes)
    assert requests == 0 and warm.downloads == 0 and warm.cache_hits > 0
    assert not any(isinstance(outcome, Failure) for outcome in warm.results)
    assert len(warm.warnings) == 2  # the missing alt, at each of its places
    assert ticks[-1] == (len(codes), len(codes))  # (done, total): every place counted

    new = parse('<% media_image 120 w=64 h=64 x1=0 x2=64 y1=0 y2=64 alt="x" %>', "new.md")
    more, requests, _ticks = resolved(config, [*codes, *new.shortcodes])
    assert more.downloads == 1 and requests > 0
    assert more.results[: len(codes)] == warm.results
