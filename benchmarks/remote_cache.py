"""Benchmark of the shared (remote) cache: a fresh CI runner against a warm remote.

    python benchmarks/remote_cache.py                # W1: 1,000 pages, 300 images, 20 ms, 3 runs
    python benchmarks/remote_cache.py --quick        # 100 pages, 30 images, 2 runs
    python benchmarks/remote_cache.py --s3rver node_modules/.bin/s3rver   # a lighter server

The sandbox serves the service (its own process, the given latency on every answer) and
moto's S3-compatible server holds the remote cache (its own process), reached through a
proxy on 127.0.0.1 that delays every request by the same latency and counts them. Both
servers share the machine's cores with the build: moto spends about 2.4 ms of CPU on a
GET (Python), s3rver (Node.js; ``npm install s3rver@3.7.1``) about 1 ms, where a real S3 is
on other machines. s3rver honours no conditional PUT: use it to measure reads. Builds:

- writer: a cold build with ``--cache-write`` semantics (MEDIASHORTCODES_CACHE_REMOTE_WRITE),
  empty local cache: fills the remote;
- warm: the writer's local cache, the remote configured (a local hit never asks it);
- fresh: an empty local cache (a new runner), the warm remote, read-only.

The target (docs/ci.md): a fresh build makes 0 requests to the service and takes at most
warm + K x latency / jobs for the K blobs it fetches (counted in its local cache afterwards,
however they came: from the images' pack in a few ranged GETs, or one GET each); its output
is byte-identical to the warm build's. Prints a table, then one JSON object as the last line.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import generate  # noqa: E402
from run import BenchmarkError, Build, SandboxProcess, run_build  # noqa: E402

BUCKET = "bench-cache"
CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "bench-key-id",
    "AWS_SECRET_ACCESS_KEY": "bench-secret",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_EC2_METADATA_DISABLED": "true",
}
# s3rver checks signatures against its one built-in key.
S3RVER_CREDENTIALS = {
    **CREDENTIALS,
    "AWS_ACCESS_KEY_ID": "S3RVER",
    "AWS_SECRET_ACCESS_KEY": "S3RVER",
}
_METHODS = (b"GET ", b"PUT ", b"HEAD ", b"POST ", b"DELETE ")


class LatencyProxy:
    """A TCP proxy on 127.0.0.1 that holds every request for ``latency_ms`` (as the sandbox
    holds every answer) and counts requests by method."""

    def __init__(self, upstream_port: int, latency_ms: float) -> None:
        self.upstream = ("127.0.0.1", upstream_port)
        self.latency = latency_ms / 1000
        self.counts: dict[str, int] = {}
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.endpoint = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self._listener.close()

    def reset(self) -> None:
        with self._lock:
            self.counts = {}

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.upstream)
            for sock in (client, upstream):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for args in ((client, upstream, True), (upstream, client, False)):
                threading.Thread(target=self._pump, args=args, daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket, requests: bool) -> None:
        try:
            while data := source.recv(1 << 16):
                if requests and data.startswith(_METHODS):
                    method = data.split(b" ", 1)[0].decode()
                    with self._lock:
                        self.counts[method] = self.counts.get(method, 0) + 1
                    time.sleep(self.latency)
                target.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, target):
                with suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()


def process_cpu(pid: int) -> float | None:
    """The CPU seconds process ``pid`` has used so far (Linux's /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def s3_server(log: Path, s3rver: Path | None = None) -> Iterator[tuple[int, int]]:
    """moto's standalone server (or, given its script, s3rver's) on a free port of 127.0.0.1
    (its port and process id), ended by its process id."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    if s3rver is not None:
        with _s3rver(s3rver, port, log) as pid:
            yield port, pid
        return
    script = Path(sys.executable).with_name("moto_server")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "moto.server"]
    with log.open("w") as errors:
        process = subprocess.Popen(
            [*command, "-H", "127.0.0.1", "-p", str(port)], stdout=errors, stderr=errors
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/moto-api/", timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise BenchmarkError(f"moto's server did not start; see {log}") from None
                time.sleep(0.1)
        request = urllib.request.Request(f"http://127.0.0.1:{port}/{BUCKET}", method="PUT")
        urllib.request.urlopen(request, timeout=10).close()
        yield port, process.pid
    finally:
        _stop(process)


def _stop(process: subprocess.Popen[Any]) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def _s3rver(script: Path, port: int, log: Path) -> Iterator[int]:
    """s3rver (Node.js) serving the benchmark's bucket from a folder beside ``log``."""
    data = log.parent / "s3rver-data"
    data.mkdir(exist_ok=True)
    command = ["node", str(script), "-d", str(data), "-a", "127.0.0.1", "-p", str(port)]
    command += ["--silent", "--no-vhost-buckets", "--configure-bucket", BUCKET]
    with log.open("w") as errors:
        process = subprocess.Popen(command, stdout=errors, stderr=errors)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise BenchmarkError(f"s3rver did not start; see {log}") from None
                time.sleep(0.1)
        yield process.pid
    finally:
        _stop(process)


class _Service:
    """The sandbox as run_build sees it, with the remote cache's settings added."""

    def __init__(self, sandbox: SandboxProcess, env: dict[str, str]) -> None:
        self._sandbox = sandbox
        self.env = {**sandbox.env, **env}

    def reset_stats(self) -> None:
        self._sandbox.reset_stats()

    def stats(self) -> dict[str, int]:
        return self._sandbox.stats()


def _blobs_in(cache: Path) -> int:
    """The image blobs a local cache folder holds."""
    return sum(1 for p in cache.rglob("*") if p.parent.parent.name == "blobs" and p.is_file())


def same_tree(a: Path, b: Path) -> bool:
    """Whether two output folders hold the same files with the same bytes."""
    compared = filecmp.dircmp(a, b)
    if compared.left_only or compared.right_only or compared.funny_files:
        return False
    _match, mismatch, errors = filecmp.cmpfiles(a, b, compared.common_files, shallow=False)
    if mismatch or errors:
        return False
    return all(same_tree(a / sub, b / sub) for sub in compared.common_dirs)


def measure(
    workdir: Path, *, n: int, k: int, latency_ms: float, runs: int, s3rver: Path | None = None
) -> dict[str, Any]:
    workload = generate(workdir / "site", n=n, k=k, seed=0)
    site = workdir / "site"
    results: dict[str, list[Build]] = {"writer": [], "warm": [], "fresh": []}
    remote_requests: dict[str, list[dict[str, int]]] = {"writer": [], "warm": [], "fresh": []}
    server_cpu: dict[str, list[float]] = {"writer": [], "warm": [], "fresh": []}
    outputs: dict[str, Path] = {}
    with (
        SandboxProcess(latency_ms=latency_ms, k=k, log=workdir / "sandbox.log") as sandbox,
        s3_server(workdir / "s3.log", s3rver) as (port, server_pid),
    ):
        proxy = LatencyProxy(port, latency_ms)
        remote_env = {
            **(S3RVER_CREDENTIALS if s3rver else CREDENTIALS),
            "MEDIASHORTCODES_CACHE_REMOTE": f"s3://{BUCKET}/site",
            "MEDIASHORTCODES_CACHE_REMOTE_ENDPOINT": proxy.endpoint,
        }
        reader = _Service(sandbox, remote_env)
        writer = _Service(sandbox, {**remote_env, "MEDIASHORTCODES_CACHE_REMOTE_WRITE": "1"})
        plain = _Service(sandbox, {})
        number = iter(range(1, 1000))

        def build(kind: str, service: _Service, cache: Path) -> Build:
            output = workdir / "out" / f"{next(number):03d}-{kind}"
            proxy.reset()
            server_began = process_cpu(server_pid)
            result = run_build(kind, site, cache, output, service, jobs=None)  # type: ignore[arg-type]
            server_ended = process_cpu(server_pid)
            server = (server_ended or 0.0) - (server_began or 0.0)
            if kind in results:
                results[kind].append(result)
                remote_requests[kind].append(dict(proxy.counts))
                server_cpu[kind].append(server)
                outputs[kind] = output
            print(
                f"  {kind:<6} {result.seconds:7.2f} s  CPU {result.cpu_seconds:5.2f} s  "
                f"service {result.requests:5d}  remote {sum(proxy.counts.values()):5d} "
                f"{dict(proxy.counts)}  S3 server CPU {server:5.2f} s",
                file=sys.stderr,
                flush=True,
            )
            return result

        print("priming the sandbox (a cold build without the remote, not counted)", file=sys.stderr)
        build("prime", plain, workdir / "cache-prime")
        build("writer", writer, workdir / "cache-writer")
        for run in range(runs):
            build("warm", reader, workdir / "cache-writer")
            build("fresh", reader, workdir / f"cache-fresh-{run}")
        proxy.close()

    def median(kind: str) -> float:
        return statistics.median(b.seconds for b in results[kind])

    fresh_gets = max(r.get("GET", 0) for r in remote_requests["fresh"])
    # K: the blobs a fresh runner fetched (and kept), whichever way they came: in a few
    # ranged GETs of the images' pack, or one GET each.
    blobs = max(_blobs_in(workdir / f"cache-fresh-{run}") for run in range(runs))
    bound = median("warm") + blobs * (latency_ms / 1000) / 16
    figures: dict[str, Any] = {
        "n": n,
        "k": k,
        "latency_ms": latency_ms,
        "runs": runs,
        "server": "s3rver" if s3rver else "moto",
        "variants": workload.variants,
        "blobs_fetched": blobs,
        "writer_s": round(median("writer"), 3),
        "warm_s": round(median("warm"), 3),
        "fresh_s": round(median("fresh"), 3),
        "fresh_bound_s": round(bound, 3),
        "warm_cpu_s": round(statistics.median(b.cpu_seconds for b in results["warm"]), 3),
        "fresh_cpu_s": round(statistics.median(b.cpu_seconds for b in results["fresh"]), 3),
        # What each blob fetched costs the fresh build's processes beyond the warm build's
        # work (its GETs, checking and keeping it).
        "fresh_cpu_per_blob_ms": round(
            (
                statistics.median(b.cpu_seconds for b in results["fresh"])
                - statistics.median(b.cpu_seconds for b in results["warm"])
            )
            / max(blobs, 1)
            * 1000,
            3,
        ),
        # The S3 server's own CPU (moto's, in Python, on the same 2 cores): the bound counts
        # only the latency, as if the server took no time.
        "fresh_server_cpu_s": round(statistics.median(server_cpu["fresh"]), 3),
        "writer_server_cpu_s": round(server_cpu["writer"][0], 3),
        "fresh_service_requests": max(b.requests for b in results["fresh"]),
        "fresh_remote_requests": max(sum(r.values()) for r in remote_requests["fresh"]),
        "fresh_remote_gets": fresh_gets,
        "warm_remote_requests": max(sum(r.values()) for r in remote_requests["warm"]),
        "writer_remote_requests": remote_requests["writer"][0],
        "fresh_identical_to_warm": same_tree(outputs["warm"], outputs["fresh"]),
    }
    figures["targets"] = {
        "fresh_no_service_requests": figures["fresh_service_requests"] == 0,
        "fresh_within_bound": figures["fresh_s"] <= bound,
        "fresh_identical_to_warm": figures["fresh_identical_to_warm"],
        "warm_no_remote_requests": figures["warm_remote_requests"] == 0,
    }
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=None, help="pages (W1: 1000)")
    parser.add_argument("--k", type=int, default=None, help="distinct images (W1: 300)")
    parser.add_argument("--latency-ms", type=float, default=20.0)
    parser.add_argument("--runs", type=int, default=None, help="warm and fresh builds (3)")
    parser.add_argument("--quick", action="store_true", help="100 pages, 30 images, 2 runs")
    parser.add_argument(
        "--s3rver",
        type=Path,
        default=None,
        help="s3rver's script (node_modules/.bin/s3rver) to serve the bucket instead of moto",
    )
    args = parser.parse_args(argv)
    n = args.n or (100 if args.quick else 1000)
    k = args.k or (30 if args.quick else 300)
    runs = args.runs or (2 if args.quick else 3)
    with tempfile.TemporaryDirectory(prefix="mediashortcodes-remote-bench-") as tmp:
        try:
            figures = measure(
                Path(tmp), n=n, k=k, latency_ms=args.latency_ms, runs=runs, s3rver=args.s3rver
            )
        except BenchmarkError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    f = figures
    print(
        f"remote cache: {n} pages, {f['variants']} variants, latency {f['latency_ms']:g} ms, "
        f"S3 server {f['server']}\n"
        f"writer (cold, fills the remote) {f['writer_s']:.3f} s, remote "
        f"{f['writer_remote_requests']}\n"
        f"warm local                      {f['warm_s']:.3f} s (CPU {f['warm_cpu_s']:.3f} s), "
        "remote requests "
        f"{f['warm_remote_requests']}\n"
        f"fresh runner, warm remote       {f['fresh_s']:.3f} s (CPU {f['fresh_cpu_s']:.3f} s; "
        f"bound {f['fresh_bound_s']:.3f} s"
        f" = warm + {f['blobs_fetched']} blobs x {f['latency_ms']:g} ms / 16), service requests "
        f"{f['fresh_service_requests']}, remote requests {f['fresh_remote_requests']} "
        f"(CPU beyond warm: {f['fresh_cpu_per_blob_ms']:.2f} ms a blob; the S3 server's CPU "
        f"{f['fresh_server_cpu_s']:.2f} s)\n"
        f"fresh output identical to warm: {f['fresh_identical_to_warm']}"
    )
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    os.environ.pop("MEDIASHORTCODES_CACHE_REMOTE", None)
    sys.exit(main())
