"""A build pauses the cyclic garbage collector and always turns it back on."""

from __future__ import annotations

import gc

import pytest

from mediashortcodes.site import cyclic_gc_paused


def test_the_collector_is_paused_during_the_block_and_runs_again_after_it():
    assert gc.isenabled()
    with cyclic_gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


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
    from mediashortcodes.site import rendered_pages_frozen

    page = ["rendered page"]
    with pytest.raises(RuntimeError), rendered_pages_frozen():
        assert gc.get_freeze_count() > 0
        assert page
        raise RuntimeError("service down")
    assert gc.get_freeze_count() == 0
