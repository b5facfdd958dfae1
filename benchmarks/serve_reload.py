"""How long an author waits: from saving one page of W1 to the reloaded page in the browser.

    python benchmarks/serve_reload.py              # W1: 1,000 pages, 300 images
    python benchmarks/serve_reload.py --quick      # 100 pages, 30 images

``mediashortcodes serve`` runs in its own process against the synthetic sandbox (its own
process too, 20 ms a request); headless Chromium (Playwright, /usr/bin/chromium) shows one
page. After the first build (cold, not counted), ``--edits`` saves add a word to that page's
body (the page alone is rendered again), then ``--whole-edits`` saves change its title (which
every page lists: the whole site is built). Each figure is the time from the save to the new
page's DOMContentLoaded in the browser, with serve's own rebuild time. Also: the requests the
builds made during the body edits (a cached site: 0), and those for an edit that adds a
shortcode nothing used before (fetched once). Prints one JSON object. Needs the [test] extra.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import generate  # noqa: E402
from run import ENDPOINTS, BenchmarkError, SandboxProcess, _clean_env  # noqa: E402

CHROMIUM = "/usr/bin/chromium"


def _serve(
    site: Path, env: dict[str, str], log: queue.Queue[str]
) -> tuple[subprocess.Popen[str], str]:
    args = [sys.executable, "-m", "mediashortcodes", "serve", str(site), "--port", "0"]
    process = subprocess.Popen(
        args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            log.put(line.rstrip("\n"))

    threading.Thread(target=pump, daemon=True).start()
    url = _wait_for(log, r"^Serving .* at (http://\S+)$", 60)[1]
    return process, url


def _wait_for(log: queue.Queue[str], pattern: str, seconds: float) -> re.Match[str]:
    deadline = time.monotonic() + seconds
    while True:
        line = log.get(timeout=max(0.1, deadline - time.monotonic()))
        if found := re.search(pattern, line):
            return found
        if line.startswith("error:"):
            raise BenchmarkError(f"serve failed: {line}")


def _build_requests(stats: dict[str, int]) -> int:
    """The requests a build makes (the page's video player, loaded by the browser from the
    sandbox's media host on every reload, is not one)."""
    return sum(stats.get(endpoint, 0) for endpoint in ENDPOINTS)


def measure(
    workdir: Path, *, n: int, k: int, edits: int, whole_edits: int, latency_ms: float
) -> dict[str, object]:
    from playwright.sync_api import sync_playwright

    site = workdir / "site"
    generate(site, n=n, k=k)
    page_file = sorted((site / "content").rglob("*.md"))[n // 2]
    page_url = "/" + page_file.relative_to(site / "content").with_suffix("").as_posix() + "/"
    log: queue.Queue[str] = queue.Queue()
    with SandboxProcess(latency_ms=latency_ms, k=k, log=workdir / "sandbox.log") as sandbox:
        env = {**_clean_env(), **sandbox.env, "MEDIASHORTCODES_CACHE_DIR": str(workdir / "cache")}
        process, url = _serve(site, env, log)
        try:
            _wait_for(log, r"^built ", 600)  # the first build: cold, not measured
            timed: dict[str, tuple[list[float], list[float]]] = {
                "page": ([], []),
                "whole": ([], []),
            }
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
                )
                page = browser.new_page()
                page.goto(url + page_url)
                sandbox.reset_stats()
                original = page_file.read_text(encoding="utf-8")
                for edit in range(edits + whole_edits):
                    word = f"edited{edit}x{os.getpid()}"
                    if edit < edits:  # the body: this page alone is rendered again
                        kind, text = "page", original + f"\n{word}\n"
                    else:  # the title, which every page's site.pages shows: the whole site
                        kind, text = "whole", original.replace("title: ", f"title: {word} ", 1)
                    saved = time.time()
                    page_file.write_text(text, encoding="utf-8")
                    page.get_by_text(word).first.wait_for(timeout=60_000)
                    loaded = page.evaluate(
                        "performance.timeOrigin + "
                        "performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd"
                    )
                    timed[kind][0].append(round(loaded / 1000 - saved, 3))
                    built = _wait_for(log, r"^(?:built|updated) .* in ([\d.]+)s$", 60)
                    timed[kind][1].append(float(built[1]))
                cached_requests = _build_requests(sandbox.stats())
                sandbox.reset_stats()
                page_file.write_text(
                    original + '\n<% media_image 1 w=64 h=64 x1=0 x2=64 y1=0 y2=64 alt="new" %>\n',
                    encoding="utf-8",
                )
                page.get_by_alt_text("new").wait_for(timeout=60_000)
                new_stats = sandbox.stats()
                browser.close()
        finally:
            process.terminate()
            process.wait(timeout=30)
    return {
        "n": n,
        "k": k,
        "save_to_reload_s": timed["page"][0],
        "median_save_to_reload_s": round(statistics.median(timed["page"][0]), 3),
        "median_rebuild_s": round(statistics.median(timed["page"][1]), 3),
        "whole_save_to_reload_s": timed["whole"][0],
        "median_whole_save_to_reload_s": round(statistics.median(timed["whole"][0]), 3),
        "median_whole_rebuild_s": round(statistics.median(timed["whole"][1]), 3),
        "requests_for_cached_edits": cached_requests,
        "requests_for_a_new_shortcode": _build_requests(new_stats),
        "downloads_for_a_new_shortcode": new_stats.get("download", 0),
        "cpus": os.cpu_count(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=None, help="pages (W1: 1000)")
    parser.add_argument("--k", type=int, default=None, help="images (W1: 300)")
    parser.add_argument("--edits", type=int, default=5, help="edits of the page's body")
    parser.add_argument(
        "--whole-edits", type=int, default=3, help="edits of its title (a whole build each)"
    )
    parser.add_argument("--latency-ms", type=float, default=20.0)
    parser.add_argument("--quick", action="store_true", help="100 pages, 30 images")
    args = parser.parse_args(argv)
    n = args.n or (100 if args.quick else 1000)
    k = args.k or (30 if args.quick else 300)
    with tempfile.TemporaryDirectory(prefix="mediashortcodes-serve-bench-") as workdir:
        try:
            figures = measure(
                Path(workdir),
                n=n,
                k=k,
                edits=args.edits,
                whole_edits=max(1, args.whole_edits),
                latency_ms=args.latency_ms,
            )
        except BenchmarkError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
