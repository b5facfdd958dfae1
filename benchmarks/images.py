"""AVIF and WebP side by side with eleventy-img 6 (issue 32; docs/benchmarks.md).

    npm install --prefix /tmp/eleventy-img @11ty/eleventy-img@6      # once, outside the repo
    python benchmarks/images.py                                      # W1, 3 interleaved rounds
    python benchmarks/images.py --n 20 --k 12 --rounds 1             # smoke

W1 (``generate.py``) with ``[images] formats = ["avif", "webp"]`` and ``widths = "auto"``,
built by this checkout against one sandbox (``--synthetic K``, no latency). First a build
without formats fills a cache with the downloads (not counted). Each round then, in turn:

- ``ours cold``: ``mediashortcodes build`` on a copy of that cache: every encoding is made
  (the downloads are cached, so the build encodes and renders; ``requests`` stays 0);
- ``ours warm``: the same build again on the cache the cold build left: 0 encodings;
- ``eleventy cold`` and ``eleventy warm``: a node script giving eleventy-img 6 (sharp) every
  image file our build encodes (each base variant and srcset candidate, at its own width) to
  encode to AVIF (quality 50) and WebP (quality 75) into an empty folder, then again into
  the same folder (its own cache: a file already written is not made again).

- ``plain warm``: the same site without formats on that cache: what the formats add to a
  warm build is ``ours warm`` minus this (eleventy-img's warm run does only images).

Wall and CPU seconds of the whole process tree (``hugo.timed``: the child and the children
it waited for), medians over the rounds; bytes of every published image file against the
encodings. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import generate  # noqa: E402
from hugo import timed  # noqa: E402
from run import SandboxProcess, _clean_env, working_directory  # noqa: E402

SETTINGS = '[images]\nformats = ["avif", "webp"]\nwidths = "auto"\n'
ELEVENTY = """
const Image = require("@11ty/eleventy-img");
const fs = require("fs");
const [list, out] = process.argv.slice(2);
const files = JSON.parse(fs.readFileSync(list, "utf8"));
Promise.all(files.map((f) => Image(f, {
  widths: ["auto"], formats: ["avif", "webp"], outputDir: out,
  sharpAvifOptions: {quality: 50}, sharpWebpOptions: {quality: 75},
}))).then(() => {}, (e) => { console.error(e); process.exit(1); });
"""


def build_json(site: Path, out: Path, cache: Path, env: dict[str, str]) -> dict[str, Any]:
    """One build's counters (``--format json``), not timed."""
    args = [sys.executable, "-P", "-m", "mediashortcodes", "build", str(site), "-q"]
    args += ["--output", str(out), "--format", "json"]
    run_env = {**env, "MEDIASHORTCODES_CACHE_DIR": str(cache), "PYTHONPATH": str(HERE.parent)}
    done = subprocess.run(args, env=run_env, capture_output=True, text=True, check=True)
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def images_of(media: Path) -> tuple[list[Path], list[Path]]:
    """The service's files and our encodings among the published media."""
    files = sorted(p for p in media.iterdir() if p.suffix in (".jpg", ".png", ".gif"))
    return files, sorted(p for p in media.iterdir() if p.suffix in (".avif", ".webp"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--k", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--eleventy", type=Path, default=Path("/tmp/eleventy-img"))
    args = parser.parse_args(argv)
    with working_directory(None, keep=False) as work:
        plain, site = work / "plain", work / "site"
        generate(plain, n=args.n, k=args.k)
        generate(site, n=args.n, k=args.k)
        for root, extra in ((plain, 'widths = "auto"\n'), (site, SETTINGS.split("\n", 1)[1])):
            toml = root / "mediashortcodes.toml"
            toml.write_text(toml.read_text().replace("[images]\n", "[images]\n" + extra, 1))
        (work / "eleventy.js").write_text(ELEVENTY)
        results: dict[str, list[dict[str, float]]] = {}
        with SandboxProcess(latency_ms=0, k=args.k, log=work / "sandbox.log") as sandbox:
            env = {**_clean_env(), **sandbox.env}
            primed = work / "primed-cache"
            build_json(plain, work / "primed-out", primed, env)
            originals, _ = images_of(work / "primed-out" / "media")
            (work / "files.json").write_text(json.dumps([str(p) for p in originals]))
            node_env = {**_clean_env(), "NODE_PATH": str(args.eleventy / "node_modules")}
            node = ["node", str(work / "eleventy.js"), str(work / "files.json")]
            for number in range(args.rounds):
                cache = work / f"cache-{number}"
                shutil.copytree(primed, cache)
                out = str(work / f"e{number}")
                runs = [
                    ("ours cold", partial(timed_ours, site, work, cache, env, f"{number}-cold")),
                    ("ours warm", partial(timed_ours, site, work, cache, env, f"{number}-warm")),
                    ("eleventy cold", partial(timed, [*node, out], node_env, "eleventy")),
                    ("eleventy warm", partial(timed, [*node, out], node_env, "eleventy")),
                    ("plain warm", partial(timed_ours, plain, work, cache, env, f"{number}-p")),
                ]
                order = [0, 1, 2, 3, 4] if number % 2 == 0 else [2, 3, 4, 0, 1]
                for i in order:
                    name, run = runs[i]
                    results.setdefault(name, []).append(run())
                    print(name, results[name][-1], file=sys.stderr, flush=True)
            counters = {
                kind: build_json(site, work / f"count-{kind}", cache, env) for kind in ("warm",)
            }
            fresh = work / "count-cache"
            shutil.copytree(primed, fresh)
            counters["cold"] = build_json(site, work / "count-cold", fresh, env)
            served, encoded = images_of(work / "count-cold" / "media")
            eleventy_files = list((work / "e0").iterdir())
        figures = {
            name: {key: statistics.median(r[key] for r in runs) for key in ("s", "cpu_s")}
            for name, runs in results.items()
        }
        # What the formats add to a warm build: the same site without them, subtracted.
        added = figures["ours warm"]["s"] - figures["plain warm"]["s"]
        figures["ratios"] = {
            "cold_wall": figures["ours cold"]["s"] / figures["eleventy cold"]["s"],
            "warm_wall_whole_build": figures["ours warm"]["s"] / figures["eleventy warm"]["s"],
            "warm_wall_formats_added": added / figures["eleventy warm"]["s"],
        }
        figures["counters"] = {
            kind: {k: c["summary"][k] for k in ("encodes", "downloads", "requests", "images")}
            for kind, c in counters.items()
        }
        figures["bytes"] = {
            "service_files": sum(p.stat().st_size for p in served),
            "our_avif": sum(p.stat().st_size for p in encoded if p.suffix == ".avif"),
            "our_webp": sum(p.stat().st_size for p in encoded if p.suffix == ".webp"),
            "eleventy_avif": sum(p.stat().st_size for p in eleventy_files if p.suffix == ".avif"),
            "eleventy_webp": sum(p.stat().st_size for p in eleventy_files if p.suffix == ".webp"),
            "files_encoded_by_each": len(originals),
        }
        print(json.dumps(figures))
    return 0


def timed_ours(
    site: Path, work: Path, cache: Path, env: dict[str, str], kind: str
) -> dict[str, float]:
    args = [sys.executable, "-P", "-m", "mediashortcodes", "build", str(site), "-q"]
    args += ["--output", str(work / f"out-{kind}")]
    run_env = {**env, "MEDIASHORTCODES_CACHE_DIR": str(cache), "PYTHONPATH": str(HERE.parent)}
    return timed(args, run_env, f"our {kind} build")


if __name__ == "__main__":
    sys.exit(main())
