"""A fresh runner's head start: the shared cache's images come while the pages render.

A forked process reads the shared tier's pack and keeps the blobs it names in the local
cache (docs/ci.md). It writes nothing a build would not, never asks the service, and says
nothing (a failing remote shows when the build asks it).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .remote_tier import LocalBlobs, RemoteTier

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

_PACK = "pack.json"
_DAMAGED = "damaged.json"  # what failed its checks there, for the build to warn about


class HeadStart:
    """The process bringing the blobs; :meth:`wait` before resolving, :meth:`stop` always."""

    def __init__(self, process: BaseProcess, folder: Path) -> None:
        self.process = process
        self.folder = folder  # private (mkdtemp): where it leaves the pack it read
        self.damaged: list[str] = []  # what failed its checks there, for the one warning

    def wait(self, timeout: float) -> bytes | None:
        """Let it finish for at most ``timeout`` seconds; the pack's bytes, if it read them."""
        self.process.join(timeout)
        self._end()
        with contextlib.suppress(OSError, ValueError, TypeError):
            damaged = json.loads((self.folder / _DAMAGED).read_bytes())
            self.damaged = [name for name in damaged if type(name) is str]
        try:
            return (self.folder / _PACK).read_bytes()
        except OSError:
            return None
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def stop(self) -> None:
        self._end()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _end(self) -> None:
        if self.process.is_alive():
            self.process.terminate()  # SystemExit in it: a file being written is removed
        self.process.join()


def start_head_start(tier: RemoteTier, local: LocalBlobs) -> HeadStart | None:
    """Fork the process bringing the pack's images into ``local``; None where it cannot."""
    # As site/workers.py: fork only on Linux-like systems, and only with no other thread.
    if not hasattr(os, "fork") or sys.platform == "darwin" or threading.active_count() > 1:
        return None
    import multiprocessing

    for stream in (sys.stdout, sys.stderr):  # or the child would write what is buffered again
        with contextlib.suppress(AttributeError, OSError, ValueError):
            stream.flush()
    folder = Path(tempfile.mkdtemp(prefix="mediashortcodes-head-start-"))
    context = multiprocessing.get_context("fork")
    process = context.Process(target=_bring, args=(tier, local, folder), daemon=True)
    process.start()
    return HeadStart(process, folder)


def _bring(tier: RemoteTier, local: LocalBlobs, folder: Path) -> None:
    """The child: read the pack (left in ``folder``) and keep the blobs it names."""

    def leave(data: bytes) -> None:
        part = folder / f"{_PACK}.part"
        part.write_bytes(data)
        part.replace(folder / _PACK)  # whole or absent

    def stopped(_signum: int, _frame: Any) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stopped)

    async def bring() -> None:
        try:
            await tier.fetch_pack_blobs(local, leave)
        finally:
            await tier.aclose()
        if tier.damaged:
            (folder / _DAMAGED).write_text(json.dumps(sorted(tier.damaged)))

    with contextlib.suppress(BaseException):  # the build asks for whatever is missing itself
        asyncio.run(bring())
