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


def test_recorded_pages_are_read_back_and_folded_into_the_state_by_the_next_update(
    tmp_path: Path,
) -> None:
    path = tmp_path / "state.json"
    state = UsageState(path)
    state.update({f"{SITE}/a/": PageUsage("A", (), (1,)), f"{SITE}/b/": PageUsage("B", (2,))}, SITE)
    state.record({f"{SITE}/a/": PageUsage("A", (1,))})
    state.record({f"{SITE}/b/": None, f"{SITE}/c/": PageUsage("C", (3,))})
    expected = {f"{SITE}/a/": PageUsage("A", (1,)), f"{SITE}/c/": PageUsage("C", (3,))}
    assert UsageState(path).load(SITE).pages == expected
    state.update({}, SITE)
    assert Manifest.load(path).pages == expected  # the state file alone is whole again
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json", "state.json.lock"]


def test_a_journal_line_whose_write_never_finished_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    state = UsageState(path)
    state.record({f"{SITE}/a/": PageUsage("A", (1,))})
    with state.journal_path.open("ab") as journal:
        journal.write(b'\n{"site": "", "pages": {"https://s.org/b/": {"ti')  # killed mid-write
    state.record({f"{SITE}/c/": PageUsage("C", (3,))})
    assert list(UsageState(path).load(SITE).pages) == [f"{SITE}/a/", f"{SITE}/c/"]


def test_a_damaged_journal_line_is_an_error_that_names_it(tmp_path: Path) -> None:
    state = UsageState(tmp_path / "state.json")
    state.record({f"{SITE}/a/": PageUsage("A", (1,))})
    with state.journal_path.open("ab") as journal:
        journal.write(b'\n{"site": "", "pages": {"u": {"files": [-1]}}}\n')
    with pytest.raises(ConfigError, match=r"(?s)state\.json\.journal, line 4: .*damaged"):
        state.load(SITE)


def test_a_journal_that_is_a_link_is_never_read_or_written(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text('{"site": "", "pages": {"https://s.org/x/": {"files": [9]}}}\n')
    (tmp_path / "site").mkdir()
    state = UsageState(tmp_path / "site" / "state.json")
    state.journal_path.symlink_to(outside)
    with pytest.raises(ConfigError, match="journal is a symlink"):
        state.load(SITE)
    with pytest.raises(ConfigError):
        state.record({f"{SITE}/a/": PageUsage("A", (1,))})
    assert "https://s.org/a/" not in outside.read_text()
