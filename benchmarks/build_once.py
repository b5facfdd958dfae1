"""One build in its own process, measured: the runner starts one of these per build.

    python benchmarks/build_once.py SITE [--output DIR] [--jobs N] [--workers N] [--profile OUT]

Prints one JSON object: the build's seconds (from loading the config to the end of the
build, imports the build makes included, interpreter start-up excluded) and the CPU seconds
of the same span (steadier than the clock on a busy machine; the workers' included), the
workers it used, its counters, the
process's peak RSS, and whether the service client was imported at all. The service URLs,
credentials and cache directory come from the environment, as for ``mediashortcodes build``.
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()

import argparse  # noqa: E402  (the clock starts before any import)
import json  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--workers", type=int, default=None, help="the builder's --workers")
    parser.add_argument("--output", type=Path, default=None, help="instead of [site] output")
    parser.add_argument("--profile", type=Path, default=None, help="write a pyinstrument profile")
    args = parser.parse_args(argv)

    profiler = None
    if args.profile:
        from pyinstrument import Profiler

        profiler = Profiler(interval=0.0005)
        profiler.start()
    began, cpu_began, children_began = time.perf_counter(), time.process_time(), _children_cpu()
    from mediashortcodes import config

    loaded = config.load(args.site)
    cache = None
    if loaded.cache.remote:  # as `mediashortcodes build` does, before the builder's imports
        from mediashortcodes.media.cache import cache_for

        cache = cache_for(loaded, shared=True, jobs=args.jobs or loaded.build.jobs)
        cache.start_head_start(str(loaded.root))
    from mediashortcodes.site.builder import BuildOptions, SiteBuilder
    from mediashortcodes.site.workers import workers_for

    options = BuildOptions(output=args.output, jobs=args.jobs, workers=args.workers)
    result = SiteBuilder(loaded, options, cache=cache).build()
    workers = workers_for(args.workers, result.pages)
    seconds = time.perf_counter() - began
    # The workers' CPU too: they have ended (been waited for) when the build returns.
    cpu_seconds = time.process_time() - cpu_began + _children_cpu() - children_began
    if profiler is not None:
        profiler.stop()
        args.profile.write_text(profiler.output_text(unicode=True, show_all=False))
    print(
        json.dumps(
            {
                "seconds": seconds,
                "since_start": time.perf_counter() - STARTED,
                "cpu_seconds": cpu_seconds,
                "workers": workers,
                "pages": result.pages,
                "images": result.images,
                "videos": result.videos,
                "downloads": result.downloads,
                "cache_hits": result.cache_hits,
                "requests": result.requests,
                # ru_maxrss is in KiB on Linux.
                "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "client_imported": "mediashortcodes.client.base" in sys.modules,
                "httpx_imported": "httpx" in sys.modules,
            }
        )
    )


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    main()
