"""Side by side with Hugo: one W1 site built by Hugo and by mediashortcodes (docs/benchmarks.md).

    python benchmarks/hugo.py                                # W1, 5 interleaved rounds
    python benchmarks/hugo.py --tree before=/work/main       # and a second tree, same run
    python benchmarks/hugo.py --n 20 --k 12 --rounds 1 --latency-ms 0   # a smoke run

One sandbox (``mediashortcodes sandbox --synthetic K --latency-ms L``, real sockets on
127.0.0.1) serves every build. Hugo builds the site as Hugo content, each shortcode a
partial that calls ``resources.GetRemote`` for the download information (bearer token in a
header), then for the ``downloadURL``, and publishes the image; videos take their
``mediaId`` from the folder listings, as the service requires. The token comes from the
sandbox (refresh-token flow of the spec) and reaches Hugo as ``HUGO_MEDIA_TOKEN``, which
Hugo's default security policy lets ``getenv`` read.

Each tree of mediashortcodes (``--tree NAME=PATH``; this checkout is always ``this``) runs
as ``python -m mediashortcodes build SITE --output DIR -q`` with ``PYTHONPATH=PATH``, timed
from outside (wall clock and the child's CPU): nothing of the package is imported here.

A round builds every tool cold (empty cache, new output), then every tool warm (the cache
of its cold build, new output), the tools' order turning from round to round. The figures
are medians over the rounds; the sandbox counts each build's requests. The last line is
one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent
sys.path.insert(0, str(HERE))

from generate import generate  # noqa: E402
from run import BenchmarkError, SandboxProcess, _clean_env, working_directory  # noqa: E402

HUGO = "hugo"
INSTALL_HINT = (
    "Hugo is not installed: `apt-get install hugo` (Debian's 0.111 was used for "
    "docs/benchmarks.md), or see https://gohugo.io/installation/; or give --hugo PATH"
)
SHORTCODE = re.compile(r"<% (media_image|media_video) (.*?) %>")

# The Hugo site's configuration, layout, partials and shortcodes (the content is written).
HUGO_SITE = HERE / "hugo_site"


def hugo_shortcode(kind: str, arguments: str) -> str:
    """One shortcode of the W1 site in Hugo's notation (``{{< media_image id="3" ... >}}``)."""
    words = shlex.split(arguments)
    params = {"id": words[0]}
    crop: list[str] = []
    for word in words[1:]:
        key, equals, value = word.partition("=")
        if not equals:
            params["format"] = key
        elif key in ("alt", "caption"):
            params[key] = value
        else:
            crop.append(word)
    if crop:
        params["format"], params["crop"] = "-1", "&".join(crop)
    if kind == "media_image":
        params.setdefault("format", "original")
    text = " ".join(f"{key}={json.dumps(value)}" for key, value in params.items())
    return f"{{{{< {kind} {text} >}}}}"


def write_hugo_site(site: Path, root: Path) -> None:
    """The generated site ``site`` as a Hugo site in ``root``: the same pages and layout."""
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(HUGO_SITE, root)
    for page in sorted((site / "content").rglob("*.md")):
        text = SHORTCODE.sub(lambda m: hugo_shortcode(m[1], m[2]), page.read_text("utf-8"))
        target = root / "content" / page.relative_to(site / "content")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


@dataclass
class Tool:
    """Hugo or one tree of mediashortcodes, and its measured builds."""

    name: str
    path: Path | None = None  # a tree's folder; None for Hugo
    cold: list[dict[str, float]] = field(default_factory=list)
    warm: list[dict[str, float]] = field(default_factory=list)


def access_token(sandbox: SandboxProcess) -> str:
    """A token by the spec's refresh-token flow, with the demo credentials it printed."""
    env = sandbox.env
    query = urllib.parse.urlencode(
        {
            "grant_type": "refresh_token",
            "client_id": env["MEDIASHORTCODES_CLIENT_ID"],
            "client_secret": env["MEDIASHORTCODES_CLIENT_SECRET"],
            "refresh_token": env["MEDIASHORTCODES_REFRESH_TOKEN"],
        }
    )
    url = f"{env['MEDIASHORTCODES_BASE_URL']}/1/oauth2/token?{query}"
    with urllib.request.urlopen(url, timeout=10) as answer:
        return str(json.loads(answer.read())["access_token"])


def timed(args: list[str], env: dict[str, str], what: str) -> tuple[float, float]:
    """Run ``args`` to the end: (wall seconds, CPU seconds of the child, user + system)."""
    os.sync()  # the previous build's pages are written back before, not during, this one
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise BenchmarkError(f"{what} failed (exit {done.returncode}):\n{done.stderr.strip()}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return seconds, cpu


class Bench:
    """The sites, the sandbox and the directories of one run."""

    def __init__(self, workdir: Path, sandbox: SandboxProcess, hugo: str) -> None:
        self.workdir, self.sandbox, self.hugo = workdir, sandbox, hugo
        self.builds = 0
        self.token = ""

    def output(self, tool: Tool, kind: str) -> Path:
        # A new folder each build, deleted at the end: a file system that just deleted
        # thousands of files is slower to create new ones (docs/decisions/).
        self.builds += 1
        return self.workdir / "out" / f"{self.builds:03d}-{tool.name}-{kind}"

    def build(self, tool: Tool, kind: str, cache: Path) -> dict[str, float]:
        """One build of ``tool``: ``cold`` into an empty ``cache``, ``warm`` reusing it."""
        self.sandbox.reset_stats()
        out = self.output(tool, kind)
        if tool.path is None:
            if kind == "cold":  # a new token, as a cold CI job would get; warm keeps it
                self.token = access_token(self.sandbox)
            args = [self.hugo, "--source", str(self.workdir / "hugo-site"), "--quiet"]
            args += ["--destination", str(out), "--cacheDir", str(cache)]
            env = {
                **_clean_env(),
                "HUGO_MEDIA_TOKEN": self.token,
                "HUGO_MEDIA_BASE_URL": self.sandbox.env["MEDIASHORTCODES_BASE_URL"],
                "HUGO_MEDIA_PLAYER_URL": self.sandbox.env["MEDIASHORTCODES_PLAYER_URL"],
                "HUGO_RESOURCEDIR": str(cache / "resources"),
            }
        else:
            args = [sys.executable, "-m", "mediashortcodes", "build", str(self.workdir / "site")]
            args += ["--output", str(out), "-q"]
            env = {
                **_clean_env(),
                **self.sandbox.env,
                "PYTHONPATH": str(tool.path),
                "MEDIASHORTCODES_CACHE_DIR": str(cache),
                # Compiled modules are kept, as in an installed package.
                "PYTHONPYCACHEPREFIX": str(self.workdir / "pycache"),
            }
            env.pop("PYTHONDONTWRITEBYTECODE", None)
        seconds, cpu = timed(args, env, f"the {kind} build of {tool.name}")
        requests = sum(int(n) for n in self.sandbox.stats().values())
        return {"s": seconds, "cpu_s": cpu, "requests": requests}


def measure(
    workdir: Path,
    trees: list[tuple[str, Path]],
    *,
    n: int,
    k: int,
    latency_ms: float,
    rounds: int,
    hugo: str,
    keep: bool = False,
    log: Any = sys.stderr,
) -> list[Tool]:
    """Generate both sites, start the sandbox, and run the interleaved rounds."""
    print(f"generating {n} pages over {k} images in {workdir}", file=log, flush=True)
    generate(workdir / "site", n=n, k=k)
    write_hugo_site(workdir / "site", workdir / "hugo-site")
    tools = [Tool("hugo"), *(Tool(name, path) for name, path in trees)]
    with SandboxProcess(latency_ms=latency_ms, k=k, log=workdir / "sandbox.log") as sandbox:
        bench = Bench(workdir, sandbox, hugo)
        # The sandbox draws each variant once, on its first download: prime it (not counted).
        print("priming the sandbox (one build, not counted)", file=log, flush=True)
        bench.build(tools[1], "cold", workdir / "cache-prime")
        for number in range(rounds):
            turn = number % len(tools)
            order = tools[turn:] + tools[:turn]
            caches = {t.name: workdir / f"cache-{number}-{t.name}" for t in tools}
            for kind in ("cold", "warm"):
                for tool in order:
                    figures = bench.build(tool, kind, caches[tool.name])
                    getattr(tool, kind).append(figures)
                    print(
                        f"  round {number + 1} {kind:<4} {tool.name:<10} {figures['s']:7.2f} s"
                        f"  CPU {figures['cpu_s']:6.2f} s  {figures['requests']:5.0f} requests",
                        file=log,
                        flush=True,
                    )
    for leftover in [] if keep else [workdir / "out", *workdir.glob("cache-*")]:
        shutil.rmtree(leftover, ignore_errors=True)
    return tools


def summarise(tools: list[Tool], *, n: int, k: int, latency_ms: float) -> dict[str, Any]:
    """Medians per tool and kind, the ratios to Hugo's, and the requests per build."""

    def median(builds: list[dict[str, float]], key: str) -> float:
        return round(statistics.median(b[key] for b in builds), 3)

    hugo, trees = tools[0], tools[1:]
    hugo_cold, hugo_warm = median(hugo.cold, "s"), median(hugo.warm, "s")
    per_tree = {
        tree.name: {
            "path": str(tree.path),
            "cold_s": median(tree.cold, "s"),
            "warm_s": median(tree.warm, "s"),
            "cold_cpu_s": median(tree.cold, "cpu_s"),
            "warm_cpu_s": median(tree.warm, "cpu_s"),
            "cold_ratio": round(median(tree.cold, "s") / hugo_cold, 3),
            "warm_ratio": round(median(tree.warm, "s") / hugo_warm, 3),
            "cold_requests": int(max(b["requests"] for b in tree.cold)),
            "warm_requests": int(max(b["requests"] for b in tree.warm)),
            "cold_runs_s": [round(b["s"], 3) for b in tree.cold],
            "warm_runs_s": [round(b["s"], 3) for b in tree.warm],
        }
        for tree in trees
    }
    this = per_tree["this"]
    return {
        "n": n,
        "k": k,
        "latency_ms": latency_ms,
        "rounds": len(hugo.cold),
        "hugo_cold_s": hugo_cold,
        "hugo_warm_s": hugo_warm,
        "hugo_cold_cpu_s": median(hugo.cold, "cpu_s"),
        "hugo_warm_cpu_s": median(hugo.warm, "cpu_s"),
        # Hugo's cold figure counts the token request the benchmark makes for it.
        "hugo_cold_requests": int(max(b["requests"] for b in hugo.cold)),
        "hugo_warm_requests": int(max(b["requests"] for b in hugo.warm)),
        "hugo_cold_runs_s": [round(b["s"], 3) for b in hugo.cold],
        "hugo_warm_runs_s": [round(b["s"], 3) for b in hugo.warm],
        "cold_s": this["cold_s"],
        "warm_s": this["warm_s"],
        "cold_ratio": this["cold_ratio"],
        "warm_ratio": this["warm_ratio"],
        "trees": per_tree,
    }


def table(f: dict[str, Any]) -> str:
    lines = [
        f"side by side with Hugo: {f['n']} pages, {f['k']} images, latency "
        f"{f['latency_ms']:g} ms, medians of {f['rounds']} interleaved round(s)",
        "",
        f"{'tool':<12}{'cold s':>9}{'warm s':>9}{'cold CPU':>10}{'warm CPU':>10}"
        f"{'cold/Hugo':>11}{'warm/Hugo':>11}{'requests cold/warm':>20}",
        f"{'hugo':<12}{f['hugo_cold_s']:>9.3f}{f['hugo_warm_s']:>9.3f}"
        f"{f['hugo_cold_cpu_s']:>10.3f}{f['hugo_warm_cpu_s']:>10.3f}{'':>11}{'':>11}"
        f"{f['hugo_cold_requests']:>13d} / {f['hugo_warm_requests']}",
    ]
    for name, t in f["trees"].items():
        lines.append(
            f"{name:<12}{t['cold_s']:>9.3f}{t['warm_s']:>9.3f}{t['cold_cpu_s']:>10.3f}"
            f"{t['warm_cpu_s']:>10.3f}{t['cold_ratio']:>10.3f}x{t['warm_ratio']:>10.3f}x"
            f"{t['cold_requests']:>13d} / {t['warm_requests']}"
        )
    if f["hugo_warm_requests"]:
        lines.append("warning: Hugo's warm builds made requests: its cache was not used")
    return "\n".join(lines)


def parse_tree(text: str) -> tuple[str, Path]:
    name, equals, path = text.partition("=")
    if not equals or not name or not (Path(path) / "mediashortcodes").is_dir():
        raise argparse.ArgumentTypeError(f"{text!r}: want NAME=PATH, PATH holding mediashortcodes/")
    return name, Path(path).resolve()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000, help="pages (W1: 1000)")
    parser.add_argument("--k", type=int, default=300, help="distinct images (W1: 300)")
    parser.add_argument("--latency-ms", type=float, default=20.0, help="per request (W1: 20)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument(
        "--tree",
        type=parse_tree,
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="also build with the mediashortcodes in PATH (repeatable; this checkout is 'this')",
    )
    parser.add_argument("--hugo", default=HUGO, help="the hugo command (default: hugo)")
    parser.add_argument("--workdir", type=Path, default=None, help="keep the sites here")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args(argv)
    if args.n < 1 or args.k < 6 or args.rounds < 1 or args.latency_ms < 0:
        parser.error("need --n >= 1, --k >= 6, --rounds >= 1, --latency-ms >= 0")
    hugo = shutil.which(args.hugo)
    if hugo is None:
        print(f"error: {INSTALL_HINT}", file=sys.stderr)
        return 2
    trees = dict([("this", CHECKOUT), *args.tree])  # --tree this=PATH replaces the checkout
    if len(trees) != len(args.tree) + (0 if any(n == "this" for n, _ in args.tree) else 1):
        parser.error("each --tree needs its own NAME")
    try:
        with working_directory(args.workdir, args.keep) as workdir:
            tools = measure(
                workdir, list(trees.items()), n=args.n, k=args.k, latency_ms=args.latency_ms,
                rounds=args.rounds, hugo=hugo, keep=args.keep,
            )  # fmt: skip
    except BenchmarkError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    figures = summarise(tools, n=args.n, k=args.k, latency_ms=args.latency_ms)
    print(table(figures))
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
