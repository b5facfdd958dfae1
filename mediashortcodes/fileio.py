"""Files written whole: a reader (a web server, another build, the next run) sees the old
file or the new one, never a part of one. And locks between processes that work the same on
Linux, macOS and Windows (filelock: fcntl where the platform has it, msvcrt on Windows).

A lock is a file. Locks that guard a folder (builds taking turns at one output) live in the
system's temporary folder, named by a hash of the folder, so nothing is left in the site.
A process *claims* the staging names it writes beside an output for as long as it runs: a
claim that nobody holds is how another build knows that the process that wrote them was
killed (``os.kill(pid, 0)`` cannot say so portably: on Windows it stops the process).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = [
    "claim",
    "claimed_by_a_running_process",
    "exclusive",
    "file_lock",
    "folder_lock_path",
    "remove_tree",
    "write_atomic",
]


def write_atomic(path: Path, data: bytes, *, mode: int = 0o666, durable: bool = False) -> None:
    """Write ``data`` to ``path`` through a temporary file beside it, renamed over it.

    The file gets ``mode`` less the umask, as a plain file would (0644 under umask 022, so a
    web server running as another user can read what is published); ``durable`` also
    flushes it to disk before the rename, for state that must survive a power cut.
    A failed write leaves no temporary file behind.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.part")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), mode)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            if durable:
                out.flush()
                os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def remove_tree(path: Path) -> None:
    """Remove the folder ``path`` as far as it can be, never raising (a leftover is tried
    again by a later build).

    Windows refuses to delete a read-only file, and the cache's blobs are read-only and
    published as hard links: such a file's read-only bit is cleared (on Windows it is the
    blob's too, one file under two names) and the removal tried again.
    """

    def clear_and_retry(function: Any, name: str, _error: Any) -> None:
        with contextlib.suppress(OSError):
            os.chmod(name, stat.S_IREAD | stat.S_IWRITE)
            function(name)

    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=clear_and_retry)
    else:  # pragma: no cover - the same handler under its older name
        shutil.rmtree(path, onerror=clear_and_retry)


# Locks --------------------------------------------------------------------------------------

_claims: dict[Path, Any] = {}  # this process's claims, held until it exits


def file_lock(path: Path) -> Any:
    """A ``filelock.FileLock`` on ``path`` (imported here: only writers need it)."""
    from filelock import FileLock

    return FileLock(path)


def folder_lock_path(folder: Path, suffix: str = "") -> Path:
    """The lock file for ``folder`` (``suffix`` names one of its locks), in the temp folder."""
    key = hashlib.sha256(os.fsencode(folder.resolve())).hexdigest()[:20]
    return Path(tempfile.gettempdir()) / f"mediashortcodes-{key}{suffix}.lock"


@contextlib.contextmanager
def exclusive(lock_file: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``lock_file`` (made if missing) while the block runs; other
    processes wait their turn."""
    with file_lock(lock_file):
        yield


def claim(folder: Path) -> None:
    """Claim the staging names this process writes beside ``folder`` until it exits."""
    path = folder_lock_path(folder, f"-{os.getpid()}")
    if path not in _claims:
        lock = file_lock(path)
        lock.acquire()
        _claims[path] = lock


def claimed_by_a_running_process(folder: Path, pid: int) -> bool:
    """Whether process ``pid`` still holds its claim on names beside ``folder``; a claim
    nobody holds (the process was killed, or never claimed) is removed."""
    from filelock import Timeout

    if pid == os.getpid():
        return True
    path = folder_lock_path(folder, f"-{pid}")
    lock = file_lock(path)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return True
    except OSError:
        return True  # no way to tell: leave its files alone
    try:
        lock.release()
    finally:
        path.unlink(missing_ok=True)
    return False
