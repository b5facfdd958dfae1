"""asyncio.run for one command: without the cost of its result's repr, and stopped by
SIGTERM as cleanly as by Ctrl-C (builds and reports alike)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["run_returning"]

T = TypeVar("T")


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
    with asyncio.Runner() if hasattr(asyncio, "Runner") else _Runner() as runner:
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


class _Runner:
    """What this module uses of ``asyncio.Runner`` (Python 3.11) for Python 3.10: a new loop
    for the coroutine; Ctrl-C cancels it and is then raised as KeyboardInterrupt (not raised
    inside whichever task runs); on the way out, as ``asyncio.run`` does, its tasks
    cancelled, its async generators and default executor shut down, the loop closed."""

    def __enter__(self) -> _Runner:
        import asyncio

        self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self._loop)
        return self

    def get_loop(self) -> Any:
        return self._loop

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        import asyncio

        task = self._loop.create_task(coroutine)
        interrupted = False

        def on_sigint(_signum: int, _frame: Any) -> None:
            nonlocal interrupted
            if interrupted or task.done():
                raise KeyboardInterrupt
            interrupted = True
            task.cancel()
            self._loop.call_soon_threadsafe(lambda: None)  # wake the loop to see it

        takes_sigint = (
            threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler
        )
        if takes_sigint:
            signal.signal(signal.SIGINT, on_sigint)
        try:
            return self._loop.run_until_complete(task)
        except asyncio.CancelledError:
            if interrupted:
                raise KeyboardInterrupt from None
            raise
        finally:
            if takes_sigint:
                signal.signal(signal.SIGINT, signal.default_int_handler)

    def __exit__(self, *exc: object) -> None:
        import asyncio

        loop = self._loop
        try:
            tasks = asyncio.all_tasks(loop)
            for task in tasks:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            asyncio.set_event_loop(None)
            loop.close()
