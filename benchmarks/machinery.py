"""What the speed machinery gains: each piece turned off against all on (docs/benchmarks.md).

    python benchmarks/machinery.py                         # W1, 5 interleaved rounds
    python benchmarks/machinery.py --n 10000 --k 3000 --rounds 3
    python benchmarks/machinery.py --n 20 --k 12 --rounds 1 --latency-ms 0   # a smoke run

One sandbox (``--latency-ms`` before every answer) and moto's S3-compatible server behind
a proxy adding the same latency (benchmarks/remote_cache.py). A writer (a cold build with
``MEDIASHORTCODES_CACHE_REMOTE_WRITE=1``, not counted) fills the shared tier under
``s3://bench-cache/site``; a copy without the images' packs (``packs/images-v1.json`` and
``packs/images/``, as a runner finds them once expired: it reads the images one by one)
goes under ``s3://bench-cache/nopacks``. Each round then runs, in an order that turns:

- cold (empty local cache, no shared tier): ``on`` and ``workers_off`` (``--workers 1``);
- warm (the round's cold cache, new output): ``on`` and ``workers_off``;
- fresh (an empty local cache, the shared tier filled, not written: a new CI runner):
  ``on``, ``workers_off``, ``head_start_off`` and ``packs_off`` (the copy without packs).

The head start has no option: for ``head_start_off`` the build runs with the function that
forks it replaced by one returning None, what it returns where a fork is not possible.
Every build is ``python -P -m mediashortcodes build SITE --output DIR -q`` of this checkout
(or ``--tree PATH``), with ``MEDIASHORTCODES_CACHE_KEY`` set as a trusted CI job sets it;
wall time from outside, CPU of the process tree, peak RSS of the tree summed. Prints a
table, then one JSON object as the last line: medians, and ``off / on`` ratios (above 1:
the piece gains that much).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import secrets
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# The process tree's RSS is read this often: each reading costs CPU the builds share.
SAMPLE_SECONDS = 0.05
sys.path.insert(0, str(HERE))

from generate import generate  # noqa: E402
from remote_cache import BUCKET, CREDENTIALS, LatencyProxy, s3_server, same_tree  # noqa: E402
from run import (  # noqa: E402
    BenchmarkError,
    SandboxProcess,
    _clean_env,
    sampling_rss,
    working_directory,
)

CLI = "from mediashortcodes.cli import main; main()"
NO_HEAD_START = (
    "import mediashortcodes.media.head_start as h; h.start_head_start = lambda *a: None; " + CLI
)
# (kind, variant): what each build of a round is.
BUILDS = (
    ("cold", "on"),
    ("cold", "workers_off"),
    ("warm", "on"),
    ("warm", "workers_off"),
    ("fresh", "on"),
    ("fresh", "workers_off"),
    ("fresh", "head_start_off"),
    ("fresh", "packs_off"),
)


def copy_without_packs(port: int, source: str, target: str) -> int:
    """Copy the tier under ``source`` to ``target`` but its images' packs; the objects copied."""
    import boto3

    s3 = boto3.client(
        "s3",
        endpoint_url=f"http://127.0.0.1:{port}",
        region_name="us-east-1",
        aws_access_key_id=CREDENTIALS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
    )
    copied = 0
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=source + "/"):
        for item in page.get("Contents", []):
            name = item["Key"][len(source) + 1 :]
            if "/packs/images" in f"/{name}":  # under the service's folder of the prefix
                continue
            s3.copy_object(
                Bucket=BUCKET,
                Key=f"{target}/{name}",
                CopySource={"Bucket": BUCKET, "Key": item["Key"]},
            )
            copied += 1
    return copied


class Runner:
    """Builds one site against the sandbox and the shared tier, measured."""

    def __init__(
        self, workdir: Path, tree: Path, sandbox: SandboxProcess, port: int, latency_ms: float
    ) -> None:
        self.workdir, self.tree, self.sandbox = workdir, tree, sandbox
        self.proxy = LatencyProxy(port, latency_ms)
        self.key = secrets.token_hex(32)
        self.count = 0

    def build(
        self, variant: str, cache: Path, remote: str | None, *, write: bool = False
    ) -> dict[str, Any]:
        self.count += 1
        output = self.workdir / "out" / f"{self.count:03d}-{variant}"
        code = NO_HEAD_START if variant == "head_start_off" else CLI
        args = [sys.executable, "-P", "-c", code, "build", str(self.workdir / "site")]
        args += ["--output", str(output), "-q"]
        if variant == "workers_off":
            args += ["--workers", "1"]
        env = {
            **_clean_env(),
            **self.sandbox.env,
            "PYTHONPATH": str(self.tree),
            "PYTHONPYCACHEPREFIX": str(self.workdir / "pycache"),
            "MEDIASHORTCODES_CACHE_DIR": str(cache),
            "MEDIASHORTCODES_CACHE_KEY": self.key,
        }
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if remote is not None:
            env.update(CREDENTIALS)
            env["MEDIASHORTCODES_CACHE_REMOTE"] = f"s3://{BUCKET}/{remote}"
            env["MEDIASHORTCODES_CACHE_REMOTE_ENDPOINT"] = self.proxy.endpoint
            env["MEDIASHORTCODES_CACHE_REMOTE_WRITE"] = "1" if write else "0"
        self.sandbox.reset_stats()
        self.proxy.reset()
        os.sync()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        process = subprocess.Popen(
            args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        with sampling_rss(process.pid, every=SAMPLE_SECONDS, pss=False) as (rss, _):
            _out, errors = process.communicate()
        seconds = time.perf_counter() - began
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if process.returncode != 0:
            raise BenchmarkError(
                f"the {variant} build failed (exit {process.returncode}):\n{errors}"
            )
        return {
            "s": seconds,
            "cpu_s": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
            "peak_rss_all_mb": max(rss, default=0.0),
            "service_requests": sum(self.sandbox.stats().values()),
            "remote_requests": sum(self.proxy.counts.values()),
            "output": str(output),
        }


def measure(
    workdir: Path, tree: Path, *, n: int, k: int, latency_ms: float, rounds: int
) -> dict[str, list[dict[str, Any]]]:
    """Generate the site, fill the shared tier, and run the interleaved rounds."""
    generate(workdir / "site", n=n, k=k)
    results: dict[str, list[dict[str, Any]]] = {f"{kind}/{v}": [] for kind, v in BUILDS}
    with (
        SandboxProcess(latency_ms=latency_ms, k=k, log=workdir / "sandbox.log") as sandbox,
        s3_server(workdir / "s3.log") as (port, _pid),
    ):
        runner = Runner(workdir, tree, sandbox, port, latency_ms)
        try:
            print("priming the sandbox and filling the shared tier (not counted)", file=sys.stderr)
            runner.build("prime", workdir / "cache-prime", None)
            runner.build("writer", workdir / "cache-writer", "site", write=True)
            copied = copy_without_packs(port, "site", "nopacks")
            print(f"  {copied} objects copied without the images' packs", file=sys.stderr)
            for number in range(rounds):
                one_round(runner, results, number, n)
        finally:
            runner.proxy.close()
    return results


def one_round(
    runner: Runner, results: dict[str, list[dict[str, Any]]], number: int, n: int
) -> None:
    """Every build of BUILDS once, cold then warm then fresh, the variants' order turning."""
    workdir = runner.workdir
    cold_cache = workdir / f"cache-{number}-cold"
    for kind in ("cold", "warm", "fresh"):
        variants = [v for k, v in BUILDS if k == kind]
        shift = number % len(variants)
        for variant in variants[shift:] + variants[:shift]:
            remote = None
            if kind == "cold" and variant != "on":
                cache = workdir / f"cache-{number}-cold-{variant}"
            elif kind in ("cold", "warm"):
                cache = cold_cache
            else:
                cache = workdir / f"cache-{number}-fresh-{variant}"
                remote = "nopacks" if variant == "packs_off" else "site"
            figures = runner.build(variant, cache, remote)
            results[f"{kind}/{variant}"].append(figures)
            print(
                f"  N={n} round {number + 1} {kind:<5} {variant:<15}{figures['s']:7.2f} s"
                f"  CPU {figures['cpu_s']:6.2f} s  {figures['peak_rss_all_mb']:5.0f} MB"
                f"  service {figures['service_requests']:5d}"
                f"  remote {figures['remote_requests']:5d}",
                file=sys.stderr,
                flush=True,
            )
            warm = Path(results["warm/on"][-1]["output"]) if kind == "fresh" else None
            if warm is not None and not same_tree(warm, Path(figures["output"])):
                raise BenchmarkError(f"the fresh {variant} build's output differs from warm's")
    for cache in workdir.glob(f"cache-{number}-*"):
        shutil.rmtree(cache, ignore_errors=True)
    shutil.rmtree(workdir / "out", ignore_errors=True)


def summarise(results: dict[str, list[dict[str, Any]]], **workload: Any) -> dict[str, Any]:
    def median(name: str, key: str) -> float:
        return round(statistics.median(b[key] for b in results[name]), 3)

    figures: dict[str, Any] = {**workload, "builds": {}}
    for name, builds in results.items():
        figures["builds"][name] = {
            "s": median(name, "s"),
            "cpu_s": median(name, "cpu_s"),
            "peak_rss_all_mb": round(max(b["peak_rss_all_mb"] for b in builds), 1),
            "service_requests": max(b["service_requests"] for b in builds),
            "remote_requests": max(b["remote_requests"] for b in builds),
            "runs_s": [round(b["s"], 3) for b in builds],
        }
    # off / on: above 1, the piece saves that fraction of the build's time (1.25: 20 %).
    figures["ratios"] = {
        name: round(
            figures["builds"][name]["s"] / figures["builds"][name.split("/")[0] + "/on"]["s"], 3
        )
        for name in results
        if not name.endswith("/on")
    }
    return figures


def table(f: dict[str, Any]) -> str:
    lines = [
        f"speed machinery off against on: {f['n']} pages, {f['k']} images, latency "
        f"{f['latency_ms']:g} ms, medians of {f['rounds']} interleaved round(s)",
        "",
        f"{'build':<22}{'wall s':>9}{'CPU s':>9}{'off/on':>9}{'peak MB':>9}"
        f"{'service':>9}{'remote':>8}",
    ]
    for name, b in f["builds"].items():
        ratio = f"{f['ratios'][name]:>8.3f}x" if name in f["ratios"] else f"{'':>9}"
        lines.append(
            f"{name:<22}{b['s']:>9.3f}{b['cpu_s']:>9.3f}{ratio}{b['peak_rss_all_mb']:>9.0f}"
            f"{b['service_requests']:>9d}{b['remote_requests']:>8d}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000, help="pages (W1: 1000)")
    parser.add_argument("--k", type=int, default=300, help="distinct images (W1: 300)")
    parser.add_argument("--latency-ms", type=float, default=20.0, help="per request (W1: 20)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument("--tree", type=Path, default=HERE.parent, help="the mediashortcodes tree")
    parser.add_argument("--workdir", type=Path, default=None, help="keep the site here")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args(argv)
    if args.n < 1 or args.k < 6 or args.rounds < 1 or args.latency_ms < 0:
        parser.error("need --n >= 1, --k >= 6, --rounds >= 1, --latency-ms >= 0")
    try:
        with working_directory(args.workdir, args.keep) as workdir:
            results = measure(
                workdir, args.tree.resolve(), n=args.n, k=args.k, latency_ms=args.latency_ms,
                rounds=args.rounds,
            )  # fmt: skip
    except BenchmarkError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    figures = summarise(
        results, n=args.n, k=args.k, latency_ms=args.latency_ms, rounds=args.rounds,
        tree=str(args.tree.resolve()),
    )  # fmt: skip
    print(table(figures))
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
