"""Side by side with Hugo: one W1 site built by Hugo and by mediashortcodes (docs/benchmarks.md).

    python benchmarks/hugo.py                        # W1 and N=10,000, 5 interleaved rounds
    python benchmarks/hugo.py --large none           # W1 only
    python benchmarks/hugo.py --tree before=/work/main       # and a second tree, same run
    python benchmarks/hugo.py --n 20 --k 12 --rounds 1 --latency-ms 0 --large none  # smoke
    python benchmarks/hugo.py --mode finish --large none  # Hugo + `finish` against GetRemote
    python benchmarks/hugo.py --n 10000 --k 3000 --large none --warm-only  # issue 30's N

One sandbox (``mediashortcodes sandbox --synthetic K --latency-ms L``, real sockets on
127.0.0.1) serves every build. Hugo builds the site as Hugo content, each shortcode a
partial that calls ``resources.GetRemote`` for the download information (bearer token in a
header), then for the ``downloadURL``, and publishes the image; videos take their
``mediaId`` from the folder listings, as the service requires. The token comes from the
sandbox (refresh-token flow of the spec) and reaches Hugo as ``HUGO_MEDIA_TOKEN``, which
Hugo's default security policy lets ``getenv`` read.

Each tree of mediashortcodes (``--tree NAME=PATH``; this checkout is always ``this``) runs
as ``python -P -m mediashortcodes build SITE --output DIR -q`` with ``PYTHONPATH=PATH``, timed
from outside (wall clock and the child's CPU): nothing of the package is imported here.

A round builds every tool cold (empty cache, new output), then every tool warm (the cache
of its cold build, new output: as CI restores a cache), then warm again after one page's
body was edited, then after the layout was edited (every page rendered), the same edits in
both sites; the tools' order turns from round to round. ``MEDIASHORTCODES_CACHE_KEY`` is
set, as a trusted CI job sets it. A tree whose ``build --help`` offers ``--no-memo`` has the
page memo (on by default); ``--no-memo-too`` adds that tree built with ``--no-memo``. Then
the same for the large size (``--large N:K``, default 10000:3000). The figures are medians
over the rounds, with the peak memory of the build's whole process tree (its RSS and its
PSS summed over the build and its worker processes, sampled from /proc every 50 ms); the
sandbox counts each build's requests. The last line is one JSON object.

``--warm-only``: each tool builds cold once, in the first round (its cache, kept for the
later rounds), then only warm builds are timed, round after round: the figures a large
site's bound is about, without a cold pair that takes ten minutes at N = 10,000 in each round.

``--mode finish``: instead of ``build``, this tree's figures are Hugo building the same site
with the shortcodes left as written (``<% media_image ... %>`` in the Markdown and the
layout, no partial) followed by ``mediashortcodes finish`` over its output, both timed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import secrets
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
# The process tree's RSS is read this often: each reading costs CPU the builds share.
SAMPLE_SECONDS = 0.05
CHECKOUT = HERE.parent
sys.path.insert(0, str(HERE))

from generate import generate  # noqa: E402
from run import (  # noqa: E402
    BenchmarkError,
    SandboxProcess,
    _clean_env,
    sampling_rss,
    working_directory,
)

HUGO = "hugo"
INSTALL_HINT = (
    "Hugo is not installed: `apt-get install hugo` (Debian's 0.111 was used for "
    "docs/benchmarks.md), or see https://gohugo.io/installation/; or give --hugo PATH"
)
SHORTCODE = re.compile(r"<% (media_image|media_video) (.*?) %>")
# The builds of a round, in order, each with the cache of the one before (after the edit).
KINDS = ("cold", "warm", "warm_one_edit", "warm_layout_edit")
# The page whose body the one-page edit changes, and the layouts the layout edit changes.
EDITED_PAGE = Path("content") / "section-000" / "page-00000.md"
LAYOUTS = (
    Path("site/templates/page.html"),
    Path("hugo-site/layouts/_default/single.html"),
    Path("hugo-plain/layouts/_default/single.html"),
)
# The Hugo layout's one shortcode (a partial call), as the plain site writes it.
LAYOUT_PARTIAL = re.compile(r'\{\{ partial "media_image\.html" .*?\}\}', re.S)
PLAIN_LOGO = '<% media_image 1 thumb alt="Logo" %>'

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


def write_plain_hugo_site(site: Path, root: Path) -> None:
    """The generated site as a Hugo site whose shortcodes stay as written, for ``finish``:
    the content as is, the layout's partial call as a shortcode, the site's config beside."""
    if root.exists():
        shutil.rmtree(root)
    (root / "layouts" / "_default").mkdir(parents=True)
    shutil.copy(HUGO_SITE / "hugo.toml", root / "hugo.toml")
    shutil.copy(site / "mediashortcodes.toml", root / "mediashortcodes.toml")
    layout = (HUGO_SITE / "layouts" / "_default" / "single.html").read_text("utf-8")
    (root / "layouts" / "_default" / "single.html").write_text(
        LAYOUT_PARTIAL.sub(PLAIN_LOGO, layout), "utf-8"
    )
    shutil.copytree(site / "content", root / "content")


def edit(workdir: Path, kind: str, number: int) -> None:
    """The same edit in both sites before the ``kind`` builds of round ``number``: a
    sentence added to one page's body, or to the layout's footer (every page changes)."""
    if kind == "warm_one_edit":
        for site in ("site", "hugo-site", "hugo-plain"):
            page = workdir / site / EDITED_PAGE
            if not page.exists():
                continue
            text = page.read_text("utf-8")
            page.write_text(f"{text.rstrip()}\n\nEdited in round {number + 1}.\n", "utf-8")
    elif kind == "warm_layout_edit":
        for layout in LAYOUTS:
            if not (workdir / layout).exists():
                continue
            text = (workdir / layout).read_text("utf-8")
            (workdir / layout).write_text(
                text.replace("</footer>", f" · edit {number + 1}</footer>", 1), "utf-8"
            )


def has_memo(path: Path) -> bool:
    """Whether the tree in ``path`` has the page memo: its ``build --help`` offers --no-memo."""
    env = {**_clean_env(), "PYTHONPATH": str(path)}
    # -P: the current folder is not put before PYTHONPATH (run from a checkout, it would
    # import that checkout's package instead of the tree's).
    args = [sys.executable, "-P", "-m", "mediashortcodes", "build", "--help"]
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BenchmarkError(f"`build --help` of {path} failed:\n{done.stderr.strip()}")
    return "--no-memo" in done.stdout


@dataclass
class Tool:
    """Hugo or one tree of mediashortcodes, and its measured builds by kind."""

    name: str
    path: Path | None = None  # a tree's folder; None for Hugo
    args: tuple[str, ...] = ()  # more arguments of `build` (--no-memo)
    memo: bool = False  # the tree has the page memo and this tool uses it
    finish: bool = False  # Hugo then `mediashortcodes finish` (--mode finish)
    builds: dict[str, list[dict[str, float]]] = field(
        default_factory=lambda: {kind: [] for kind in KINDS}
    )


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


def timed(args: list[str], env: dict[str, str], what: str) -> dict[str, float]:
    """Run ``args`` to the end: wall seconds, CPU seconds of the child and its children
    (user + system), and the peaks of the RSS and of the PSS of its process tree, summed (MB;
    sampled; in the PSS a page the forked workers share counts once, split between them)."""
    os.sync()  # the previous build's pages are written back before, not during, this one
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    process = subprocess.Popen(
        args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    with sampling_rss(process.pid, every=SAMPLE_SECONDS) as (rss, pss):
        _out, errors = process.communicate()
    seconds = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode != 0:
        raise BenchmarkError(f"{what} failed (exit {process.returncode}):\n{errors.strip()}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {
        "s": seconds,
        "cpu_s": cpu,
        "peak_rss_all_mb": max(rss, default=0.0),
        "peak_pss_all_mb": max(pss, default=0.0),
    }


class Bench:
    """The sites, the sandbox and the directories of one run."""

    def __init__(self, workdir: Path, sandbox: SandboxProcess, hugo: str, key: str) -> None:
        self.workdir, self.sandbox, self.hugo = workdir, sandbox, hugo
        self.key = key  # MEDIASHORTCODES_CACHE_KEY, as a trusted CI job has it
        self.builds = 0
        self.token = ""

    def output(self, tool: Tool, kind: str) -> Path:
        # A new folder each build, deleted at the end: a file system that just deleted
        # thousands of files is slower to create new ones (docs/decisions/).
        self.builds += 1
        return self.workdir / "out" / f"{self.builds:03d}-{tool.name}-{kind}"

    def build(self, tool: Tool, kind: str, cache: Path) -> dict[str, float]:
        """One build of ``tool``: ``cold`` into an empty ``cache``, the others reusing it."""
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
            site = self.workdir / ("hugo-plain" if tool.finish else "site")
            command = "finish" if tool.finish else "build"
            args = [sys.executable, "-P", "-m", "mediashortcodes", command, str(site)]
            args += ["--output", str(out), "-q", *tool.args]
            env = {
                **_clean_env(),
                **self.sandbox.env,
                "PYTHONPATH": str(tool.path),
                "MEDIASHORTCODES_CACHE_DIR": str(cache),
                "MEDIASHORTCODES_CACHE_KEY": self.key,
                # Compiled modules are kept, as in an installed package.
                "PYTHONPYCACHEPREFIX": str(self.workdir / "pycache"),
            }
            env.pop("PYTHONDONTWRITEBYTECODE", None)
        if tool.finish:  # Hugo writes the pages first; then finish
            hugo = [self.hugo, "--source", str(site), "--quiet", "--destination", str(out)]
            first = timed([*hugo, "--cacheDir", str(cache)], _clean_env(), "the plain Hugo build")
        figures = timed(args, env, f"the {kind} build of {tool.name}")
        if tool.finish:
            figures = {
                "s": first["s"] + figures["s"],
                "cpu_s": first["cpu_s"] + figures["cpu_s"],
                **{
                    peak: max(first[peak], figures[peak])
                    for peak in ("peak_rss_all_mb", "peak_pss_all_mb")
                },
            }
        figures["requests"] = sum(int(n) for n in self.sandbox.stats().values())
        return figures


def measure(
    workdir: Path,
    tools: list[Tool],
    *,
    n: int,
    k: int,
    latency_ms: float,
    rounds: int,
    hugo: str,
    keep: bool = False,
    warm_only: bool = False,
    log: Any = sys.stderr,
) -> None:
    """Generate both sites in ``workdir``, start the sandbox, and run the interleaved rounds
    (each tool's figures go into its ``builds``; ``tools[0]`` is Hugo)."""
    print(f"generating {n} pages over {k} images in {workdir}", file=log, flush=True)
    generate(workdir / "site", n=n, k=k)
    write_hugo_site(workdir / "site", workdir / "hugo-site")
    if any(tool.finish for tool in tools):
        write_plain_hugo_site(workdir / "site", workdir / "hugo-plain")
    with SandboxProcess(latency_ms=latency_ms, k=k, log=workdir / "sandbox.log") as sandbox:
        bench = Bench(workdir, sandbox, hugo, secrets.token_hex(32))
        # The sandbox draws each variant once, on its first download: prime it (not counted).
        print("priming the sandbox (one build, not counted)", file=log, flush=True)
        bench.build(tools[1], "cold", workdir / "cache-prime")
        for number in range(rounds):
            turn = number % len(tools)
            order = tools[turn:] + tools[:turn]
            caches = {
                t.name: workdir / f"cache-{0 if warm_only else number}-{t.name}" for t in tools
            }
            for kind in ("cold", "warm") if warm_only else KINDS:
                if kind == "cold" and warm_only and number:
                    continue  # the first round's cache is kept
                edit(workdir, kind, number)
                for tool in order:
                    figures = bench.build(tool, kind, caches[tool.name])
                    tool.builds[kind].append(figures)
                    print(
                        f"  N={n} round {number + 1} {kind:<16} {tool.name:<12}"
                        f"{figures['s']:7.2f} s  CPU {figures['cpu_s']:6.2f} s"
                        f"  {figures['peak_rss_all_mb']:6.0f} MB"
                        f" (PSS {figures['peak_pss_all_mb']:4.0f})"
                        f"  {figures['requests']:5.0f} requests",
                        file=log,
                        flush=True,
                    )
            for cache in [] if keep or (warm_only and number + 1 < rounds) else caches.values():
                shutil.rmtree(cache, ignore_errors=True)
    for leftover in [] if keep else [workdir / "out", workdir / "cache-prime"]:
        shutil.rmtree(leftover, ignore_errors=True)


def _median(builds: list[dict[str, float]], key: str) -> float:
    return round(statistics.median(b[key] for b in builds), 3)


def _figures(tool: Tool, prefix: str = "") -> dict[str, Any]:
    """Medians, runs, requests and peak memory of each kind of ``tool``'s builds."""
    figures: dict[str, Any] = {}
    for kind, builds in tool.builds.items():
        if not builds:  # --warm-only: no edits
            continue
        figures[f"{prefix}{kind}_s"] = _median(builds, "s")
        figures[f"{prefix}{kind}_cpu_s"] = _median(builds, "cpu_s")
        figures[f"{prefix}{kind}_requests"] = int(max(b["requests"] for b in builds))
        figures[f"{prefix}{kind}_runs_s"] = [round(b["s"], 3) for b in builds]
        for peak in ("peak_rss_all_mb", "peak_pss_all_mb"):
            figures[f"{prefix}{kind}_{peak}"] = round(max(b[peak] for b in builds), 1)
    for peak in ("peak_rss_all_mb", "peak_pss_all_mb"):
        figures[f"{prefix}{peak}"] = max(
            figures[f"{prefix}{k}_{peak}"] for k in KINDS if f"{prefix}{k}_{peak}" in figures
        )
    return figures


def summarise(tools: list[Tool], *, n: int, k: int, latency_ms: float) -> dict[str, Any]:
    """Medians per tool and kind, the ratios to Hugo's same kind, requests and memory."""
    hugo, trees = tools[0], tools[1:]
    hugo_figures = _figures(hugo, "hugo_")
    per_tree = {}
    for tree in trees:
        figures = {"path": str(tree.path), "args": list(tree.args), "memo": tree.memo}
        figures.update(_figures(tree))
        for kind in [k for k in KINDS if f"{k}_s" in figures]:
            figures[f"{kind}_ratio"] = round(
                figures[f"{kind}_s"] / hugo_figures[f"hugo_{kind}_s"], 3
            )
        per_tree[tree.name] = figures
    this = per_tree["this"]
    summary: dict[str, Any] = {
        "n": n,
        "k": k,
        "latency_ms": latency_ms,
        "rounds": len(hugo.builds["warm"]),
        "memo": this["memo"],
        "mode": "finish" if trees[0].finish else "build",
        **hugo_figures,
    }
    for kind in [k for k in KINDS if f"{k}_s" in this]:
        summary[f"{kind}_s"] = this[f"{kind}_s"]
        summary[f"{kind}_ratio"] = this[f"{kind}_ratio"]
    summary["peak_rss_all_mb"] = this["peak_rss_all_mb"]
    summary["peak_pss_all_mb"] = this["peak_pss_all_mb"]
    summary["trees"] = per_tree
    return summary


def table(f: dict[str, Any]) -> str:
    lines = [
        f"side by side with Hugo: {f['n']} pages, {f['k']} images, latency "
        f"{f['latency_ms']:g} ms, medians of {f['rounds']} interleaved round(s); "
        f"memo {'on' if f['memo'] else 'absent'} in this tree"
        + ("; trees: Hugo, then `finish`" if f.get("mode") == "finish" else ""),
        "",
        f"{'tool':<14}{'cold s':>9}{'warm s':>9}{'1 edit s':>10}{'layout s':>10}"
        f"{'cold/H':>8}{'warm/H':>8}{'edit/H':>8}{'lay/H':>8}"
        f"{'peak MB':>9}{'PSS':>6}{'requests':>13}",
    ]
    rows = [("hugo", {k[len("hugo_") :]: v for k, v in f.items() if k.startswith("hugo_")})]
    for name, t in [*rows, *f["trees"].items()]:
        ratios = "".join(
            f"{t[kind + '_ratio']:>7.3f}x" if kind + "_ratio" in t else f"{'':>8}" for kind in KINDS
        )
        lines.append(
            f"{name:<14}"
            + "".join(
                f"{t[kind + '_s']:>{w}.3f}" if kind + "_s" in t else f"{'-':>{w}}"
                for kind, w in zip(KINDS, (9, 9, 10, 10), strict=True)
            )
            + ratios
            + f"{t['peak_rss_all_mb']:>9.0f}"
            + f"{t['peak_pss_all_mb']:>6.0f}"
            + f"{t['cold_requests']:>7d} / {t['warm_requests']}"
        )
    if f["hugo_warm_requests"]:
        lines.append("warning: Hugo's warm builds made requests: its cache was not used")
    return "\n".join(lines)


def parse_tree(text: str) -> tuple[str, Path]:
    name, equals, path = text.partition("=")
    if not equals or not name or not (Path(path) / "mediashortcodes").is_dir():
        raise argparse.ArgumentTypeError(f"{text!r}: want NAME=PATH, PATH holding mediashortcodes/")
    return name, Path(path).resolve()


def parse_size(text: str) -> tuple[int, int] | None:
    if text == "none":
        return None
    n, colon, k = text.partition(":")
    if not colon or not n.isdigit() or not k.isdigit() or int(n) < 1 or int(k) < 6:
        raise argparse.ArgumentTypeError(f"{text!r}: want N:K (N >= 1, K >= 6) or none")
    return int(n), int(k)


def make_tools(trees: dict[str, Path], no_memo_too: bool, mode: str = "build") -> list[Tool]:
    """Hugo, then each tree (with its memo, if it has one), then ``this`` without it; in
    ``finish`` mode Hugo, then Hugo with each tree's ``finish``."""
    tools = [Tool("hugo")]
    if mode == "finish":
        return tools + [Tool(name, path, finish=True) for name, path in trees.items()]
    for name, path in trees.items():
        memo = has_memo(path)
        tools.append(Tool(name, path, memo=memo))
        if name == "this" and memo and no_memo_too:
            tools.append(Tool("this-no-memo", path, ("--no-memo",)))
    return tools


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000, help="pages (W1: 1000)")
    parser.add_argument("--k", type=int, default=300, help="distinct images (W1: 300)")
    parser.add_argument("--latency-ms", type=float, default=20.0, help="per request (W1: 20)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument(
        "--large",
        type=parse_size,
        default=(10000, 3000),
        metavar="N:K",
        help="then the same at this size (default 10000:3000; none: skip it)",
    )
    parser.add_argument("--large-rounds", type=int, default=None, help="default: --rounds")
    parser.add_argument(
        "--warm-only",
        action="store_true",
        help="build cold in the first round only; then time warm builds alone",
    )
    parser.add_argument(
        "--no-memo-too", action="store_true", help="also build this tree with --no-memo"
    )
    parser.add_argument(
        "--tree",
        type=parse_tree,
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="also build with the mediashortcodes in PATH (repeatable; this checkout is 'this')",
    )
    parser.add_argument(
        "--mode",
        choices=("build", "finish"),
        default="build",
        help="finish: each tree's figures are Hugo then `mediashortcodes finish`",
    )
    parser.add_argument("--hugo", default=HUGO, help="the hugo command (default: hugo)")
    parser.add_argument("--workdir", type=Path, default=None, help="keep the sites here")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args(argv)
    large_rounds = args.rounds if args.large_rounds is None else args.large_rounds
    if args.n < 1 or args.k < 6 or min(args.rounds, large_rounds) < 1 or args.latency_ms < 0:
        parser.error("need --n >= 1, --k >= 6, --rounds >= 1, --latency-ms >= 0")
    hugo = shutil.which(args.hugo)
    if hugo is None:
        print(f"error: {INSTALL_HINT}", file=sys.stderr)
        return 2
    trees = dict([("this", CHECKOUT), *args.tree])  # --tree this=PATH replaces the checkout
    if len(trees) != len(args.tree) + (0 if any(n == "this" for n, _ in args.tree) else 1):
        parser.error("each --tree needs its own NAME")
    sizes = [(args.n, args.k, args.rounds)]
    if args.large is not None:
        sizes.append((*args.large, large_rounds))
    summaries = []
    try:
        with working_directory(args.workdir, args.keep) as workdir:
            for n, k, rounds in sizes:
                tools = make_tools(trees, args.no_memo_too, args.mode)
                measure(
                    workdir / f"n{n}", tools, n=n, k=k, latency_ms=args.latency_ms,
                    rounds=rounds, hugo=hugo, keep=args.keep, warm_only=args.warm_only,
                )  # fmt: skip
                summaries.append(summarise(tools, n=n, k=k, latency_ms=args.latency_ms))
                print(table(summaries[-1]), flush=True)
    except BenchmarkError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    figures = summaries[0]
    if len(summaries) > 1:
        large = summaries[1]
        figures["large"] = large
        for key in (
            "n",
            "k",
            "warm_s",
            "warm_ratio",
            "hugo_warm_s",
            "peak_rss_all_mb",
            "peak_pss_all_mb",
        ):
            figures[f"large_{key}"] = large[key]
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
