"""``build --workers N``: pages rendered and written by N processes, the same site for any N.

Each build is a real ``mediashortcodes build`` in its own process (workers are forked only
from a process that runs one thread, which the test process with its sandbox is not). The
example site is built against the session's sandbox over 127.0.0.1.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import EXAMPLE, point_at

pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork") or sys.platform == "darwin", reason="workers are forked processes"
)

# The command line, instrumented by the environment: WORKER_PIDS names a file each worker
# adds its process id to; CRASH_ON names a page whose rendering kills the worker rendering it.
RUN = """\
import os, sys
from mediashortcodes.site import rendering, workers

main_pid = os.getpid()
if os.environ.get("WORKER_PIDS"):
    work = workers._work
    def recorded(*args):
        with open(os.environ["WORKER_PIDS"], "a") as pids:
            pids.write(f"{os.getpid()}\\n")
        work(*args)
    workers._work = recorded
if os.environ.get("CRASH_ON"):
    render_page = rendering.PageRenderer.render_page
    def crashing(self, source, site, warnings):
        if os.getpid() != main_pid and source.display_path.endswith(os.environ["CRASH_ON"]):
            os._exit(9)
        return render_page(self, source, site, warnings)
    rendering.PageRenderer.render_page = crashing
from mediashortcodes.cli import main
main()
"""
LAST_PAGE = "videos.md"  # the last page in build order: rendered by the last worker


@pytest.fixture(scope="module")
def site(sandbox_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("workers") / "site"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("_site", ".mediashortcodes"))
    point_at(root, sandbox_server)
    return root


@pytest.fixture(scope="module")
def environment(sandbox_server: Any, site: Path) -> dict[str, str]:
    credentials = sandbox_server.credentials
    return {
        **os.environ,
        "MEDIASHORTCODES_CLIENT_ID": credentials.client_id,
        "MEDIASHORTCODES_CLIENT_SECRET": credentials.client_secret,
        "MEDIASHORTCODES_REFRESH_TOKEN": credentials.refresh_token,
        "MEDIASHORTCODES_CACHE_DIR": str(site.parent / "cache"),
        "XDG_CONFIG_HOME": str(site.parent / "config"),  # the page memo's key
    }


def build(
    site: Path, output: Path, env: dict[str, str], *args: str, **instrument: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", RUN, "build", str(site), "--output", str(output), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, **instrument},
        check=False,
    )


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def one_process(site: Path, environment: dict[str, str]) -> Path:
    """The site built in one process: the reference, and the previous output below."""
    output = site.parent / "one"
    done = build(site, output, environment, "--workers", "1")
    assert done.returncode == 0, done.stderr
    return output


def test_two_workers_write_the_same_site_byte_for_byte(
    site: Path, environment: dict[str, str], one_process: Path, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    done = build(site, tmp_path / "two", environment, "--workers", "2", WORKER_PIDS=str(pids))
    assert done.returncode == 0, done.stderr
    assert len(pids.read_text().split()) == 1  # the build's process and one worker
    assert tree(tmp_path / "two") == tree(one_process)


def test_a_worker_that_dies_fails_the_build_and_keeps_the_previous_output(
    site: Path, environment: dict[str, str], one_process: Path, tmp_path: Path
) -> None:
    output = tmp_path / "out"
    shutil.copytree(one_process, output)
    before = tree(output)
    # --no-memo: the page is rendered (a memoized page is not), so its worker crashes.
    done = build(site, output, environment, "--workers", "2", "--no-memo", CRASH_ON=LAST_PAGE)
    assert done.returncode == 1, done.stderr
    assert "error: the worker process rendering " in done.stderr
    assert "stopped (exit code 9); nothing was written" in done.stderr
    assert tree(output) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no staging folder left


def test_workers_use_the_memo_and_count_the_entries_they_refuse(
    site: Path, environment: dict[str, str], one_process: Path, tmp_path: Path
) -> None:
    from .test_memo import PAGES, entries, page_of, with_payload, written

    cache = site.parent / "cache"
    assert len(entries(cache)) == PAGES, "one_process wrote the memo"
    for entry in entries(cache):  # the signature kept: every entry fails its check
        written(entry, with_payload(page_of(entry)))
    done = build(site, tmp_path / "two", environment, "--workers", "2")
    assert done.returncode == 0, done.stderr
    assert tree(tmp_path / "two") == tree(one_process)
    refused = [line for line in done.stderr.splitlines() if "page memo" in line]
    assert refused == [
        f"warning: {PAGES} page memo entries failed the signature check and were not used; "
        "pages rendered"
    ]
    done = build(site, tmp_path / "three", environment, "--workers", "2")  # from the memo
    assert "page memo" not in done.stderr
    assert tree(tmp_path / "three") == tree(one_process)


def test_a_problem_a_worker_finds_is_listed_as_in_one_process_and_nothing_is_written(
    site: Path, environment: dict[str, str], one_process: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "site"
    shutil.copytree(site, broken)
    page = broken / "content" / LAST_PAGE
    page.write_text(page.read_text() + "\n<% media_image 12 widht=300 %>\n")
    listings = []
    for workers in ("1", "2"):
        output = tmp_path / f"out-{workers}"
        shutil.copytree(one_process, output)
        before = tree(output)
        done = build(broken, output, environment, "--workers", workers)
        assert done.returncode == 1, done.stderr
        assert tree(output) == before
        listings.append(done.stderr.replace(str(broken), "SITE"))
    assert "unknown key 'widht'" in listings[1]
    assert listings[0] == listings[1]


def test_the_workers_read_their_pages_and_the_build_says_what_one_process_says(
    site: Path, environment: dict[str, str], tmp_path: Path
) -> None:
    odd = tmp_path / "site"
    shutil.copytree(site, odd)
    (odd / "content" / "linked.md").symlink_to(odd / "content" / LAST_PAGE)  # one warning
    said = []
    for workers in ("1", "2"):
        done = build(odd, tmp_path / f"out-{workers}", environment, "--workers", workers)
        assert done.returncode == 0, done.stderr
        said.append(done.stderr.rsplit(" in ", 1)[0].replace(str(odd), "SITE"))
    assert said[0].count("a symlink or not a regular file: skipped") == 1
    assert said[0] == said[1]
    assert tree(tmp_path / "out-1") == tree(tmp_path / "out-2")

    # A page of the worker's run that cannot be read: listed as ever, exit 2, nothing written.
    page = odd / "content" / LAST_PAGE
    page.write_text("---\ndraft: yes please\n---\n" + page.read_text())
    listings = []
    for workers in ("1", "2"):
        done = build(odd, tmp_path / f"stopped-{workers}", environment, "--workers", workers)
        assert done.returncode == 2, done.stderr
        assert not (tmp_path / f"stopped-{workers}").exists()
        listings.append(done.stderr.replace(str(odd), "SITE"))
    assert "draft must be true or false" in listings[1]
    assert listings[0] == listings[1]
