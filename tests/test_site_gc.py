"""A build pauses the cyclic garbage collector and always turns it back on."""

from __future__ import annotations

import gc

import pytest

from mediashortcodes.site.runtime import cyclic_gc_paused


def test_the_collector_is_paused_during_the_block_and_runs_again_after_it():
    assert gc.isenabled()
    try:
        with cyclic_gc_paused():
            assert not gc.isenabled()
            made = [["a page"] for _ in range(100)]
        assert gc.isenabled()
        assert gc.get_freeze_count() >= len(made)  # not scanned again by the next collection
    finally:
        gc.unfreeze()


def test_a_build_leaves_nothing_frozen(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from mediashortcodes.config import load
    from mediashortcodes.site.builder import build_site

    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "index.md").write_text("# Home\n\nNo media here.\n")
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "page.html").write_text("{{ page.content }}")
    (tmp_path / "mediashortcodes.toml").write_text(
        '[service]\nbase_url = "https://media.example.org"\n'
        'player_url = "https://player.example.org"\nstatic_url = "https://static.example.org"\n'
    )
    result = build_site(load(tmp_path))
    assert result.pages == 1
    assert gc.get_freeze_count() == 0


def test_the_collector_runs_again_after_a_failed_build():
    with pytest.raises(RuntimeError), cyclic_gc_paused():
        raise RuntimeError("build failed")
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off():
    gc.disable()
    try:
        with cyclic_gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_objects_frozen_while_the_service_is_asked_are_unfrozen_after_it_even_on_failure():
    from mediashortcodes.site.runtime import rendered_pages_frozen

    page = ["rendered page"]
    with pytest.raises(RuntimeError), rendered_pages_frozen():
        assert gc.get_freeze_count() > 0
        assert page
        raise RuntimeError("service down")
    assert gc.get_freeze_count() == 0
