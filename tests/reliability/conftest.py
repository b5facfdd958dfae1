"""Fixtures of the reliability suite: the example site against a sandbox, and its reference.

Every test that uses ``site`` is also checked, when it ends, for secrets in everything the
product printed, logged, raised or wrote (case 5 of the reliability matrix).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from mediashortcodes.sandbox import Sandbox

from .harness import Site


@pytest.fixture(scope="session")
def reference(sandbox_server: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The example site's output from a clean build against the session sandbox, with the
    sandbox's address normalised (``Site.snapshot``)."""
    # The first build makes the sandbox draw and scale every picture (Pillow; kept for the
    # process): on a busy machine that outlasted the 1 s timeout the tests' builds run with.
    # The output does not depend on the timeout; the later builds find the pictures made.
    workdir = tmp_path_factory.mktemp("reference")
    site = Site.copy_of_example(workdir, sandbox_server, service={"timeout": 60.0})
    run = site.run("build")
    assert run.exit_code == 0, str(run)
    return site.snapshot()


@pytest.fixture
def make_site(
    sandbox: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> Iterator[Callable[..., Site]]:
    """``make_site(sandbox=None, name="work", **sections)``: a fresh copy of the example site
    with an empty cache, against the session sandbox or the one given. Every site made is
    checked for secrets when the test ends."""
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.INFO, logger="markdown_it")  # its rule tracing is all noise
    made: list[Site] = []

    def make(sandbox_: Sandbox | None = None, name: str = "work", **sections: Any) -> Site:
        site = Site.copy_of_example(tmp_path / name, sandbox_ or sandbox, caplog, **sections)
        made.append(site)
        return site

    yield make
    for site in made:
        site.assert_no_secrets()


@pytest.fixture
def site(make_site: Callable[..., Site]) -> Site:
    """A fresh copy of the example site with an empty cache, against the session sandbox."""
    return make_site()


@pytest.fixture
def own_sandbox() -> Iterator[Sandbox]:
    """A sandbox of this test alone, to stop, slow down or fill with hostile files."""
    with ExitStack() as stack:
        yield stack.enter_context(Sandbox())
