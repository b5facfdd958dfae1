"""How a build runs in its process: the cyclic garbage collector paused while pages are
rendered and kept, and asyncio.run without the cost of its result's repr, stopped by SIGTERM
as cleanly as by Ctrl-C."""

from __future__ import annotations

import contextlib
import gc
import signal
import threading
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

T = TypeVar("T")


@contextlib.contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a build renders and writes.

    Those phases keep hundreds of thousands of objects alive until the build ends and make
    almost no cyclic garbage (reference counting frees the rest), so the collector only
    re-scans live objects: 0.5 s of a 10,000-page warm build, profiled. It keeps running
    while the service is asked: the network client does leave cycles behind.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            # What the block made lives on, and the allocations counted while paused would
            # start a collection at once that scans all of it (40 ms after rendering a
            # 10,000-page site) only to find it alive: it is frozen; the build unfreezes.
            gc.freeze()
            gc.enable()


@contextlib.contextmanager
def rendered_pages_frozen() -> Iterator[None]:
    """Keep the collector off what exists now (the rendered pages) while the service is asked.

    The collector must run there (the network client leaves cycles behind), but each full
    collection re-scanned every live page: 0.4 s of a 10,000-page warm build's resolution.
    Frozen objects are only skipped; they are collected as usual once unfrozen.
    """
    gc.freeze()
    # What resolution allocates lives until the build ends, too: collect young objects
    # less often (300 collections of a 10,000-page warm build's resolution, 0.09 s).
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], 20_000), *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def run_returning(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run``, without the result on the task, and with SIGTERM taken as asyncio
    takes Ctrl-C.

    Python 3.11 formats the SIGINT handler, which holds the main task, into an error message
    when ``asyncio.run`` restores signals; the repr of a whole site's resolution costs tens
    of milliseconds on every build (profiled on the warm build).

    A SIGTERM handler that raises (the command line's) would raise inside whichever task
    runs when the signal comes: that task keeps the exception, and asyncio prints "Task
    exception was never retrieved" and a traceback on the way out. So while the loop runs,
    SIGTERM cancels the main task instead, as asyncio does for SIGINT, and the program's own
    handler is called once the loop is closed.
    """
    import asyncio  # only when the service or the shared cache is asked (media/resolver.py)

    box: list[T] = []
    main_task: asyncio.Task[None] | None = None
    terminated = False

    async def main() -> None:
        nonlocal main_task
        main_task = asyncio.current_task()
        box.append(await coroutine)

    def on_sigterm() -> None:
        nonlocal terminated
        terminated = True
        if main_task is not None:
            main_task.cancel()

    previous = signal.getsignal(signal.SIGTERM)
    with asyncio.Runner() as runner:
        loop = runner.get_loop()
        takes_over = callable(previous) and _handles(loop, signal.SIGTERM, on_sigterm)
        try:
            runner.run(main())
        except asyncio.CancelledError:
            if not terminated:
                raise
        finally:
            if takes_over:
                loop.remove_signal_handler(signal.SIGTERM)
                signal.signal(signal.SIGTERM, previous)
    if terminated and callable(previous):
        previous(signal.SIGTERM, None)  # the program's handler, now outside the loop
    return box[0]


def _handles(loop: Any, signum: int, callback: Any) -> bool:
    """Whether ``loop`` now handles ``signum``: only the main thread can, and not every
    platform's loop (Windows')."""
    if threading.current_thread() is not threading.main_thread():
        return False
    try:
        loop.add_signal_handler(signum, callback)
    except (NotImplementedError, RuntimeError, ValueError):
        return False
    return True
