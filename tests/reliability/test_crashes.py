"""Case 4: concurrency and crashes, with real processes against the sandbox.

Builds and reports run as child processes (the console command), slowed down by the
sandbox so that there is a "mid-way", and are killed with SIGKILL there. Afterwards the
cache holds only whole blobs, a rebuild is complete and byte-identical, and every page's
usage reaches the service and the state exactly once (a report sent twice does no harm).
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from mediashortcodes.usage.manifest import MANIFEST_NAME

from .harness import Site, snapshot


def wait_until(condition: Callable[[], bool], what: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting until {what}")
        time.sleep(0.01)


def kill(process: subprocess.Popen[Any]) -> None:
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=20)
    assert process.returncode == -signal.SIGKILL


def test_two_builds_sharing_one_cache_at_once_both_complete(make_site, sandbox, reference):
    first, second = make_site(name="first"), make_site(name="second")
    second.cache_dir = first.cache_dir
    sandbox.set_latency(50)  # both builds are mid-way at the same time
    sites = (first, second)
    builds = [site.spawn("build") for site in sites]
    for site, build in zip(sites, builds, strict=True):
        run = site.finish(build, ("build",))
        assert run.exit_code == 0, str(run)
        assert site.snapshot() == reference
    first.assert_cache_consistent()
    sandbox.set_latency(0)
    again = second.run("build", "--offline")
    assert again.exit_code == 0, str(again)
    # The example's 24 images with their 30 srcset candidates, and a click-to-load poster.
    assert "0 downloads, 55 cache hits, 0 requests" in again.stderr
    assert second.snapshot() == reference


def test_a_build_killed_mid_download_leaves_the_output_and_cache_whole(site, sandbox, reference):
    site.run("build")
    previous = snapshot(site.output)
    site.cache_dir = site.scan_root / "cold-cache"
    sandbox.fault("stall", seconds=0.1, path_prefix="/dn/")
    build = site.spawn("build", "--jobs", "2")
    wait_until(lambda: len(site.blobs()) >= 3, "three images are in the cache")
    kill(build)
    kept = len(site.blobs())
    assert 3 <= kept < 55  # the example publishes 55 images (test above)
    assert snapshot(site.output) == previous
    assert site.leftovers() == []
    site.assert_cache_consistent()

    sandbox.clear_failures()
    rebuild = site.run("build")
    assert rebuild.exit_code == 0, str(rebuild)
    counts = re.search(r"(\d+) downloads, (\d+) cache hits", rebuild.stderr)
    assert counts, rebuild.stderr
    downloads, hits = int(counts[1]), int(counts[2])
    assert downloads + hits == 55 and hits >= kept - 1  # what the killed build stored is used
    assert site.snapshot() == reference
    first = snapshot(site.output)
    assert site.run("build").exit_code == 0
    assert snapshot(site.output) == first  # a rebuild gives byte-identical output


@pytest.mark.parametrize(
    ("sent", "code", "said"),
    [(signal.SIGINT, 130, "error: interrupted"), (signal.SIGTERM, 143, "error: terminated")],
)
def test_a_build_stopped_by_ctrl_c_or_sigterm_says_so_and_keeps_the_output(
    site, sandbox, sent, code, said
):
    # A CI job cancelled sends SIGTERM: it exits as a shell reports a signal, never with 1
    # ("the content has problems"), and cleans up at once rather than at the next build.
    site.run("build")
    previous = snapshot(site.output)
    site.cache_dir = site.scan_root / f"cold-cache-{sent}"
    sandbox.fault("stall", seconds=0.1, path_prefix="/dn/")
    build = site.spawn("build", "--jobs", "2")
    wait_until(lambda: len(site.blobs()) >= 2, "two images are in the cache")
    build.send_signal(sent)
    run = site.finish(build, ("build",))
    assert run.exit_code == code, str(run)
    assert said in run.stderr and "Traceback" not in run.stderr
    assert snapshot(site.output) == previous
    assert site.leftovers() == []
    site.assert_cache_consistent()


def test_what_a_build_killed_while_writing_left_is_removed_by_the_next(site, reference):
    killed = subprocess.Popen(["sleep", "30"])
    kill(killed)  # its pid names the staging directory it "left"
    leftover = site.root / f"._site.staging-{killed.pid}"
    (leftover / "media").mkdir(parents=True)
    (leftover / "index.html").write_text("half")
    run = site.run("build")
    assert run.exit_code == 0, str(run)
    assert site.leftovers() == []
    assert site.snapshot() == reference


def this_sites_pages(site: Site) -> dict[str, list[int]]:
    prefix = site.sections["site"]["base_url"]
    return {url: ids for url, ids in site.sandbox.pages().items() if url.startswith(prefix)}


def accepted_reports(site: Site) -> int:
    prefix = site.sections["site"]["base_url"]
    return sum(u["web"]["page"].startswith(prefix) for u in site.sandbox.usages)


@pytest.mark.parametrize(("jobs", "kill_after"), [(1, 1), (1, 4), (4, 1)])
def test_a_report_killed_mid_way_then_rerun_loses_nothing(site, sandbox, jobs, kill_after):
    site.configure(
        site={"base_url": f"https://reliability-{uuid.uuid4().hex[:8]}.example.org"},
        # The build only sets the stage: the harness's 1 s budget outlasts a busy machine.
        service={"timeout": 30.0, "retry_total_seconds": 30.0},
    )
    assert site.run("build").exit_code == 0
    manifest = json.loads((site.output / MANIFEST_NAME).read_text("utf-8"))
    expected = {url: page["files"] for url, page in manifest["pages"].items()}
    assert len(expected) == 7

    sandbox.fault("stall", seconds=0.15, path_prefix="/1/files/multiple/usages")
    report = site.spawn("report", "--jobs", str(jobs))
    wait_until(lambda: accepted_reports(site) >= kill_after, f"{kill_after} reports arrived")
    kill(report)
    assert accepted_reports(site) < 7
    if site.state_path.exists():  # whole or absent, never half written
        json.loads(site.state_path.read_text("utf-8"))

    sandbox.clear_failures()
    rerun = site.run("report")
    assert rerun.exit_code == 0, str(rerun)
    assert this_sites_pages(site) == expected  # the service got every page
    state = json.loads(site.state_path.read_text("utf-8"))
    assert {url: page["files"] for url, page in state["pages"].items()} == expected
    assert accepted_reports(site) <= 7 + jobs  # at most the pages in flight were sent twice
    assert "0 pages reported" in site.run("report").stdout
