"""The MkDocs plugin's cost on a warm build: the same 1,000-page site with and without it.

    python benchmarks/mkdocs_warm.py              # W1's pages (1,000, 4 shortcodes each), 3 runs
    python benchmarks/mkdocs_warm.py --n 100      # a quick version
    python benchmarks/mkdocs_warm.py --theme mkdocs   # MkDocs' own, lighter theme

The pages are W1's (benchmarks/generate.py: about 300 words, three image shortcodes and a
video each) as a MkDocs site with Material for MkDocs and its search. One priming build
fills the cache from the synthetic sandbox (``mediashortcodes sandbox --synthetic K``, in
its own process); then warm builds with the plugin and builds of the same pages without
it (``plugins: [search]``: the shortcodes stay text) alternate, each ``mkdocs build`` in a
process of its own, so background load hits both alike. The figure is the ratio of the
fastest of each (target: at most 1.15). A warm build must make no request: the run fails
otherwise.

Prints a table, then as its last line one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import generate  # noqa: E402
from run import SandboxProcess  # noqa: E402

MKDOCS = str(Path(sys.executable).with_name("mkdocs"))

CONFIG = """\
site_name: Benchmark
site_url: https://bench.example.org/
docs_dir: content
theme:
  name: %(theme)s
plugins:
  - search
%(plugin)s"""
PLUGIN = """\
  - mediashortcodes:
      images: {gdpr: ignore}
      usage: {contact: bench@example.org, project: Benchmark}
"""


def build(site: Path, env: dict[str, str], *, plugin: bool, theme: str) -> tuple[float, str]:
    config = CONFIG % {"plugin": PLUGIN if plugin else "", "theme": theme}
    (site / "mkdocs.yml").write_text(config)
    started = time.perf_counter()
    done = subprocess.run(
        [MKDOCS, "build"],
        cwd=site,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"mkdocs build failed:\n{done.stderr[-3000:]}")
    return seconds, done.stderr


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000, help="pages (default 1000)")
    parser.add_argument("--k", type=int, default=300, help="distinct images (default 300)")
    parser.add_argument("--runs", type=int, default=3, help="timed builds of each kind")
    parser.add_argument("--theme", default="material", help="material (default) or mkdocs")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mediashortcodes-mkdocs-bench-") as tmp:
        work = Path(tmp)
        site = work / "site"
        generate(site, n=args.n, k=args.k)
        shutil.rmtree(site / "templates")
        (site / "mediashortcodes.toml").unlink()
        with SandboxProcess(latency_ms=0, k=args.k, log=work / "sandbox.log") as sandbox:
            env = {k: v for k, v in os.environ.items() if not k.startswith("MEDIASHORTCODES_")}
            env.update(sandbox.env)
            env.update(MEDIASHORTCODES_CACHE_DIR=str(work / "cache"), NO_MKDOCS_2_WARNING="1")
            build(site, env, plugin=True, theme=args.theme)  # primes the cache
            with_plugin: list[float] = []
            without: list[float] = []
            for _ in range(args.runs):
                seconds, log = build(site, env, plugin=True, theme=args.theme)
                requests = re.search(r"(\d+) requests?", log)
                if requests is None or requests.group(1) != "0":
                    raise SystemExit(f"a warm build made requests:\n{log[-2000:]}")
                with_plugin.append(seconds)
                without.append(build(site, env, plugin=False, theme=args.theme)[0])
    best, floor = min(with_plugin), min(without)
    print(f"{'':24}{'fastest':>10}{'runs':>32}")
    print(
        f"{'warm, with the plugin':24}{best:>9.2f}s  {', '.join(f'{s:.2f}' for s in with_plugin)}"
    )
    print(f"{'without the plugin':24}{floor:>9.2f}s  {', '.join(f'{s:.2f}' for s in without)}")
    print(f"ratio {best / floor:.3f} (target at most 1.15), {args.n} pages, {args.theme} theme")
    figures = {"n": args.n, "theme": args.theme, "with": best, "without": floor}
    print(json.dumps({**figures, "ratio": best / floor}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
