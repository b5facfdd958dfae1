"""The cache's layout on disk: content-addressed blobs and small versioned JSON records.

    blobs/<ab>/<sha256>                  image bytes, named by their SHA-256
    records/<ab>/<sha256(key)>.json      {"v": 1, "key": key, "at": unix time, "value": ...}
    snapshots/<sha256(site)[:16]>.json   the records one site's last build used

Whoever wrote the folder is not trusted (docs/reliability.md): reads never follow a
symlink and take only a bounded regular file, folders on the way must be real folders,
and writes are a new temporary file renamed over the name.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import shutil
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Protocol, runtime_checkable

from .cache_records import Stored, is_image_of

BLOBS = "blobs"
RECORDS = "records"
SNAPSHOTS = "snapshots"

# A record or snapshot larger than this is damage (a 10,000-page site's snapshot: ~4 MB).
MAX_RECORD_BYTES = 256 * 1024 * 1024

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_READ_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_BINARY", 0)


class NotInsideError(OSError):
    """A folder of the cache is a symlink or not a folder: nothing goes through it."""


def blob_name(sha256: str) -> str:
    """The layout name of the blob with this SHA-256 (lower-case hex)."""
    return f"{BLOBS}/{sha256[:2]}/{sha256}"


def record_name(key: str) -> str:
    """The layout name of the record asked for by ``key`` (its canonical text)."""
    digest = hashlib.sha256(key.encode()).hexdigest()
    return f"{RECORDS}/{digest[:2]}/{digest}.json"


def namespace_for(base_url: str, sandbox: bool) -> str:
    """The folder of one service's entries: a sandbox's, or a hash of the API's URL."""
    if sandbox:
        return "sandbox"
    return hashlib.sha256(base_url.rstrip("/").encode()).hexdigest()[:16]


class Backend(Protocol):
    """A place holding the layout's names; nothing it returns is trusted."""

    def get(self, name: str, limit: int) -> bytes | None:
        """The bytes under ``name``; None when absent, not a plain file, or over ``limit``."""

    def put(self, name: str, data: bytes) -> None:
        """Store ``data`` under ``name``, whole or not at all."""


@runtime_checkable
class SharedTier(Backend, Protocol):
    """A backend filled ahead of the look-ups and flushed after (``remote_tier``)."""

    notes: list[str]  # warnings about the tier
    damaged: set[str]  # names that failed their checks

    async def prefetch(self, keys: Iterable[str], local: Any) -> None: ...

    async def flush(self, used: dict[str, Any] | None, local: Any) -> None: ...


@dataclass(frozen=True)
class BlobCheck:
    """A blob found fit to publish: its file's identity when checked."""

    path: str
    device: int
    inode: int


class LocalStore:
    """The layout in a local folder (``root``, created on first write)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._root = str(root)
        self._dirs_ok: set[str] = set()  # folders known to be real folders of the cache

    def _path(self, name: str) -> str:
        return f"{self._root}{os.sep}{name}" if os.sep == "/" else str(self.root / name)

    def _check_dirs(self, name: str, *, create: bool) -> bool:
        """Whether every folder of ``name`` (the root included) is a real folder, made when
        missing with ``create``; NotInsideError for a link or a file."""
        parent = name.rpartition("/")[0]
        if parent in self._dirs_ok:
            return True
        parts = parent.split("/") if parent else []
        for depth in range(len(parts) + 1):
            folder = "/".join(parts[:depth])
            if folder in self._dirs_ok:
                continue
            path = self._path(folder) if folder else self._root
            try:
                mode = os.lstat(path).st_mode
            except FileNotFoundError:
                if not create:
                    return False
                if not folder:  # the root: its parents are the configured cache folder
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                with contextlib.suppress(FileExistsError):
                    os.mkdir(path)
                mode = os.lstat(path).st_mode
            if not stat.S_ISDIR(mode):
                raise NotInsideError(
                    errno.ENOTDIR, "not a folder of the cache (a symlink or a file)", path
                )
            self._dirs_ok.add(folder)
        return True

    def _open(self, name: str) -> tuple[BinaryIO, os.stat_result] | None:
        """``name`` open for reading, with its status, if it is a regular file inside the cache."""
        try:
            if not self._check_dirs(name, create=False):
                return None
            fd = os.open(self._path(name), _READ_FLAGS)
        except OSError:  # absent, a symlink (ELOOP), no permission, NotInsideError
            return None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            return None
        return os.fdopen(fd, "rb"), info

    def get(self, name: str, limit: int = MAX_RECORD_BYTES) -> bytes | None:
        opened = self._open(name)
        if opened is None:
            return None
        with opened[0] as source:
            size = opened[1].st_size  # read() allocates what it is asked for: ask no more
            data = source.read(size + 1) if size <= limit else None
        return data if data is not None and len(data) <= limit else None

    def check_blob(self, found: Stored) -> BlobCheck | None:
        """The blob of ``found`` if a regular file that is exactly that image (``is_image_of``)."""
        name = blob_name(found.sha256)
        opened = self._open(name)
        if opened is None:
            return None
        source, info = opened
        with source:
            data = source.read(found.size + 1) if info.st_size == found.size else b""
        if not is_image_of(found, data):
            return None
        return BlobCheck(self._path(name), info.st_dev, info.st_ino)

    def put(self, name: str, data: bytes, *, mode: int = 0o644) -> BlobCheck:
        """Write ``data`` under ``name`` whole: a new file renamed over the name."""
        self._check_dirs(name, create=True)
        target = self._path(name)
        folder = os.path.dirname(target)
        tmp = f"{folder}{os.sep}.tmp-{os.getpid()}-{os.urandom(6).hex()}"
        try:
            fd = os.open(tmp, _CREATE_FLAGS, mode)
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                info = os.fstat(fd)
            os.replace(tmp, target)
            return BlobCheck(target, info.st_dev, info.st_ino)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def delete(self, name: str) -> None:
        try:
            if self._check_dirs(name, create=False):
                os.unlink(self._path(name))  # unlinks a link itself, never its target
        except (FileNotFoundError, NotInsideError):
            pass

    def names(self) -> Iterator[str]:
        """Every entry under the root, links and odd files included (never followed)."""
        if not os.path.isdir(self._root) or os.path.islink(self._root):
            return
        for folder, dirs, files in os.walk(self._root, topdown=False, followlinks=False):
            relative = os.path.relpath(folder, self._root).replace(os.sep, "/")
            prefix = "" if relative == "." else relative + "/"
            for entry in (*files, *(d for d in dirs if os.path.islink(os.path.join(folder, d)))):
                yield prefix + entry

    def kind(self, name: str) -> str:
        """ "file", "dir", "link" or "other" (never following a link); "" when absent."""
        try:
            mode = os.lstat(self._path(name)).st_mode
        except OSError:
            return ""
        if stat.S_ISLNK(mode):
            return "link"
        if stat.S_ISREG(mode):
            return "file"
        return "dir" if stat.S_ISDIR(mode) else "other"

    def remove_empty_dirs(self) -> None:
        if not os.path.isdir(self._root) or os.path.islink(self._root):
            return
        for folder, _dirs, _files in os.walk(self._root, topdown=False, followlinks=False):
            if folder != self._root:
                with contextlib.suppress(OSError):
                    os.rmdir(folder)
        self._dirs_ok.clear()

    def clear(self) -> None:
        """Remove the whole folder; links inside are removed, never followed."""
        self._dirs_ok.clear()
        if os.path.islink(self._root):
            os.unlink(self._root)
            return
        if os.path.isdir(self._root):
            shutil.rmtree(self._root, onerror=_writable_then_retry)


def publish_blob(check: BlobCheck, target: Path) -> None:
    """Put the checked blob at ``target``: a hard link of the very file checked, else a copy.
    The folder is the caller's to prove (``fileio.Confined``)."""
    try:
        os.link(check.path, target, follow_symlinks=False)
    except FileExistsError:
        if stat.S_ISREG(os.lstat(target).st_mode):
            return  # published before: the name holds the content's hash
        # A link (or another odd entry) planted at the name is replaced, never followed.
        tmp = target.with_name(f".{target.name}.{os.getpid()}.{os.urandom(4).hex()}.part")
        publish_blob(check, tmp)
        try:
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        return
    except FileNotFoundError:
        if target.parent.is_dir():
            raise  # the blob itself is gone
        target.parent.mkdir(parents=True, exist_ok=True)
        publish_blob(check, target)
        return
    except OSError:  # no hard links here (another device, a file system without them)
        with open_checked(check) as source, open(target, "xb") as out:
            shutil.copyfileobj(source, out)
        return
    info = os.lstat(target)
    if (info.st_dev, info.st_ino) != (check.device, check.inode):
        os.unlink(target)
        raise _replaced(check)


def _replaced(check: BlobCheck) -> OSError:
    return FileNotFoundError(
        errno.ENOENT, "the cached image was replaced while the build ran", check.path
    )


def open_checked(check: BlobCheck) -> BinaryIO:
    """The checked blob open for reading (its identity compared), else FileNotFoundError."""
    fd = os.open(check.path, _READ_FLAGS)
    info = os.fstat(fd)
    if (info.st_dev, info.st_ino) != (check.device, check.inode):
        os.close(fd)
        raise _replaced(check)
    return os.fdopen(fd, "rb")


def _writable_then_retry(function, path, info):  # type: ignore[no-untyped-def]
    """Windows refuses to delete a read-only file: make it writable (never a link), retry."""
    if os.path.islink(path) or not os.path.isfile(path):
        raise info[1]
    os.chmod(path, stat.S_IWRITE)
    function(path)
