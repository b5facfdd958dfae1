"""``run_returning``, a command's event loop: its result, its errors, Ctrl-C and SIGTERM."""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import pytest

from mediashortcodes.client.runner import run_returning


def test_it_returns_the_result_and_leaves_no_task_behind() -> None:
    cancelled = []

    async def left_running() -> None:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    async def main() -> int:
        asyncio.get_running_loop().create_task(left_running())
        await asyncio.sleep(0)
        return 42

    assert run_returning(main()) == 42
    assert cancelled == [True]


def test_an_error_of_the_command_is_raised_as_it_is() -> None:
    async def main() -> None:
        raise ValueError("the command's own")

    with pytest.raises(ValueError, match="the command's own"):
        run_returning(main())


def test_sigterm_stops_the_command_and_then_calls_the_programs_handler() -> None:
    called = []

    def programs_handler(signum: int, _frame: Any) -> None:
        called.append(signum)
        raise SystemExit(143)

    async def main() -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.sleep(60)  # cancelled by the signal, not waited out

    previous = signal.signal(signal.SIGTERM, programs_handler)
    try:
        with pytest.raises(SystemExit):
            run_returning(main())
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert called == [signal.SIGTERM]


def test_ctrl_c_cancels_the_command_and_is_raised_once_it_has_stopped() -> None:
    cancelled = []

    async def main() -> None:
        os.kill(os.getpid(), signal.SIGINT)
        try:
            await asyncio.sleep(60)  # cancelled by the signal, not waited out
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    with pytest.raises(KeyboardInterrupt):
        run_returning(main())
    assert cancelled == [True]  # the command stopped where it was, not inside another task
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
