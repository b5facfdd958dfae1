"""Files written whole: a reader (a web server, another build, the next run) sees the old
file or the new one, never a part of one. And locks between processes that work the same on
Linux, macOS and Windows (``flock`` where the platform has it, filelock's msvcrt lock on
Windows).

A lock is a file. Locks that guard a folder (builds taking turns at one output) live in the
system's temporary folder, named by a hash of the folder, so nothing is left in the site.
A process *claims* the staging names it writes beside an output for as long as it runs: a
claim that nobody holds is how another build knows that the process that wrote them was
killed (``os.kill(pid, 0)`` cannot say so portably: on Windows it stops the process).

Writes that must stay inside a folder (the output, ``MEDIA_ROOT``, the usage state's folder)
go through :class:`Confined`, which proves it by resolved path: see its docstring.
"""

from __future__ import annotations

import contextlib
import functools
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

from .errors import ConfigError

__all__ = [
    "Confined",
    "claim",
    "claimed_by_a_running_process",
    "escapes",
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


def _odd(part: str) -> bool:
    """A path part that is empty or dots only, or holds a drive (Windows)."""
    return not part.strip(".") or (os.altsep is not None and ":" in part)


def escapes(relative: str) -> bool:
    """Whether ``relative`` (a posix path meant to lie under a folder) could name something
    outside it, or a name Windows cannot hold: absolute, or with an empty or dots-only part
    (``..``, ``...``: Windows drops trailing dots). A backslash counts as a separator where
    the system says it is one."""
    if os.altsep:  # Windows: a backslash separates too
        relative = relative.replace(os.sep, "/")
    return relative.startswith("/") or any(_odd(part) for part in relative.split("/"))


class Confined:
    """Writes under ``root``, each proven to land inside it by resolved path.

    The proof, by induction on the folders of a target: ``root``'s resolved path is
    ``resolved`` (a link in the configured path itself is the configuration's choice).
    A folder below it is accepted only as a real folder, never a link: either this process
    just made it (``mkdir`` makes a folder, and fails on any existing name, a link included)
    or ``lstat``, which does not follow a link, says it is a folder. A real folder named
    ``name`` in a folder whose resolved path is ``P`` resolves to ``P/name``, so every
    accepted folder's resolved path is ``resolved`` plus its relative path: inside the root.
    The relative path itself has no absolute, empty or dots-only part (:func:`escapes`).
    The file is then put in such a folder under its own name, by a writer that never
    follows a link at that name: a new file (``O_EXCL``), a rename over the name
    (:func:`write_atomic`: a rename replaces a link, it never writes through one), or a hard
    link (``media/store.publish_blob``, which replaces a link found there).

    So a link planted anywhere below ``root`` (``site_dir/media -> /elsewhere``) is never
    written through: a folder that is a link is a ConfigError naming it (exit 2), before
    anything is written there. Each folder is checked once per instance, one ``mkdir`` or
    ``lstat``, which is what creating it cost before. What this does not cover: another
    process that swaps a folder for a link *while* the build writes (it could write there
    itself), and a root that is itself a link (resolved as configured).
    """

    def __init__(self, root: Path | str, *, what: str = "", create: bool = True) -> None:
        """``create``: make the root and missing folders (to write); without it, a missing
        folder is left missing (to read: nothing is there) and the rest is proven alike."""
        self.root = Path(root)
        self.what = what or str(root)  # how messages name the root
        self.create = create
        if create:
            os.makedirs(self.root, exist_ok=True)
        self._folders: set[str] = {""}  # relative folders proven real

    @functools.cached_property
    def resolved(self) -> Path:
        """The root's resolved path, taken once: every proven folder's is this plus its
        relative path."""
        return Path(os.path.realpath(self.root))

    def folder(self, relative: str) -> Path:
        """The folder ``root/relative``, made where missing, every part proven a real folder."""
        relative = relative.replace(os.sep, "/").strip("/") if os.altsep else relative.strip("/")
        if relative not in self._folders:
            self._prove(relative)
        return self.root / relative if relative else self.root

    def file(self, relative: str) -> Path:
        """Where to write the file ``root/relative``: its folder proven (and made). The
        caller writes it without following a link at its name (see the class)."""
        if os.altsep:
            relative = relative.replace(os.sep, "/")
        folder, _, name = relative.rpartition("/")
        if _odd(name) or relative.startswith("/"):
            self._refuse(relative, "is not a plain path inside it", "rename it")
        if folder not in self._folders:
            self._prove(folder)
        return self.root / relative

    def _prove(self, relative: str) -> None:
        """Prove ``relative``'s folders real, the outer ones first; each part is checked
        once, as its own folder is proven (a page's folder costs one split and one mkdir)."""
        parent, _, name = relative.rpartition("/")
        if _odd(name):
            self._refuse(relative, "is not a plain path inside it", "rename it")
        if parent not in self._folders:
            self._prove(parent)
        path = os.path.join(self.root, relative)
        mode = stat.S_IFDIR  # made by this mkdir
        try:
            if self.create:
                os.mkdir(path)
            else:
                mode = os.lstat(path).st_mode
        except FileExistsError:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:  # only when reading: nothing below it to read
            return
        if not stat.S_ISDIR(mode):
            kind = "a symlink" if stat.S_ISLNK(mode) else "not a folder"
            self._refuse(
                relative,
                f"is {kind}, so nothing is read or written through it",
                "remove it (a real folder is made in its place)",
            )
        self._folders.add(relative)

    def _refuse(self, relative: str, message: str, remedy: str) -> None:
        raise ConfigError(
            f"{os.path.join(self.root, relative)}: {message} (files stay inside {self.what}, "
            f"never behind a link out of it); {remedy}"
        )


def remove_tree(path: Path, *, threads: int = 1) -> None:
    """Remove the folder ``path`` as far as it can be, never raising (a leftover is tried
    again by a later build).

    Windows refuses to delete a read-only file, and the cache's blobs are read-only and
    published as hard links: such a file's read-only bit is cleared (on Windows it is the
    blob's too, one file under two names) and the removal tried again.

    ``threads`` > 1 (a build with workers): what lies two levels down (a page's folder, a
    media file) is removed by that many threads at once, then the rest. Removing is the
    file system's work, done outside the interpreter's lock: about a quarter faster on a
    1,000-page output. A link is removed, never followed.
    """
    if threads > 1:
        units = _two_levels_down(path)
        if len(units) > threads:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(threads) as pool:
                for _ in pool.map(_remove_entry, units, chunksize=16):
                    pass
    _remove_folder(path)


def _two_levels_down(path: Path) -> list[os.DirEntry[str]]:
    found: list[os.DirEntry[str]] = []
    with contextlib.suppress(OSError), os.scandir(path) as top:
        for entry in top:
            if entry.is_dir(follow_symlinks=False):
                with contextlib.suppress(OSError), os.scandir(entry.path) as inner:
                    found += inner
    return found


def _remove_entry(entry: os.DirEntry[str]) -> None:
    if entry.is_dir(follow_symlinks=False):
        _remove_folder(Path(entry.path))
    else:
        _clear_and_retry(os.unlink, entry.path, None)


def _clear_and_retry(function: Any, name: str, _error: Any) -> None:
    """``function(name)`` again once the file's read-only bit is cleared (Windows); the
    first try when called directly. Nothing raises: what stays is a leftover."""
    with contextlib.suppress(OSError):
        function(name)
        return
    with contextlib.suppress(OSError):
        os.chmod(name, stat.S_IREAD | stat.S_IWRITE)
        function(name)


def _remove_folder(path: Path) -> None:
    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=_clear_and_retry)
    else:  # pragma: no cover - the same handler under its older name
        shutil.rmtree(path, onerror=_clear_and_retry)


# Locks --------------------------------------------------------------------------------------

_claims: dict[Path, Any] = {}  # this process's claims, held until it exits


class LockTimeout(OSError):
    """The lock is held by another process (``acquire(timeout=0)``)."""


class FlockLock:
    """An exclusive ``flock`` on the file ``path`` (made if missing, never through a link),
    held until :meth:`release` or the process ends. What filelock does on POSIX, without its
    imports: a build's start-up is part of every small site's build time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self, timeout: float | None = None) -> None:
        """Wait for the lock, or raise LockTimeout at once when ``timeout`` is 0."""
        import fcntl

        operation = fcntl.LOCK_EX | (fcntl.LOCK_NB if timeout == 0 else 0)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
            try:
                fcntl.flock(fd, operation)
            except BlockingIOError:
                os.close(fd)
                raise LockTimeout(f"{self.path} is locked by another process") from None
            except BaseException:
                os.close(fd)
                raise
            # Another process may have removed the file (an unheld claim, see
            # claimed_by_a_running_process) between our open and our lock: a lock on a file
            # no longer at that name holds nothing, so lock the name's file anew.
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(self.path))
            except FileNotFoundError:
                same = False
            if same:
                self._fd = fd
                return
            os.close(fd)

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)  # closing the only descriptor releases the flock

    def __enter__(self) -> FlockLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def file_lock(path: Path) -> Any:
    """An exclusive lock on the file ``path``: :class:`FlockLock` where there is ``fcntl``,
    else (Windows) a ``filelock.FileLock``, imported only there. A symlink at ``path`` is
    refused: a lock file is opened for writing, and older filelock releases opened it
    through a link and truncated what it points to."""
    if os.path.islink(path):
        raise ConfigError(
            f"{path}: a lock file is a symlink; nothing is opened through it; remove it"
        )
    try:
        import fcntl  # noqa: F401  (POSIX only)
    except ImportError:
        from filelock import FileLock

        return FileLock(path)
    return FlockLock(path)


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
    if pid == os.getpid():
        return True
    path = folder_lock_path(folder, f"-{pid}")
    lock = file_lock(path)
    try:
        lock.acquire(timeout=0)
    except OSError:  # held (LockTimeout, or filelock's Timeout: a TimeoutError), or no way
        return True  # to tell: its files are left alone
    try:
        lock.release()
    finally:
        path.unlink(missing_ok=True)
    return False
