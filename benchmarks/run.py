"""Benchmark runner: cold, warm and render-floor builds of a synthetic site (docs/benchmarks.md).

Speed is judged side by side with Hugo (benchmarks/hugo.py); this runner's figures (the
render floor among them) say where a build's time goes. Its only verdicts are checks of
behaviour: a warm build makes no request, a cold one downloads each variant once.

    python benchmarks/run.py                      # W1: 1,000 pages, 300 images, 20 ms, 3 runs
    python benchmarks/run.py --quick              # a small version, well under a minute
    python benchmarks/run.py --n 10000 --k 3000   # the large workload
    python benchmarks/run.py --widths 160,320     # W1 with a srcset on every original and crop

The sandbox runs in its own process (``mediashortcodes sandbox --synthetic K``) with the
given latency on every request, over real sockets on 127.0.0.1; every build runs in its
own process too, so its timing and peak RSS are its own. One priming build, not counted,
lets the sandbox draw and resize every variant once: afterwards it answers like an origin
serving stored files, and the cold builds measure the builder and the latency, not Pillow.

- cold: empty cache and no output; warm: the cache of the last cold build, no output;
  floor: the same pages with every shortcode deleted, through the same builder.
- Warm and floor builds alternate, so background load hits both alike.
- Builds keep compiled modules in the work directory, as an installed package does.

Prints a table, then as its last line one JSON object (the figures other tools read).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import queue
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import Workload, generate  # noqa: E402

ENDPOINTS = ("token", "foldertree", "files", "formats", "download_info", "download")
CLI = "from mediashortcodes.cli import main; main()"
START_TIMEOUT = 30.0
# The cold bound's slack: floor + COLD_SLACK x requests x latency / jobs (a figure; the
# targets against the render floor were retired by issue 28, docs/decisions/).
COLD_SLACK = 1.5
RSS_SAMPLE_SECONDS = 0.01
PSS_EVERY = 5  # a PSS sample every 50 ms
EXAMPLE = HERE.parent / "example_site"


class BenchmarkError(Exception):
    """The benchmark could not run or a build failed; the message says which and why."""


@dataclass
class Build:
    """One measured build: the builder's own figures and the sandbox's request counts."""

    kind: str
    seconds: float
    cpu_seconds: float
    process_seconds: float
    peak_rss_mb: float
    downloads: int
    cache_hits: int
    requests: int  # counted by the sandbox, token included
    by_endpoint: dict[str, int] = field(default_factory=dict)
    client_imported: bool = False
    workers: int = 1
    rss_all_mb: float = 0.0  # the largest sum of the build's and its workers' RSS, sampled
    pss_all_mb: float = 0.0  # the same with PSS: pages the processes share counted once


class SandboxProcess:
    """``mediashortcodes sandbox`` in a child process, stopped whatever happens."""

    def __init__(self, *, latency_ms: float, k: int, log: Path) -> None:
        self.args = [
            sys.executable,
            "-c",
            CLI,
            "sandbox",
            "--port",
            "0",
            "--latency-ms",
            str(latency_ms),
            "--synthetic",
            str(k),
        ]
        self.log = log
        self.env: dict[str, str] = {}
        self.process: subprocess.Popen[str] | None = None

    def __enter__(self) -> SandboxProcess:
        with self.log.open("w") as errors:
            self.process = subprocess.Popen(
                self.args, stdout=subprocess.PIPE, stderr=errors, text=True, env=_clean_env()
            )
        lines: queue.Queue[str] = queue.Queue()

        def pump(stream: Any) -> None:
            for line in stream:
                lines.put(line)
            lines.put("")

        threading.Thread(target=pump, args=(self.process.stdout,), daemon=True).start()
        deadline = time.monotonic() + START_TIMEOUT
        try:
            while True:
                try:
                    line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
                except queue.Empty:
                    raise BenchmarkError(
                        f"the sandbox printed no banner within {START_TIMEOUT:.0f} s; "
                        f"see {self.log}"
                    ) from None
                if not line:
                    raise BenchmarkError(f"the sandbox exited at start; see {self.log}")
                if line.startswith("export "):
                    name, _, value = line[len("export ") :].strip().partition("=")
                    self.env[name] = value
                if line.startswith("Press Ctrl-C"):
                    return self
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def _call(self, path: str, body: dict[str, Any] | None = None) -> Any:
        url = self.env["MEDIASHORTCODES_BASE_URL"] + path
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(url, data=data, method="POST" if data else "GET")
        request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())

    def reset_stats(self) -> None:
        self._call("/_sandbox/control", {"reset_stats": True})

    def stats(self) -> dict[str, int]:
        return {name: int(count) for name, count in self._call("/_sandbox/stats").items()}


def _clean_env() -> dict[str, str]:
    """The environment without any MEDIASHORTCODES_* setting of the person running this."""
    return {k: v for k, v in os.environ.items() if not k.startswith("MEDIASHORTCODES_")}


def run_build(
    kind: str,
    site: Path,
    cache: Path,
    output: Path,
    sandbox: SandboxProcess,
    *,
    jobs: int | None,
    workers: int | None = None,
    profile: Path | None = None,
) -> Build:
    """Build ``site`` into ``output`` (a new directory) in a child process and measure it."""
    env = {
        **_clean_env(),
        **sandbox.env,
        "MEDIASHORTCODES_CACHE_DIR": str(cache),
        # Compiled modules are kept (beside the sites, not in the source tree), as in any
        # installed package, even where the environment turns bytecode files off.
        "PYTHONPYCACHEPREFIX": str(cache.parent / "pycache"),
    }
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    args = [sys.executable, str(HERE / "build_once.py"), str(site), "--output", str(output)]
    if jobs:
        args += ["--jobs", str(jobs)]
    if workers:
        args += ["--workers", str(workers)]
    if profile:
        args += ["--profile", str(profile)]
    sandbox.reset_stats()
    # The pages of the previous build are still being written back to disk: wait for that
    # here, not during this build (it made one build of a kind pay for the build before).
    os.sync()
    began = time.perf_counter()
    process = subprocess.Popen(
        args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=site
    )
    with sampling_rss(process.pid) as (rss, pss):
        stdout, stderr = process.communicate()
    process_seconds = time.perf_counter() - began
    if process.returncode != 0:
        raise BenchmarkError(
            f"the {kind} build of {site} failed (exit {process.returncode}):\n{stderr.strip()}"
        )
    figures = json.loads(stdout.strip().splitlines()[-1])
    by_endpoint = sandbox.stats()
    return Build(
        kind=kind,
        seconds=figures["seconds"],
        cpu_seconds=figures["cpu_seconds"],
        process_seconds=process_seconds,
        peak_rss_mb=figures["peak_rss_mb"],
        downloads=figures["downloads"],
        cache_hits=figures["cache_hits"],
        requests=sum(by_endpoint.values()),
        by_endpoint={k: v for k, v in by_endpoint.items() if v},
        client_imported=figures["client_imported"],
        workers=figures.get("workers", 1),
        rss_all_mb=max(rss, default=figures["peak_rss_mb"]),
        pss_all_mb=max(pss, default=figures["peak_rss_mb"]),
    )


@contextlib.contextmanager
def sampling_rss(
    pid: int, *, every: float = RSS_SAMPLE_SECONDS, pss: bool = True
) -> Iterator[tuple[list[float], list[float]]]:
    """Sample the resident memory of ``pid`` and its descendants (the build's workers), summed,
    every RSS_SAMPLE_SECONDS from outside the build; yields the samples in MB: RSS, and PSS
    (every PSS_EVERY-th sample: the kernel walks the page tables for it), in which a page
    that forked processes share counts once, split between them. Linux only (``/proc``);
    elsewhere no sample, and the build's own peak stands in. ``every``: seconds between
    samples; ``pss=False``: none of PSS (the costlier reading)."""
    samples: list[float] = []
    proportional: list[float] = []
    done = threading.Event()

    def sample() -> None:
        for n in itertools.count():
            if done.wait(every):
                return
            tree = _process_tree(pid)
            total = sum(_rss_kib(p) for p in tree)
            if total:
                samples.append(total / 1024)
            if pss and n % PSS_EVERY == 0 and (shared := sum(_pss_kib(p) for p in tree)):
                proportional.append(shared / 1024)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield samples, proportional
    finally:
        done.set()
        thread.join()


def _process_tree(pid: int) -> list[int]:
    tree, i = [pid], 0
    while i < len(tree):
        try:
            tasks = Path(f"/proc/{tree[i]}/task").iterdir()
            for task in tasks:
                tree += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
        i += 1
    return tree


def _pss_kib(pid: int) -> int:
    return _proc_kib(f"/proc/{pid}/smaps_rollup", "Pss:")


def _rss_kib(pid: int) -> int:
    return _proc_kib(f"/proc/{pid}/status", "VmRSS:")


def _proc_kib(path: str, field: str) -> int:
    """The kB figure of ``field`` in a /proc file (0 when the process is gone)."""
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def measure_startup(workdir: Path, *, runs: int) -> dict[str, float]:
    """Median wall and CPU time (user + system) of two whole processes a user waits for: the
    example site's warm build (after one cold build against its embedded sandbox) and
    ``mediashortcodes --help``. The CPU time is the steadier figure on a busy machine."""
    site = workdir / "example"
    shutil.copytree(EXAMPLE, site, ignore=shutil.ignore_patterns("_site", ".mediashortcodes"))
    env = {
        **_clean_env(),
        "MEDIASHORTCODES_CACHE_DIR": str(workdir / "cache-example"),
        "PYTHONPYCACHEPREFIX": str(workdir / "pycache"),
    }
    env.pop("PYTHONDONTWRITEBYTECODE", None)

    def timed(*args: str) -> tuple[float, float]:
        cpu_began = _children_cpu()
        began = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", CLI, *args], env=env, capture_output=True, text=True, check=False
        )
        seconds = time.perf_counter() - began
        if done.returncode != 0:
            raise BenchmarkError(f"mediashortcodes {' '.join(args)} failed:\n{done.stderr}")
        return seconds, _children_cpu() - cpu_began

    build = ("build", str(site), "--output", str(workdir / "out-example"))
    timed(*build)  # cold: fills the cache (and compiles the modules)
    example = [timed(*build) for _ in range(runs)]
    helps = [timed("--help") for _ in range(runs)]
    return {
        "example_warm_wall_s": statistics.median(w for w, _ in example),
        "example_warm_cpu_s": statistics.median(c for _, c in example),
        "help_wall_s": statistics.median(w for w, _ in helps),
        "help_cpu_s": statistics.median(c for _, c in helps),
    }


def _children_cpu() -> float:
    """CPU seconds (user + system) of this process's children that have ended."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(
    workdir: Path,
    *,
    n: int,
    k: int,
    latency_ms: float,
    runs: int,
    jobs: int | None,
    workers: int | None = None,
    cold_runs: int | None = None,
    seed: int = 0,
    profile: Path | None = None,
    log: Any = None,
    widths: tuple[int, ...] = (),
) -> tuple[Workload, dict[str, list[Build]]]:
    """Generate the sites, start the sandbox, and run every build of the benchmark."""

    def say(text: str) -> None:
        if log is not None:
            print(text, file=log, flush=True)

    say(f"generating {n} pages over {k} images in {workdir}")
    workload = generate(workdir / "site", n=n, k=k, seed=seed, widths=widths)
    generate(workdir / "floor", n=n, k=k, seed=seed, floor=True)
    builds: dict[str, list[Build]] = {
        "prime": [],
        "cold": [],
        "warm": [],
        "floor": [],
        "pfloor": [],
    }
    number = itertools.count(1)
    with SandboxProcess(latency_ms=latency_ms, k=k, log=workdir / "sandbox.log") as sandbox:

        def build(kind: str, site: str, cache: Path, *, workers: int | None, **kw: Any) -> Build:
            # Every build writes a directory no build used and nothing is deleted until the
            # end: a file system that just deleted thousands of files is slower to create
            # new ones (ext4 skips recently freed inodes), which would land on the next build.
            output = workdir / "out" / f"{next(number):03d}-{kind}"
            result = run_build(
                kind, workdir / site, cache, output, sandbox, jobs=jobs, workers=workers, **kw
            )
            say(
                f"  {kind:<6} {result.seconds:7.2f} s  {result.requests:6d} requests  "
                f"{result.downloads:6d} downloads  {result.peak_rss_mb:6.1f} MB"
            )
            return result

        say("priming the sandbox (a cold build, not counted)")
        builds["prime"].append(build("prime", "site", workdir / "cache-prime", workers=workers))
        cache = workdir / "cache-prime"
        for run in range(runs if cold_runs is None else cold_runs):
            cache = workdir / f"cache-cold-{run}"  # empty: a new directory each time
            builds["cold"].append(build("cold", "site", cache, workers=workers))
        for _ in range(runs):
            builds["warm"].append(build("warm", "site", cache, workers=workers))
            # The render floor in one process, and in as many as the warm build used.
            builds["floor"].append(build("floor", "floor", workdir / "cache-floor", workers=1))
            builds["pfloor"].append(
                build("pfloor", "floor", workdir / "cache-floor", workers=workers)
            )
        if profile is not None:
            profile.mkdir(parents=True, exist_ok=True)
            build("warm", "site", cache, workers=1, profile=profile / "warm.txt")
            build(
                "floor", "floor", workdir / "cache-floor", workers=1, profile=profile / "floor.txt"
            )
            say(f"profiles written to {profile}")
    for leftover in [workdir / "out", *workdir.glob("cache-*")]:
        shutil.rmtree(leftover, ignore_errors=True)
    return workload, builds


def summarise(
    workload: Workload,
    builds: dict[str, list[Build]],
    *,
    latency_ms: float,
    jobs: int,
    runs: int,
    startup: dict[str, float] | None = None,
) -> dict[str, Any]:
    """The figures of the benchmark, medians of the counted runs, and the checks met."""

    def median(kind: str, attribute: str) -> float:
        return statistics.median(getattr(b, attribute) for b in builds[kind])

    cold, warm, floor = (median(k, "seconds") for k in ("cold", "warm", "floor"))
    parallel_floor = median("pfloor", "seconds")
    cold_requests = max(b.requests for b in builds["cold"])
    warm_requests = max(b.requests for b in builds["warm"])
    downloads = max(b.by_endpoint.get("download", 0) for b in builds["cold"])
    bound = floor + COLD_SLACK * cold_requests * (latency_ms / 1000) / jobs
    everything = [b for kind in ("cold", "warm", "floor") for b in builds[kind]]
    figures: dict[str, Any] = {
        "n": workload.n,
        "k": workload.k,
        "latency_ms": latency_ms,
        "jobs": jobs,
        "runs": runs,
        "cold_runs": len(builds["cold"]),
        "cold_s": round(cold, 3),
        "warm_s": round(warm, 3),
        "floor_s": round(floor, 3),
        "warm_over_floor": round(warm / floor, 3),
        # The same ratio round by round (each warm build against the floor build right after
        # it), then the median: the machine's speed drifts between rounds on a shared host.
        "warm_over_floor_paired": round(
            statistics.median(
                w.seconds / f.seconds for w, f in zip(builds["warm"], builds["floor"], strict=False)
            ),
            3,
        ),
        "warm_over_floor_cpu": round(
            median("warm", "cpu_seconds") / median("floor", "cpu_seconds"), 3
        ),
        "cold_bound_s": round(bound, 3),
        "cold_requests": cold_requests,
        "warm_requests": warm_requests,
        "distinct_downloads": downloads,
        "distinct_variants": workload.variants,
        "cold_requests_by_endpoint": builds["cold"][-1].by_endpoint,
        "peak_rss_mb": round(max(b.peak_rss_mb for b in everything), 1),
        "warm_rss_mb": round(max(b.peak_rss_mb for b in builds["warm"]), 1),
        "cold_cpu_s": round(median("cold", "cpu_seconds"), 3),
        "warm_cpu_s": round(median("warm", "cpu_seconds"), 3),
        "floor_cpu_s": round(median("floor", "cpu_seconds"), 3),
        "workers": max(b.workers for b in builds["warm"]),
        "parallel_floor_s": round(parallel_floor, 3),
        "parallel_floor_cpu_s": round(median("pfloor", "cpu_seconds"), 3),
        "warm_over_parallel_floor": round(warm / parallel_floor, 3),
        # What a cold build's process spends per request beyond what the warm one spends.
        "cold_cpu_per_request_ms": round(
            (median("cold", "cpu_seconds") - median("warm", "cpu_seconds"))
            / max(cold_requests, 1)
            * 1000,
            3,
        ),
        "warm_rss_all_mb": round(max(b.rss_all_mb for b in builds["warm"]), 1),
        "warm_pss_all_mb": round(max(b.pss_all_mb for b in builds["warm"]), 1),
        **{key: round(value, 3) for key, value in (startup or {}).items()},
        "cold_process_s": round(median("cold", "process_seconds"), 3),
        "warm_process_s": round(median("warm", "process_seconds"), 3),
        "floor_process_s": round(median("floor", "process_seconds"), 3),
        "warm_client_imported": any(b.client_imported for b in builds["warm"]),
        "pages": workload.n,
        "image_shortcodes": workload.image_shortcodes,
        "video_shortcodes": workload.video_shortcodes,
    }
    figures["checks"] = {
        "warm_no_requests": warm_requests == 0 and not figures["warm_client_imported"],
        "each_variant_downloaded_once": all(
            b.by_endpoint.get("download", 0) == workload.variants for b in builds["cold"]
        ),
    }
    return figures


def table(figures: dict[str, Any], builds: dict[str, list[Build]]) -> str:
    """The human-readable report."""
    f = figures
    lines = [
        f"mediashortcodes benchmark: {f['n']} pages, {f['k']} images, "
        f"{f['image_shortcodes']} image + {f['video_shortcodes']} video shortcodes, "
        f"latency {f['latency_ms']:g} ms, jobs {f['jobs']}, medians of {f['runs']} run(s)"
        f" ({f['cold_runs']} cold)",
        "",
        f"{'build':<7}{'median s':>10}{'CPU s':>8}{'process s':>11}{'peak MB':>9}"
        f"{'requests':>10}{'downloads':>11}   runs (s)",
    ]
    f = {**f, "pfloor_s": f["parallel_floor_s"], "pfloor_cpu_s": f["parallel_floor_cpu_s"]}
    f["pfloor_process_s"] = statistics.median(b.process_seconds for b in builds["pfloor"])
    for kind in ("cold", "warm", "floor", "pfloor"):
        rows = builds[kind]
        lines.append(
            f"{kind:<7}{f[kind + '_s']:>10.3f}{f[kind + '_cpu_s']:>8.3f}"
            f"{f[kind + '_process_s']:>11.3f}"
            f"{max(b.peak_rss_mb for b in rows):>9.1f}{max(b.requests for b in rows):>10d}"
            f"{max(b.downloads for b in rows):>11d}   " + " ".join(f"{b.seconds:.2f}" for b in rows)
        )
    prime = builds["prime"][0]
    lines.append(f"(priming build, not counted: {prime.seconds:.2f} s)")
    by = f["cold_requests_by_endpoint"]
    parts = " + ".join(f"{by[name]} {name}" for name in ENDPOINTS if by.get(name))
    ok = {True: "ok", False: "MISSED"}
    t = f["checks"]
    lines += [
        "",
        f"workers            {f['workers']} (floor: 1; pfloor: the same pages as floor, "
        f"{f['workers']} workers)",
        f"warm / floor       {f['warm_over_floor']:.3f}, round by round "
        f"{f['warm_over_floor_paired']:.3f}   (CPU time: {f['warm_over_floor_cpu']:.3f})",
        f"warm / pfloor      {f['warm_over_parallel_floor']:.3f}",
        f"cold CPU/request   {f['cold_cpu_per_request_ms']:.3f} ms above the warm build's",
        f"warm requests      {f['warm_requests']}  (client imported: "
        f"{'yes' if f['warm_client_imported'] else 'no'})  {ok[t['warm_no_requests']]}",
        f"cold bound         floor + {COLD_SLACK} x {f['cold_requests']} x {f['latency_ms']:g} ms"
        f" / {f['jobs']} = {f['cold_bound_s']:.3f} s; cold {f['cold_s']:.3f} s",
        f"cold requests      {f['cold_requests']} = {parts}",
        f"downloads          {f['distinct_downloads']} for {f['distinct_variants']} distinct "
        f"variants  {ok[t['each_variant_downloaded_once']]}",
        f"peak RSS           {f['peak_rss_mb']:.1f} MB (warm {f['warm_rss_mb']:.1f} MB; warm,"
        f" all processes together {f['warm_rss_all_mb']:.1f} MB,"
        f" PSS {f['warm_pss_all_mb']:.1f} MB)",
    ]
    if "example_warm_wall_s" in f:
        lines += [
            f"example warm       {f['example_warm_wall_s']:.3f} s, whole process   (CPU "
            f"{f['example_warm_cpu_s']:.3f} s)",
            f"--help             {f['help_wall_s']:.3f} s   (CPU {f['help_cpu_s']:.3f} s)",
        ]
    return "\n".join(lines)


@contextlib.contextmanager
def working_directory(path: Path | None, keep: bool) -> Iterator[Path]:
    if path is not None:
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    made = Path(tempfile.mkdtemp(prefix="mediashortcodes-bench-"))
    try:
        yield made
    finally:
        if not keep:
            shutil.rmtree(made, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Cold, warm and render-floor builds of a synthetic site (docs/benchmarks.md)."
    )
    parser.add_argument("--n", type=int, default=None, help="pages (W1: 1000)")
    parser.add_argument("--k", type=int, default=None, help="distinct images (W1: 300)")
    parser.add_argument("--latency-ms", type=float, default=20.0, help="per request (W1: 20)")
    parser.add_argument("--runs", type=int, default=None, help="runs of each build (W1: 3)")
    parser.add_argument("--jobs", type=int, default=None, help="requests at a time (default 16)")
    parser.add_argument(
        "--workers", type=int, default=None, help="the builder's --workers (default: the CPUs)"
    )
    parser.add_argument(
        "--cold-runs", type=int, default=None, help="cold builds (default: --runs; at least 1)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--widths", default="", help="[images] widths of the site, each below 480 (e.g. 160,320)"
    )
    parser.add_argument("--quick", action="store_true", help="100 pages, 30 images, 2 runs")
    parser.add_argument("--workdir", type=Path, default=None, help="keep the sites here")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument(
        "--profile", type=Path, default=None, help="also profile a warm and a floor build into DIR"
    )
    args = parser.parse_args(argv)
    n = args.n or (100 if args.quick else 1000)
    k = args.k or (30 if args.quick else 300)
    runs = args.runs or (2 if args.quick else 3)
    if (
        n < 1
        or k < 6
        or runs < 1
        or args.latency_ms < 0
        or (args.jobs is not None and args.jobs < 1)
        or (args.workers is not None and args.workers < 1)
        or (args.cold_runs is not None and args.cold_runs < 1)
    ):
        parser.error(
            "need --n >= 1, --k >= 6, --runs >= 1, --cold-runs >= 1, --latency-ms >= 0, --jobs >= 1"
        )
    jobs = args.jobs or _default_jobs()
    workers = args.workers or _usable_cpus()
    try:
        with working_directory(args.workdir, args.keep) as workdir:
            workload, builds = measure(
                workdir,
                n=n,
                k=k,
                latency_ms=args.latency_ms,
                runs=runs,
                jobs=args.jobs,
                workers=workers,
                cold_runs=args.cold_runs,
                seed=args.seed,
                profile=args.profile,
                log=sys.stderr,
                widths=tuple(int(w) for w in args.widths.split(",") if w.strip()),
            )
            print("timing the example site's warm build and --help", file=sys.stderr)
            startup = measure_startup(workdir, runs=max(3, runs))
    except BenchmarkError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    figures = summarise(
        workload, builds, latency_ms=args.latency_ms, jobs=jobs, runs=runs, startup=startup
    )
    print(table(figures, builds))
    print(json.dumps(figures, sort_keys=False))
    return 0


def _usable_cpus() -> int:
    from mediashortcodes.site.workers import usable_cpus

    return usable_cpus()


def _default_jobs() -> int:
    from mediashortcodes.config import BuildConfig

    return BuildConfig().jobs


if __name__ == "__main__":
    sys.exit(main())
