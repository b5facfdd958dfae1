"""Case 1: faults during a build of the example site, against the sandbox over real sockets.

A fault that a retry can get past leaves a complete build, byte for byte the reference. A
fault that lasts fails the build with exit 3 and a message that says what happened and
what to do, and the previous output stays exactly as it was.
"""

from __future__ import annotations

import shutil
import socket
import time
from collections.abc import Callable
from typing import Any

import pytest

from mediashortcodes.sandbox import Sandbox

from .harness import Site, snapshot

Inject = Callable[[Sandbox], Any]


def with_previous_output(site: Site, reference: dict[str, bytes]) -> dict[str, bytes]:
    """Put the reference output in place, as a previous build would have left it."""
    for name, data in reference.items():
        path = site.output / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return snapshot(site.output)


def lasting(
    inject: Inject, message: str, service: dict[str, Any] | None = None, exit_code: int = 3
):
    return inject, service or {}, message, exit_code


def link_expired_once(sb: Sandbox) -> None:
    # A link lives until the whole second its lifetime ends in: 2 to 3 s here. The stalled
    # download outlives it; the fresh link has 2 s at least, which a busy machine needs (with
    # a lifetime of 1 s, the fresh link could be left a few milliseconds).
    sb.link_lifetime = 3
    sb.fault("stall", seconds=3.2, count=1, path_prefix="/dn/")


RECOVERABLE: dict[str, tuple[Inject, dict[str, Any]]] = {
    "429 with Retry-After": (
        lambda sb: sb.fail(429, count=2, retry_after=0.1, path_prefix="/1/"),
        {},
    ),
    "a burst of 500, 502 and 503": (
        lambda sb: [
            sb.fail(500, count=2, path_prefix="/1/folder/"),
            sb.fail(502, count=2, path_prefix="/1/file/"),
            sb.fail(503, count=2, path_prefix="/dn/"),
        ],
        {},
    ),
    "a connection reset": (
        lambda sb: [
            sb.fault("reset", count=1, path_prefix="/1/oauth2/"),
            sb.fault("reset", count=2, path_prefix="/dn/"),
        ],
        {},
    ),
    "a read timeout": (
        lambda sb: sb.fault("stall", seconds=0.8, count=2, path_prefix="/1/"),
        {"timeout": 0.3, "retry_total_seconds": 2.0},
    ),
    "a truncated download body": (
        lambda sb: sb.fault("truncate", count=2, path_prefix="/dn/"),
        {},
    ),
    "a truncated API answer": (
        lambda sb: sb.fault("truncate", count=2, path_prefix="/1/folder/"),
        {},
    ),
    "a download link that expired before use": (link_expired_once, {}),
    "malformed JSON": (
        lambda sb: sb.fault("bad_json", count=2, path_prefix="/1/"),
        {},
    ),
    "a wrong content type": (
        lambda sb: sb.fault("wrong_type", count=2, path_prefix="/1/"),
        {},
    ),
}


@pytest.mark.parametrize("case", RECOVERABLE)
def test_a_passing_fault_leaves_a_complete_build(case, site, sandbox, reference):
    inject, service = RECOVERABLE[case]
    # A retry budget a busy machine cannot outlast (the fault is what is tested, not the
    # budget); a case that needs a short timeout to meet its fault sets its own.
    site.configure(service={"timeout": 5.0, "retry_total_seconds": 5.0, **service})
    inject(sandbox)
    run = site.run("build")
    assert run.exit_code == 0, str(run)
    assert site.snapshot() == reference
    assert site.leftovers() == []
    site.assert_cache_consistent()


def test_a_token_that_expires_mid_build_is_renewed_and_the_build_completes(
    make_site, reference, caplog
):
    # The service's clock runs three times too fast: its tokens, announced for 1 s, die
    # after a third of that, before the client (which renews at half a token's life)
    # expects, so requests meet both a timely renewal and a 401 on an expired token.
    start = time.time()
    with Sandbox(
        token_lifetime=1, latency_ms=25, clock=lambda: start + 3 * (time.time() - start)
    ) as sb:
        site = make_site(sb)
        run = site.run("build", "--jobs", "2")  # about 0.9 s: several token lives
        tokens = sb.stats["token"]
    assert run.exit_code == 0, str(run)
    assert site.snapshot() == reference
    assert tokens >= 2
    assert "answered 401; fetching a fresh access token" in caplog.text


def test_a_token_revoked_mid_build_is_fetched_again_once_and_the_build_completes(
    site, sandbox, reference, caplog
):
    sandbox.reset_stats()
    sandbox.fault("revoke_tokens", count=1, path_prefix="/1/file/")
    run = site.run("build")
    assert run.exit_code == 0, str(run)
    assert site.snapshot() == reference
    assert sandbox.stats["token"] == 2  # one fresh token for every request that got 401
    assert "answered 401; fetching a fresh access token" in caplog.text


# A service that keeps failing stops the build (exit 3). Downloads that keep breaking off
# or keep being refused are listed per shortcode (exit 1), as --keep-going would list them.
LASTING: dict[str, tuple[Inject, dict[str, Any], str, int]] = {
    "429 with Retry-After": lasting(
        lambda sb: sb.fail(429, retry_after=0.1, path_prefix="/1/"), "429 Too Many Requests"
    ),
    "500s": lasting(lambda sb: sb.fail(500, path_prefix="/1/"), "kept failing with HTTP 500"),
    "502s on downloads": lasting(
        lambda sb: sb.fail(502, path_prefix="/dn/"), "kept failing with HTTP 502"
    ),
    "503s": lasting(lambda sb: sb.fail(503), "kept failing with HTTP 503"),
    "connection resets": lasting(
        lambda sb: sb.fault("reset", path_prefix="/1/"), "the connection to the service broke"
    ),
    "read timeouts": lasting(
        lambda sb: sb.fault("stall", seconds=0.6, path_prefix="/1/"),
        "timed out",
        {"timeout": 0.2, "max_retries": 1},
    ),
    "malformed JSON": lasting(lambda sb: sb.fault("bad_json", path_prefix="/1/"), "invalid JSON"),
    "a wrong content type": lasting(
        lambda sb: sb.fault("wrong_type", path_prefix="/1/"), "instead of JSON"
    ),
    "truncated download bodies": lasting(
        lambda sb: sb.fault("truncate", path_prefix="/dn/"), "cut off", exit_code=1
    ),
    "download links that are always expired": lasting(
        lambda sb: sb.fail(410, path_prefix="/dn/"), "expire", exit_code=1
    ),
}


@pytest.mark.parametrize("case", LASTING)
def test_a_lasting_fault_fails_clearly_and_keeps_the_previous_output(
    case, site, sandbox, reference
):
    inject, service, message, exit_code = LASTING[case]
    site.configure(service=service)
    previous = with_previous_output(site, reference)
    inject(sandbox)
    run = site.run("build")
    assert run.exit_code == exit_code, str(run)
    assert message in run.stderr
    assert run.stderr.startswith("error: ")
    assert "Traceback" not in run.output
    assert snapshot(site.output) == previous
    assert site.leftovers() == []
    if exit_code == 1:  # every image is listed where its shortcode is
        assert run.stderr.count(message) == 27
        assert "content/gallery.md:9:1: file 101: " in run.stderr


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def point_at_nothing(site: Site) -> None:
    """Another service address where nothing listens (a cold cache: a new namespace)."""
    down = f"http://127.0.0.1:{closed_port()}"
    site.configure(service={"base_url": down, "download_url": down})


def test_the_service_down_with_a_warm_cache_still_builds_without_a_request(
    make_site, own_sandbox, reference
):
    site = make_site(own_sandbox)
    assert site.run("build").exit_code == 0
    shutil.rmtree(site.output)
    own_sandbox.stop()
    run = site.run("build")
    assert run.exit_code == 0, str(run)
    assert "0 requests" in run.stderr
    assert site.snapshot() == reference


def test_the_service_down_with_stale_metadata_builds_from_the_cache_with_a_warning(
    make_site, own_sandbox, reference
):
    site = make_site(own_sandbox)
    assert site.run("build").exit_code == 0
    own_sandbox.stop()
    site.configure(cache={"metadata_ttl": 0})
    run = site.run("build")
    assert run.exit_code == 0, str(run)
    assert "warning: the service is unavailable" in run.stderr
    assert "using cached metadata" in run.stderr
    assert site.snapshot() == reference


def test_the_service_down_with_a_cold_cache_fails_and_keeps_the_previous_output(site, reference):
    previous = with_previous_output(site, reference)
    point_at_nothing(site)
    run = site.run("build")
    assert run.exit_code == 3, str(run)
    assert "could not reach the service" in run.stderr
    assert "base_url" in run.stderr
    assert snapshot(site.output) == previous
