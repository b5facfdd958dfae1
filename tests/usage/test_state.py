"""The durable usage state: per-page updates, merged under a lock, written atomically."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from mediashortcodes.errors import ConfigError
from mediashortcodes.usage.manifest import Manifest, PageUsage
from mediashortcodes.usage.state import UsageState

SITE = "https://s.org"


def test_a_missing_state_means_nothing_was_reported(tmp_path: Path) -> None:
    assert UsageState(tmp_path / "state.json").load(SITE) == Manifest(SITE)


def test_update_sets_and_forgets_pages_and_keeps_the_others(tmp_path: Path) -> None:
    state = UsageState(tmp_path / ".mediashortcodes" / "usage-state.json")
    state.update({f"{SITE}/a/": PageUsage("A", (1,)), f"{SITE}/b/": PageUsage("B", (2,))}, SITE)
    state.update({f"{SITE}/a/": None, f"{SITE}/b/": PageUsage("B2", (2, 3))}, SITE)
    state.update({f"{SITE}/c/": PageUsage("C", ())}, SITE)
    assert state.load(SITE).pages == {f"{SITE}/b/": PageUsage("B2", (2, 3))}


def test_the_state_file_is_a_manifest(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    UsageState(path).update({f"{SITE}/a/": PageUsage("A", (1,))}, SITE)
    assert Manifest.load(path).pages == {f"{SITE}/a/": PageUsage("A", (1,))}


def test_an_update_that_changes_nothing_does_not_rewrite_the_file(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    state = UsageState(path)
    state.update({f"{SITE}/a/": PageUsage("A", (1,))}, SITE)
    path.write_text(path.read_text() + " ")  # a marker a rewrite would drop
    state.update({f"{SITE}/a/": PageUsage("A", (1,))}, SITE)
    assert path.read_text().endswith(" ")


def test_a_damaged_state_is_an_error_that_says_how_to_recover(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text('{"site": "x", "pages": ')
    with pytest.raises(ConfigError, match=r"(?s)state.json: not valid JSON.*--previous"):
        UsageState(path).load(SITE)


def _write_pages(path: str, start: int) -> None:
    state = UsageState(path)
    for n in range(start, start + 25):
        state.update({f"{SITE}/p{n}/": PageUsage(f"P{n}", (n,))}, SITE)


def test_concurrent_processes_updating_the_state_lose_no_page(tmp_path: Path) -> None:
    path = str(tmp_path / "state.json")
    ctx = multiprocessing.get_context("spawn")
    workers = [ctx.Process(target=_write_pages, args=(path, start)) for start in (0, 100)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    assert len(UsageState(path).load(SITE).pages) == 50
