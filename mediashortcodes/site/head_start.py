"""A fresh runner's head start: the shared cache's images come while the pages render.

A runner whose cache holds no snapshot of the site (a new CI machine) will need nearly
every image the last trusted build used, and the shared tier's pack names them all. So
before rendering, the builder forks one process that reads the pack and brings those blobs
into the local cache (each checked in full: size, SHA-256, signature; at most ``jobs`` at
a time) while this process renders the pages. The resolution then finds them here, takes
the records from the pack the head start read (left in a private temporary folder, and
checked as if it came from the remote) and asks the shared tier only for whatever is still
missing: often nothing, so the build itself never sets up a client for it. The waiting on
the network overlaps the rendering instead of following it.

It writes nothing the build would not write itself (the same checked blobs, into the same
cache, each a new file renamed into place), never asks the service, and says nothing: a
failure of the remote shows when the build asks it as usual (one warning). No head start
for a warm runner (the snapshot is there: no request at all), a read-only cache, or where
a process cannot be forked (see workers.py).
"""

from __future__ import annotations

import contextlib
import json
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .workers import can_fork

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

    from ..config import Config
    from ..media.cache import MediaCache


_PACK = "pack.json"
_DAMAGED = "damaged.json"  # what failed its checks there, for the build to warn about


class HeadStart:
    """The process bringing the blobs; :meth:`wait` before resolving, :meth:`stop` always."""

    def __init__(self, process: BaseProcess, folder: Path) -> None:
        self.process = process
        self.folder = folder  # private (mkdtemp): where it leaves the pack it read
        # The remote's names whose bytes failed their checks in the head start (an image of
        # the images' pack that was not what its index said), for the build's one warning.
        self.damaged: list[str] = []

    def wait(self, timeout: float) -> bytes | None:
        """Let it finish, for at most ``timeout`` more seconds; then it is stopped (each
        blob it kept is whole, and the build asks for the rest itself). The pack's bytes as
        it read them, if it did; what failed its checks in :attr:`damaged`."""
        self.process.join(timeout)
        self._end()
        try:
            damaged = json.loads((self.folder / _DAMAGED).read_bytes())
            self.damaged = [name for name in damaged if type(name) is str]
        except (OSError, ValueError, TypeError):
            pass
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


def head_start_for(
    config: Config,
    *,
    jobs: int | None = None,
    read_only: bool = False,
    offline: bool = False,
    refresh: bool = False,
    cache: MediaCache | None = None,
) -> HeadStart | None:
    """The head start of a build of ``config`` with these options (and ``cache``, else the
    configured one); None when it takes none. The command takes it as early as it can,
    before it imports the builder (0.1 s sooner), which takes it over
    (``SiteBuilder(head_start=)``); a builder given none asks here itself."""
    if not config.cache.remote or offline or refresh:
        return None
    if cache is None:
        from ..media.cache import cache_for

        cache = cache_for(config, read_only=read_only)
    return start_head_start(config, cache, jobs=jobs or config.build.jobs, site=str(config.root))


def start_head_start(
    config: Config, cache: MediaCache, *, jobs: int, site: str
) -> HeadStart | None:
    """Fork the head start for a fresh runner of ``site``; None when there is none to take."""
    if not config.cache.remote or cache.read_only or cache.has_snapshot(site):
        return None
    if not can_fork():
        return None
    import multiprocessing

    for stream in (sys.stdout, sys.stderr):  # or the child would write what is buffered again
        with contextlib.suppress(AttributeError, OSError, ValueError):
            stream.flush()
    folder = Path(tempfile.mkdtemp(prefix="mediashortcodes-head-start-"))
    context = multiprocessing.get_context("fork")
    process = context.Process(target=_bring, args=(config, cache, jobs, folder), daemon=True)
    process.start()
    return HeadStart(process, folder)


def _bring(config: Config, cache: MediaCache, jobs: int, folder: Path) -> None:
    """The child: read the pack (left in ``folder`` for the build), keep the blobs it names
    that are not here, then end."""

    def leave(data: bytes) -> None:
        part = folder / f"{_PACK}.part"
        part.write_bytes(data)
        part.replace(folder / _PACK)  # whole or absent

    def stopped(_signum: int, _frame: Any) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stopped)
    try:
        import asyncio

        from ..media.remote_tier import shared_tier

        tier = shared_tier(config, write=False, read_only=False, jobs=jobs, warn=_quiet)
        if tier is None:
            return
        tier.have_blob = cache.has_blob

        async def bring() -> None:
            try:
                await tier.fetch_pack_blobs(cache.keep_blob, leave)
            finally:
                await tier.aclose()
            if tier.damaged:
                (folder / _DAMAGED).write_text(json.dumps(tier.damaged))

        asyncio.run(bring())
    except BaseException:  # the build asks for whatever is missing itself
        return


def _quiet(_message: str) -> None:
    """The child's warnings are the build's to give (it meets the same remote)."""
