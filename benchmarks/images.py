"""AVIF and WebP side by side with eleventy-img 6 (issue 32; docs/benchmarks.md).

    npm install --prefix /tmp/eleventy-img @11ty/eleventy-img@6      # once, outside the repo
    python benchmarks/images.py                                      # W1, 3 interleaved rounds
    python benchmarks/images.py --only images                        # the images alone
    python benchmarks/images.py --n 20 --k 12 --rounds 1             # smoke

W1 (``generate.py``) with ``[images] formats = ["avif", "webp"]`` and ``widths = "auto"``,
built by this checkout against one sandbox (``--synthetic K``, no latency). First a build
without formats fills a cache with the downloads (not counted). Each round then runs these
pairs, cold before warm, starting with a different pair each round:

- ``ours cold``: ``mediashortcodes build`` of W1 on a copy of that cache: every encoding is
  made (the downloads are cached, so the build encodes and renders; ``requests`` stays 0);
  ``ours warm``: the same build again on the cache the cold build left: 0 encodings;
- ``images cold`` and ``images warm``: the same two builds of the images-only site, which
  eleventy-img's runs are like for like with: every distinct image shortcode of W1 (its
  pages' and its layout's) once, ``IMAGES_PER_PAGE`` a page in a bare layout, the same
  ``[images]`` settings; it publishes the same image files as W1, checked;
- ``eleventy cold`` and ``eleventy warm``: a node script giving eleventy-img 6 (sharp) every
  image file W1 publishes (each base variant and srcset candidate, at its own width) to
  encode to AVIF (quality 50) and WebP (quality 75) into an empty folder, then again into
  the same folder (its own cache: a file already written is not made again);
- ``plain warm``: W1 without formats on that cache: what the formats add to a warm build of
  W1 is ``ours warm`` minus this.

``--only images`` leaves out W1's own rows (``ours`` and ``plain``). Every warm build's
output is compared with its cold build's, file by file (``identical``), and one more cold
and warm build of each site give the counters (encodes, requests). Wall and CPU seconds of
the whole process tree (``hugo.timed``: the child and the children it waited for), medians
over the rounds; bytes of every published image file against the encodings. The last line
is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import generate  # noqa: E402
from hugo import timed  # noqa: E402
from run import BenchmarkError, SandboxProcess, _clean_env, working_directory  # noqa: E402

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
IMAGES_PER_PAGE = 100
IMAGES_LAYOUT = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>{{ page.title }}</title></head>
<body>
{{ page.content }}
</body>
</html>
"""
SHORTCODE = re.compile(r"<% media_image .*? %>")
Timed = Callable[[], dict[str, float]]


def variant_key(shortcode: str) -> str:
    """The image a shortcode asks for: its text without ``alt`` and ``caption`` (which change
    the HTML alone), format ``0`` spelt ``original`` (the same variant)."""
    text = re.sub(r' (?:alt|caption)="[^"]*"', "", shortcode)
    return re.sub(r"^(<% media_image \d+) 0 ", r"\1 original ", text)


def images_site(site: Path, root: Path) -> int:
    """Write into ``root`` a site of ``site``'s distinct image shortcodes, each once, with
    ``site``'s settings; return how many."""
    found: dict[str, str] = {}
    sources = [site / "templates" / "page.html", *sorted((site / "content").rglob("*.md"))]
    for path in sources:
        for shortcode in SHORTCODE.findall(path.read_text(encoding="utf-8")):
            found.setdefault(variant_key(shortcode), shortcode)
    shortcodes = list(found.values())
    (root / "templates").mkdir(parents=True)
    (root / "content").mkdir()
    (root / "templates" / "page.html").write_text(IMAGES_LAYOUT, encoding="utf-8")
    shutil.copyfile(site / "mediashortcodes.toml", root / "mediashortcodes.toml")
    for number, start in enumerate(range(0, len(shortcodes), IMAGES_PER_PAGE)):
        body = "\n\n".join(shortcodes[start : start + IMAGES_PER_PAGE])
        page = f"---\ntitle: Images {number}\ndate: 2024-01-01\n---\n\n{body}\n"
        (root / "content" / f"images-{number:03d}.md").write_text(page, encoding="utf-8")
    return len(shortcodes)


def build_json(site: Path, out: Path, cache: Path, env: dict[str, str]) -> dict[str, Any]:
    """One build's counters (``--format json``), not timed."""
    args = [sys.executable, "-P", "-m", "mediashortcodes", "build", str(site), "-q"]
    args += ["--output", str(out), "--format", "json"]
    run_env = {**env, "MEDIASHORTCODES_CACHE_DIR": str(cache), "PYTHONPATH": str(HERE.parent)}
    done = subprocess.run(args, env=run_env, capture_output=True, text=True, check=True)
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def timed_ours(site: Path, out: Path, cache: Path, env: dict[str, str]) -> dict[str, float]:
    args = [sys.executable, "-P", "-m", "mediashortcodes", "build", str(site), "-q"]
    args += ["--output", str(out)]
    run_env = {**env, "MEDIASHORTCODES_CACHE_DIR": str(cache), "PYTHONPATH": str(HERE.parent)}
    return timed(args, run_env, f"our build of {site.name} into {out.name}")


def images_of(media: Path) -> tuple[list[Path], list[Path]]:
    """The service's files and our encodings among the published media."""
    files = sorted(p for p in media.iterdir() if p.suffix in (".jpg", ".png", ".gif"))
    return files, sorted(p for p in media.iterdir() if p.suffix in (".avif", ".webp"))


def identical(one: Path, other: Path) -> bool:
    """Whether two output folders hold the same files, byte for byte."""
    names = sorted(p.relative_to(one) for p in one.rglob("*") if p.is_file())
    if names != sorted(p.relative_to(other) for p in other.rglob("*") if p.is_file()):
        return False
    return all((one / n).read_bytes() == (other / n).read_bytes() for n in names)


def prepare(work: Path, n: int, k: int) -> dict[str, Path]:
    """W1 with formats (``site``), without (``plain``), and the images-only site."""
    sites = {"plain": work / "plain", "site": work / "site", "images": work / "images"}
    generate(sites["plain"], n=n, k=k)
    generate(sites["site"], n=n, k=k)
    for name, extra in (("plain", 'widths = "auto"\n'), ("site", SETTINGS.split("\n", 1)[1])):
        toml = sites[name] / "mediashortcodes.toml"
        toml.write_text(toml.read_text().replace("[images]\n", "[images]\n" + extra, 1))
    images_site(sites["site"], sites["images"])
    (work / "eleventy.js").write_text(ELEVENTY)
    return sites


class Rounds:
    """The timed runs of one benchmark: its sites, sandbox environment and figures."""

    def __init__(self, work: Path, sites: dict[str, Path], env: dict[str, str], node: Any):
        self.work, self.sites, self.env = work, sites, env
        self.node_args, self.node_env = node
        self.results: dict[str, list[dict[str, float]]] = {}
        self.same: dict[str, list[bool]] = {}

    def ours(self, name: str, number: int, cache: Path) -> list[tuple[str, Timed]]:
        """``name cold`` then ``name warm``: a build of its site on a fresh copy of the
        primed cache, then again on the cache it left; the two outputs compared after."""
        site = self.sites["site" if name == "ours" else name]
        cold, warm = (self.work / f"out-{number}-{name}-{kind}" for kind in ("cold", "warm"))
        self.same.setdefault(name, [])

        def run_warm() -> dict[str, float]:
            figures = timed_ours(site, warm, cache, self.env)
            self.same[name].append(identical(cold, warm))
            return figures

        return [(f"{name} cold", partial(timed_ours, site, cold, cache, self.env)),
                (f"{name} warm", run_warm)]  # fmt: skip

    def round(self, number: int, primed: Path, only_images: bool) -> None:
        """One round: each pair in turn, the first pair moving on by one each round."""
        groups: list[list[tuple[str, Timed]]] = []
        for name in ("images",) if only_images else ("ours", "images"):
            cache = self.work / f"cache-{number}-{name}"
            shutil.copytree(primed, cache)
            groups.append(self.ours(name, number, cache))
        eleventy = [*self.node_args, str(self.work / f"e{number}")]
        groups.append(
            [(f"eleventy {kind}", partial(timed, eleventy, self.node_env, "eleventy"))
             for kind in ("cold", "warm")]
        )  # fmt: skip
        if not only_images:
            out, cache = self.work / f"out-{number}-plain", self.work / f"cache-{number}-plain"
            shutil.copytree(primed, cache)  # its own: the warm build may write to it
            plain = partial(timed_ours, self.sites["plain"], out, cache, self.env)
            groups.append([("plain warm", plain)])
        start = number % len(groups)
        for name, run in [run for group in groups[start:] + groups[:start] for run in group]:
            self.results.setdefault(name, []).append(run())
            print(name, self.results[name][-1], file=sys.stderr, flush=True)


def counters(work: Path, site: Path, primed: Path, env: dict[str, str]) -> dict[str, Any]:
    """A cold build on a fresh copy of the primed cache and a warm one after: their
    counters and the cold output."""
    name, cache = site.name, work / f"count-cache-{site.name}"
    shutil.copytree(primed, cache)
    found = {kind: build_json(site, work / f"count-{name}-{kind}", cache, env)["summary"]
             for kind in ("cold", "warm")}  # fmt: skip
    keys = ("encodes", "downloads", "requests", "images", "pages")
    return {kind: {k: summary[k] for k in keys} for kind, summary in found.items()}


def image_bytes(work: Path, media: Path, originals: list[Path]) -> dict[str, int]:
    served, encoded = images_of(media)
    eleventy_files = list((work / "e0").iterdir())

    def total(files: list[Path], suffix: str) -> int:
        return sum(p.stat().st_size for p in files if p.suffix == suffix)

    return {
        "service_files": sum(p.stat().st_size for p in served),
        "our_avif": total(encoded, ".avif"),
        "our_webp": total(encoded, ".webp"),
        "eleventy_avif": total(eleventy_files, ".avif"),
        "eleventy_webp": total(eleventy_files, ".webp"),
        "files_encoded_by_each": len(originals),
    }


def summarise(rounds: Rounds) -> dict[str, Any]:
    """Medians over the rounds, and the ratios to eleventy-img."""
    figures: dict[str, Any] = {
        name: {key: statistics.median(r[key] for r in runs) for key in ("s", "cpu_s")}
        for name, runs in rounds.results.items()
    }
    eleventy = {kind: figures[f"eleventy {kind}"]["s"] for kind in ("cold", "warm")}
    ratios = {
        "images_cold_wall": figures["images cold"]["s"] / eleventy["cold"],
        "images_warm_wall": figures["images warm"]["s"] / eleventy["warm"],
        "images_cold_cpu": figures["images cold"]["cpu_s"] / figures["eleventy cold"]["cpu_s"],
        "images_warm_cpu": figures["images warm"]["cpu_s"] / figures["eleventy warm"]["cpu_s"],
    }
    if "ours cold" in figures:
        # What the formats add to a warm build of W1: the same site without them, subtracted.
        added = figures["ours warm"]["s"] - figures["plain warm"]["s"]
        ratios |= {
            "cold_wall": figures["ours cold"]["s"] / eleventy["cold"],
            "warm_wall_whole_build": figures["ours warm"]["s"] / eleventy["warm"],
            "warm_wall_formats_added": added / eleventy["warm"],
        }
    figures["ratios"] = ratios
    figures["identical"] = {f"{name} warm": all(same) for name, same in rounds.same.items()}
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--k", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=("images",), help="leave out W1's own rows")
    parser.add_argument("--eleventy", type=Path, default=Path("/tmp/eleventy-img"))
    parser.add_argument("--workdir", type=Path, help="work here and keep it (profiling)")
    args = parser.parse_args(argv)
    only_images = args.only == "images"
    with working_directory(args.workdir, keep=False) as work:
        sites = prepare(work, args.n, args.k)
        with SandboxProcess(latency_ms=0, k=args.k, log=work / "sandbox.log") as sandbox:
            # Compiled modules are kept (beside the sites), as in an installed package, even
            # where the environment turns bytecode files off (docs/decisions/0005).
            env = {**_clean_env(), **sandbox.env, "PYTHONPYCACHEPREFIX": str(work / "pycache")}
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            primed = work / "primed-cache"
            build_json(sites["plain"], work / "primed-out", primed, env)
            originals, _ = images_of(work / "primed-out" / "media")
            (work / "files.json").write_text(json.dumps([str(p) for p in originals]))
            node_env = {**_clean_env(), "NODE_PATH": str(args.eleventy / "node_modules")}
            node = ["node", str(work / "eleventy.js"), str(work / "files.json")]
            rounds = Rounds(work, sites, env, (node, node_env))
            for number in range(args.rounds):
                rounds.round(number, primed, only_images)
            names = ("images",) if only_images else ("images", "site")
            found = {name: counters(work, sites[name], primed, env) for name in names}
        check_same_images(work, originals, names)
        figures = summarise(rounds)
        figures["counters"] = found
        media = work / "count-images-cold" / "media"
        figures["bytes"] = image_bytes(work, media, originals)
        print(json.dumps(figures))
    return 0


def check_same_images(work: Path, originals: list[Path], names: tuple[str, ...]) -> None:
    """The images-only site publishes W1's image files (those eleventy-img gets), and with
    W1 built too, the same encodings."""
    published = [images_of(work / f"count-{name}-cold" / "media") for name in names]
    files = [[p.name for p in served] for served, _ in published]
    if files[0] != [p.name for p in originals] or len({str(e) for e in files}) != 1:
        raise BenchmarkError("the images-only site does not publish W1's image files")
    encoded = {str([p.name for p in encodings]) for _, encodings in published}
    if len(encoded) != 1:
        raise BenchmarkError("the images-only site does not publish W1's encodings")


if __name__ == "__main__":
    sys.exit(main())
