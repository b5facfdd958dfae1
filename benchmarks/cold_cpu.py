"""The cold build's CPU per request above the warm build's, beside bare httpx's, alternated.

    python benchmarks/cold_cpu.py                             # W1, 20 ms, this checkout, 5 rounds
    python benchmarks/cold_cpu.py --tree before=../before     # a second tree, alternated
    python benchmarks/cold_cpu.py --profile DIR --rounds 1    # + a cProfile of each cold build

Each round builds, for every tree in turn (the order turns each round), W1 cold (an empty
cache, in ``--cache-in`` if given: /dev/shm takes the disk's file creation out) then warm
(that cache), each in its own process (``build_once.py`` with the tree on
``PYTHONPATH``), against the sandbox in its own process; the figure is
``(cold CPU - warm CPU) / cold requests``: the CPU (the build's and its workers') that the
requests cost. Then the *bare* run: a process that sends the same kind and number of
requests with httpx alone (a download information, then its download, for each of the
build's variants, 16 at a time, each in one of 16 kept-alive clients as the client's lanes
are), nothing stored: the CPU per request that httpx itself costs; then the same through
each tree's ``AsyncClient`` alone. With ``--profile`` each
cold build runs under cProfile and DIR gets its top functions by own time. The last line
is one JSON object of the medians.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import generate  # noqa: E402
from run import SandboxProcess, _clean_env  # noqa: E402

LANES = 16


def build(tree: Path, site: Path, cache: Path, out: Path, sb: SandboxProcess, *extra: str):
    """(CPU, wall seconds, requests) of one build of ``site`` by ``tree``; ``extra``:
    build_once.py's options, and ``--profile``'s file first when profiled."""
    env = {**_clean_env(), **sb.env, "MEDIASHORTCODES_CACHE_DIR": str(cache)}
    env["PYTHONPATH"] = str(tree)
    args = [sys.executable]
    if extra and extra[0].endswith(".prof"):
        args += ["-m", "cProfile", "-o", extra[0]]
        extra = extra[1:]
    args += [str(tree / "benchmarks" / "build_once.py"), str(site), "--output", str(out), *extra]
    sb.reset_stats()
    os.sync()
    done = subprocess.run(args, env=env, capture_output=True, text=True, cwd=site)
    if done.returncode:
        sys.exit(f"the build of {tree} failed:\n{done.stderr}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return figures["cpu_seconds"], figures["seconds"], sum(sb.stats().values())


def bare(sb: SandboxProcess, variants: int, client: Path | None = None) -> float:
    """CPU ms per request of httpx alone, or of the client of the tree ``client`` (a process
    of its own)."""
    env = {**_clean_env(), **sb.env, "PYTHONPATH": str(client or "")}
    args = [sys.executable, __file__, "--bare", str(variants), *(["--client"] if client else [])]
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


async def bare_run(variants: int, client: bool) -> float:
    import httpx

    base = os.environ["MEDIASHORTCODES_BASE_URL"]
    names = ("client_id", "client_secret", "refresh_token")
    secret = {n: os.environ[f"MEDIASHORTCODES_{n.upper()}"] for n in names}
    verify = httpx.create_ssl_context()
    lanes: asyncio.Queue[httpx.AsyncClient] = asyncio.Queue()
    for _ in range(LANES):
        lanes.put_nowait(httpx.AsyncClient(timeout=30, verify=verify))
    one = await lanes.get()
    token = await one.get(
        f"{base}/1/oauth2/token", params={"grant_type": "refresh_token", **secret}
    )
    auth = {"Authorization": f"Bearer {token.json()['access_token']}"}
    listing = await one.get(f"{base}/1/folder/1/files", params={"fields": "all"}, headers=auth)
    ids = [f["id"] for f in listing.json() if f["type"]["type"] == "image"]
    lanes.put_nowait(one)

    async def get(url: str, headers: dict[str, str] | None = None) -> bytes:
        lane = await lanes.get()
        try:
            async with lane.stream("GET", url, headers=headers) as response:
                return b"".join([chunk async for chunk in response.aiter_bytes()])
        finally:
            lanes.put_nowait(lane)

    async def variant(file_id: int) -> None:
        info = json.loads(await get(f"{base}/1/file/{file_id}/download/0", auth))
        await get(info[0]["downloadURL"])

    if client:  # the same requests through mediashortcodes' client
        from mediashortcodes.client.async_client import AsyncClient
        from mediashortcodes.config import Credentials

        ours = AsyncClient(base, Credentials(*secret.values()))
        await ours.formats()  # its token
        gate = asyncio.Semaphore(LANES)

        async def variant(file_id: int) -> None:
            async with gate:
                info = await ours.download_info(file_id, 0)
                await ours.download(info[0].download_url, max_bytes=1 << 30)

    began = time.process_time()
    await asyncio.gather(*(variant(ids[i % len(ids)]) for i in range(variants)))
    return (time.process_time() - began) / (2 * variants) * 1000


def top(prof: Path, limit: int = 25) -> str:
    """The profile's functions by own time, and own time summed by package."""
    stats = pstats.Stats(str(prof)).stats
    rows = sorted(stats.items(), key=lambda i: i[1][2], reverse=True)
    lines = [
        f"{own:8.3f} {cum:8.3f} {calls:8d}  {Path(file).name}:{line}({name})"
        for (file, line, name), (_cc, calls, own, cum, _callers) in rows[:limit]
    ]
    packages: dict[str, float] = {}
    for (file, _line, name), (_cc, _calls, own, _cum, _callers) in stats.items():
        if "site-packages/" in file:
            where = file.split("site-packages/")[1].split("/")[0]
        elif "/mediashortcodes/" in file:
            where = "mediashortcodes/" + file.split("/mediashortcodes/")[1]
        else:
            where = name if file == "~" else Path(file).name
        packages[where] = packages.get(where, 0.0) + own
    by_package = sorted(packages.items(), key=lambda i: i[1], reverse=True)[:limit]
    return "\n".join(
        ["  own      cum    calls  function", *lines, "", "  own  package, module or builtin"]
        + [f"{own:6.3f}  {where}" for where, own in by_package]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--k", type=int, default=300)
    parser.add_argument("--latency-ms", type=float, default=20.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tree", action="append", default=[], help="NAME=PATH (repeatable)")
    parser.add_argument("--workers", default=None, help="the builds' --workers")
    parser.add_argument("--profile", type=Path, default=None, help="a folder for cProfile")
    parser.add_argument("--cache-in", type=Path, default=None, help="the caches' folder (tmpfs)")
    parser.add_argument("--bare", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--client", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare:
        print(asyncio.run(bare_run(args.bare, args.client)))
        return
    trees = {"this": HERE.parent}
    for item in args.tree:
        name, _, path = item.partition("=")
        trees[name] = Path(path).resolve()
    extra = ("--workers", args.workers) if args.workers else ()
    runs: dict[str, list[tuple[float, float, float, int]]] = {name: [] for name in trees}
    bares: list[float] = []
    clients: dict[str, list[float]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as tmp:
        work, names = Path(tmp), list(trees)
        site = work / "site"
        generate(site, n=args.n, k=args.k)
        with SandboxProcess(latency_ms=args.latency_ms, k=args.k, log=work / "sb.log") as sb:
            for name in names:  # the sandbox draws each variant; the tree's modules compile
                build(trees[name], site, work / "prime", work / "out", sb, *extra)
                shutil.rmtree(work / "prime")
                shutil.rmtree(work / "out")
            for r in range(args.rounds):
                for name in names[r % len(names) :] + names[: r % len(names)]:
                    cache, out = (args.cache_in or work) / "msc-cold-cpu-cache", work / "out"
                    prof = ()
                    if args.profile:
                        args.profile.mkdir(parents=True, exist_ok=True)
                        prof = (str(args.profile / f"{name}-{r + 1}.prof"),)
                    cold, cold_wall, requests = build(
                        trees[name], site, cache, out, sb, *prof, *extra
                    )
                    shutil.rmtree(out)
                    warm, _, _ = build(trees[name], site, cache, out, sb, *extra)
                    shutil.rmtree(out)
                    shutil.rmtree(cache)
                    runs[name].append((cold, warm, cold_wall, requests))
                    per = (cold - warm) / requests * 1000
                    print(
                        f"round {r + 1} {name}: cold CPU {cold:.2f} s, warm CPU {warm:.2f} s, "
                        f"{requests} requests, {per:.2f} ms/request, cold wall {cold_wall:.2f} s"
                    )
                    if prof:
                        Path(prof[0]).with_suffix(".txt").write_text(top(Path(prof[0])))
                variants = round(statistics.median(row[3] for row in runs[names[0]]) / 2)
                bares.append(bare(sb, variants))
                print(f"round {r + 1} bare httpx: {bares[-1]:.2f} ms/request")
                for name in names:
                    clients[name].append(bare(sb, variants, trees[name]))
                    print(
                        f"round {r + 1} {name}'s client alone: {clients[name][-1]:.2f} ms/request"
                    )
    result: dict[str, object] = {"bare_httpx_ms_per_request": statistics.median(bares)}
    for name, rows in runs.items():
        result[name] = {
            "cold_cpu_s": statistics.median(row[0] for row in rows),
            "warm_cpu_s": statistics.median(row[1] for row in rows),
            "cold_wall_s": statistics.median(row[2] for row in rows),
            "requests": statistics.median(row[3] for row in rows),
            "cpu_per_request_ms": statistics.median((c - w) / q * 1000 for c, w, _, q in rows),
            "client_alone_ms_per_request": statistics.median(clients[name]),
        }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
