"""Benchmark of a first report: is its cost linear in pages (issue 29, item 5)?

    python benchmarks/report.py                  # 2,000 and 10,000 pages, 3 files each
    python benchmarks/report.py --quick          # 100 and 500 pages
    python benchmarks/report.py --small 2000 --large 4000 --jobs 8

The sandbox serves the service in its own process (no added latency: the report's own
cost is measured); each report runs in its own process (``mediashortcodes report``, the
default --jobs) with an empty usage state, against a built ``media-usage.json`` of N pages.
The target (docs/benchmarks.md): the large report takes at most ``TARGET`` times the small
one when it has ``large / small`` times the pages (5 by default: linear cost gives about 5,
a report that rewrites the whole state per page about 25). Every report must tell the
service every page once. Prints a table, then one JSON object as the last line.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import CLI, BenchmarkError, SandboxProcess, _clean_env  # noqa: E402

TARGET = 6.0
FILES_PER_PAGE = 3


def make_site(root: Path, pages: int) -> Path:
    """A built site: its config and a ``media-usage.json`` of ``pages`` pages."""
    site = f"https://report-{pages}.example.org"
    (root / "_site").mkdir(parents=True)
    (root / "mediashortcodes.toml").write_text(
        f'[site]\nbase_url = "{site}"\n[usage]\ncontact = "Bench"\nproject = "Report"\n',
        "utf-8",
    )
    manifest = {
        "site": site,
        "pages": {
            f"{site}/p{i}/": {
                "title": f"Page {i}",
                "files": [1 + (i * FILES_PER_PAGE + j) % 997 for j in range(FILES_PER_PAGE)],
            }
            for i in range(pages)
        },
    }
    (root / "_site" / "media-usage.json").write_text(json.dumps(manifest), "utf-8")
    return root


def report_seconds(root: Path, sandbox: SandboxProcess, pages: int, jobs: list[str]) -> float:
    """One first report of ``pages`` pages in a child process: its wall-clock seconds."""
    env = {**_clean_env(), **sandbox.env}
    os.sync()  # the site just written is on disk before the clock starts
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CLI, "report", str(root), *jobs],
        env=env,
        capture_output=True,
        text=True,
        cwd=root,
    )
    seconds = time.perf_counter() - began
    if done.returncode != 0 or f"{pages} pages reported" not in done.stdout:
        raise BenchmarkError(
            f"the report of {pages} pages failed (exit {done.returncode}):\n"
            f"{done.stdout.strip()}\n{done.stderr.strip()}"
        )
    return seconds


def told(sandbox: SandboxProcess) -> int:
    url = sandbox.env["MEDIASHORTCODES_BASE_URL"] + "/_sandbox/usages"
    with urllib.request.urlopen(url, timeout=30) as answer:
        return len(json.loads(answer.read()))


def measure(workdir: Path, small: int, large: int, jobs: list[str]) -> dict[str, float]:
    with SandboxProcess(latency_ms=0, k=30, log=workdir / "sandbox.log") as sandbox:
        figures: dict[str, float] = {}
        for pages in (small, large):
            before = told(sandbox)
            print(f"a first report of {pages} pages ...", file=sys.stderr)
            site = make_site(workdir / str(pages), pages)
            figures[f"s_{pages}"] = report_seconds(site, sandbox, pages, jobs)
            print(f"  {figures[f's_{pages}']:.2f} s", file=sys.stderr)
            if told(sandbox) - before != pages:
                raise BenchmarkError(f"the sandbox was not told each of the {pages} pages once")
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=None, help="pages of the small report")
    parser.add_argument("--large", type=int, default=None, help="pages of the large report")
    parser.add_argument("--quick", action="store_true", help="100 and 500 pages")
    parser.add_argument("--jobs", type=int, default=None, help="report -j (default: its own)")
    args = parser.parse_args(argv)
    small = args.small or (100 if args.quick else 2000)
    large = args.large or (500 if args.quick else 10000)
    if not 0 < small < large:
        parser.error("need 0 < --small < --large")
    try:
        with tempfile.TemporaryDirectory(prefix="mediashortcodes-report-bench-") as made:
            jobs = [f"--jobs={args.jobs}"] if args.jobs else []
            figures = measure(Path(made), small, large, jobs)
    except BenchmarkError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    small_s, large_s = figures[f"s_{small}"], figures[f"s_{large}"]
    result = {
        "small_pages": small,
        "large_pages": large,
        "small_s": round(small_s, 2),
        "large_s": round(large_s, 2),
        "ratio": round(large_s / small_s, 2),
        "pages_ratio": round(large / small, 2),
        "target": TARGET,
        "within_target": large_s / small_s <= TARGET,
    }
    print(f"{'pages':>8}  {'seconds':>8}  {'ms/page':>8}")
    for pages, seconds in ((small, small_s), (large, large_s)):
        print(f"{pages:>8}  {seconds:>8.2f}  {1000 * seconds / pages:>8.2f}")
    print(f"ratio {result['ratio']} for {result['pages_ratio']} x the pages (target <= {TARGET})")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
