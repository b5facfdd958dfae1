"""Ctrl-C or SIGTERM during a build against the embedded sandbox prints one line, nothing
else: no traceback from the build's tasks or from the sandbox's threads."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import EXAMPLE

# The real command line, with the signal sent from inside the build's first request: the
# moment a signal handler that raises would raise inside an asyncio task (which then keeps
# the exception and has asyncio print it on the way out), every time, not by chance.
SIGNALLED_AT_THE_FIRST_REQUEST = """
import os, signal, sys
import httpx
from mediashortcodes.cli import main

original = httpx.AsyncHTTPTransport.handle_async_request
sent = []

async def handle_async_request(self, request):
    if not sent and os.environ["SIGNAL_AT_FIRST_REQUEST"]:
        sent.append(request)
        os.kill(os.getpid(), getattr(signal, os.environ["SIGNAL_AT_FIRST_REQUEST"]))
    return await original(self, request)

httpx.AsyncHTTPTransport.handle_async_request = handle_async_request
sys.argv = ["mediashortcodes", *sys.argv[1:]]
main()
"""


def example_copy(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A copy of the example site (``sandbox = true``) and an environment with a cold cache."""
    pytest.importorskip("PIL", reason="the sandbox needs the [sandbox] extra (Pillow)")
    site = tmp_path / "site"
    shutil.copytree(EXAMPLE, site, ignore=shutil.ignore_patterns("_site", ".mediashortcodes"))
    env = {**os.environ, "MEDIASHORTCODES_CACHE_DIR": str(tmp_path / "cache")}
    for name in ("MEDIASHORTCODES_BASE_URL", "MEDIASHORTCODES_CLIENT_ID", "GITHUB_ACTIONS"):
        env.pop(name, None)
    return site, env


def signalled(sent: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SIGNALLED_AT_THE_FIRST_REQUEST, *args],
        env={**env, "SIGNAL_AT_FIRST_REQUEST": sent},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


STOPS = pytest.mark.parametrize(
    ("sent", "code", "said"),
    [("SIGINT", 130, "error: interrupted"), ("SIGTERM", 143, "error: terminated")],
)


@pytest.mark.slow
@STOPS
@pytest.mark.parametrize("command", ["build", "report"])
def test_a_signal_mid_build_or_report_prints_one_line_and_nothing_else(
    tmp_path: Path, command: str, sent: str, code: int, said: str
) -> None:
    site, env = example_copy(tmp_path)  # cold cache: the service is asked
    if command == "report":
        built = signalled("", env, "build", str(site), "-q")  # "": no signal
        assert built.returncode == 0, built.stderr
    stopped = signalled(sent, env, command, str(site))
    assert (stopped.returncode, stopped.stderr) == (code, f"{said}\n")
    if command == "build":
        assert not (site / "_site").exists()  # and nothing half-written
