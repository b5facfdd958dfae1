"""Real MkDocs, Zensical and Pelican, run as subprocesses on small sites against the sandbox.

Each site is built once per module and shared by its tests; every build of a module shares
one cache, so a second build is a warm one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from .sites import BIN


@pytest.fixture(scope="module")
def host_env(sandbox_server: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of every host build of a module: the sandbox's credentials and one
    cache shared by the module's builds."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEDIASHORTCODES_")}
    env.update(sandbox_server.env())
    env["MEDIASHORTCODES_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    env["NO_MKDOCS_2_WARNING"] = "1"
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


@pytest.fixture
def counted(sandbox_server: Any) -> Iterator[Any]:
    sandbox_server.reset_stats()
    yield sandbox_server
