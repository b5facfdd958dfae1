"""What a command imports: ``--help`` and a warm build load nothing they do not use.

On a small site the process start is most of a build: the
HTTP client alone costs more than building the example site from the cache. Each test runs
the real command line in a fresh interpreter and looks at the modules it ended with; no
time is measured here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "example_site"

# The command line, then the names of every module loaded, as stderr's last line.
RECORDING = """\
import atexit, json, sys
atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))
from mediashortcodes.cli import main
main()
"""

CLIENT = {"httpx", "httpcore", "mediashortcodes.client.base", "mediashortcodes.usage.reporting"}
INTEGRATIONS = {
    "PIL",
    "mediashortcodes.sandbox",
    "mediashortcodes.picker.app",
    "mediashortcodes.picker.server",
}
BUILDER = {
    "jinja2",
    "markdown_it",
    "yaml",
    "asyncio",
    "mediashortcodes.site.builder",
    "mediashortcodes.media.cache",
    "mediashortcodes.media.resolver",
}


def run_recording(*args: str, env: dict[str, str] | None = None) -> tuple[str, set[str]]:
    """Run ``mediashortcodes ARGS``; its stderr without the module list, and that list."""
    done = subprocess.run(
        [sys.executable, "-c", RECORDING, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        check=False,
    )
    *said, modules = done.stderr.strip().splitlines()
    assert done.returncode == 0, done.stderr
    return "\n".join(said), set(json.loads(modules))


def loaded(modules: set[str], names: set[str]) -> set[str]:
    """Which of ``names`` (packages included with their submodules) were imported."""
    return {name for name in names if any(m == name or m.startswith(name + ".") for m in modules)}


def test_help_imports_neither_the_builder_nor_the_client_nor_an_integration() -> None:
    _said, modules = run_recording("--help")
    assert loaded(modules, CLIENT | INTEGRATIONS | BUILDER) == set()


@pytest.fixture(scope="module")
def example_built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The example site, built once (against its embedded sandbox): its cache is warm."""
    pytest.importorskip("PIL", reason="the example site builds against the sandbox (Pillow)")
    root = tmp_path_factory.mktemp("startup")
    site = root / "site"
    shutil.copytree(EXAMPLE, site, ignore=shutil.ignore_patterns("_site", ".mediashortcodes"))
    env = {"MEDIASHORTCODES_CACHE_DIR": str(root / "cache")}
    said, modules = run_recording("build", str(site), env=env)
    assert " 0 cache hits" in said and "mediashortcodes.sandbox" in modules  # it was cold
    return site, env


def test_a_warm_build_imports_neither_the_client_nor_the_sandbox_nor_the_picker(
    example_built: tuple[Path, dict[str, str]],
) -> None:
    site, env = example_built
    said, modules = run_recording("build", str(site), env=env)
    assert " 0 requests" in said, said
    assert loaded(modules, CLIENT | INTEGRATIONS | {"webbrowser"}) == set()


def test_a_build_with_one_reference_missing_from_the_cache_asks_the_service_for_it(
    example_built: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """The cache answers all but one new shortcode: the build falls back to the service
    (and its event loop) for that one and publishes it."""
    site, env = example_built
    page = site / "content" / "about.md"
    original = page.read_text(encoding="utf-8")
    new = '<% media_image 120 w=64 h=64 x1=0 x2=64 y1=0 y2=64 alt="new here" %>'
    page.write_text(f"{original}\n{new}\n", encoding="utf-8")
    try:
        output = tmp_path / "out"
        said, _modules = run_recording("build", str(site), "--output", str(output), env=env)
    finally:
        page.write_text(original, encoding="utf-8")
    assert " 1 downloads" in said or " 1 download," in said, said
    assert 'alt="new here"' in (output / "about" / "index.html").read_text(encoding="utf-8")
