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
