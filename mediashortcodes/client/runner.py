"""asyncio.run for one command, stopped by SIGTERM as cleanly as by Ctrl-C."""

from __future__ import annotations

import signal
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["run_returning"]

T = TypeVar("T")


def run_returning(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run``, SIGTERM cancelling the main task as Ctrl-C does; the program's
    handler (it raises: inside a task asyncio would print "Task exception was never
    retrieved") is called once the loop is closed."""
    import asyncio  # only when the service or the shared cache is asked

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
        # Only the main thread can handle signals, and not every platform's loop (Windows').
        takes_over = callable(previous) and threading.current_thread() is threading.main_thread()
        try:
            if takes_over:
                loop.add_signal_handler(signal.SIGTERM, on_sigterm)
        except (NotImplementedError, RuntimeError, ValueError):
            takes_over = False
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
