"""Fixtures for builder tests: a copy of the example site pointed at a sandbox."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "example_site"


def point_at(site: Path, sandbox: Any, extra: str = "") -> None:
    """Rewrite the site's [service] to use a running sandbox by its URLs."""
    config = site / "mediashortcodes.toml"
    text = config.read_text().replace(
        "sandbox = true",
        f'base_url = "{sandbox.base_url}"\nplayer_url = "http://player.test"\n'
        f'static_url = "http://static.test"\ndownload_url = "{sandbox.download_url}"',
    )
    config.write_text(text + extra)


def small_site(root: Path, sandbox: Any, files: dict[str, str], *, player: bool) -> Path:
    """A site at ``root`` made of ``files`` (path -> text), its [service] pointed at the
    sandbox by URL, with the player's and static URLs only when ``player``."""
    service = f'base_url = "{sandbox.base_url}"\ndownload_url = "{sandbox.download_url}"\n'
    if player:
        service += f'player_url = "{sandbox.player_url}"\nstatic_url = "{sandbox.static_url}"\n'
    for name, text in {"mediashortcodes.toml": f"[service]\n{service}", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def demo_env(patch: pytest.MonkeyPatch, cache: Path) -> None:
    """The sandbox's demo credentials and ``cache`` as the cache folder, in the environment."""
    from mediashortcodes.sandbox import DEMO_CREDENTIALS

    patch.setenv("MEDIASHORTCODES_CLIENT_ID", DEMO_CREDENTIALS.client_id)
    patch.setenv("MEDIASHORTCODES_CLIENT_SECRET", DEMO_CREDENTIALS.client_secret)
    patch.setenv("MEDIASHORTCODES_REFRESH_TOKEN", DEMO_CREDENTIALS.refresh_token)
    patch.setenv("MEDIASHORTCODES_CACHE_DIR", str(cache))
    # The page memo's key: the test's own, never the user's (docs/site-builder.md).
    patch.setenv("XDG_CONFIG_HOME", str(cache.parent / "config"))
    patch.delenv("MEDIASHORTCODES_CACHE_KEY", raising=False)


@contextlib.contextmanager
def demo_env_while(cache: Path) -> Iterator[None]:
    """:func:`demo_env` for a block (a module-scoped site's fixture)."""
    with pytest.MonkeyPatch.context() as patch:
        demo_env(patch, cache)
        yield


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Demo credentials in the environment and a fresh cache; returns the cache dir."""
    cache = tmp_path / "cache"
    demo_env(monkeypatch, cache)
    return cache


@pytest.fixture
def make_site(tmp_path: Path, env: Path, sandbox: Any) -> Callable[..., Path]:
    """Copy the example site, point it at the test sandbox, apply page overrides."""

    def make(pages: dict[str, str] | None = None, *, extra: str = "", server: Any = None) -> Path:
        site = tmp_path / "site"
        shutil.copytree(EXAMPLE, site, ignore=shutil.ignore_patterns("_site", ".mediashortcodes"))
        point_at(site, server or sandbox, extra)
        for name, text in (pages or {}).items():
            path = site / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        return site

    return make
