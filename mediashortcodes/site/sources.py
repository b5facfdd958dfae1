"""The files of a site's source folders (``content/``, ``static/``), never through a link.

A contributor who can commit a symlink could otherwise publish any file the build can read
(``/proc/self/environ``, a key in the home folder). So a source folder is walked without
following links: a symlink, to a file or a folder, and anything that is not a regular file
(a FIFO would block the build) is skipped with a warning, never read or copied; a dangling
symlink (an editor's lock file such as ``.#page.md``) is skipped silently. Files are copied
through a descriptor opened without following a link, so one swapped in after the walk is
not copied either.
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Problem

__all__ = ["SourceFiles", "copy_plain", "skipped_warning", "source_files"]

_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


@dataclass
class SourceFiles:
    """Relative posix paths under a source folder, each list sorted."""

    files: list[str] = field(default_factory=list)  # regular files
    skipped: list[str] = field(default_factory=list)  # links and other non-regular entries
    sizes: dict[str, int] = field(default_factory=dict)  # each regular file's size


def source_files(root: Path, suffix: str = "") -> SourceFiles:
    """The regular files under ``root`` (ending with ``suffix``, if given), and what was
    skipped. Linked folders are listed as skipped, never entered."""
    found = SourceFiles()
    for folder, dirs, names in os.walk(root):  # os.walk enters no linked folder
        relative = os.path.relpath(folder, root)
        prefix = "" if relative == "." else relative.replace(os.sep, "/") + "/"
        for name in dirs:
            path = os.path.join(folder, name)
            if os.path.islink(path) and os.path.exists(path):
                found.skipped.append(prefix + name)
        for name in names:
            if suffix and not name.endswith(suffix):
                continue
            path = os.path.join(folder, name)
            try:
                info = os.lstat(path)
            except OSError:  # gone meanwhile
                continue
            mode = info.st_mode
            if stat.S_ISREG(mode):
                found.files.append(prefix + name)
                found.sizes[prefix + name] = info.st_size
            elif not stat.S_ISLNK(mode) or os.path.exists(path):
                found.skipped.append(prefix + name)
    found.files.sort()
    found.skipped.sort()
    return found


def skipped_warning(shown: str, name: str) -> Problem:
    return Problem(
        f"{shown}/{name}",
        0,
        0,
        "a symlink or not a regular file: skipped (the build never "
        f"follows links out of {shown}); copy the file itself in instead",
        "skipped",
    )


def copy_plain(source: Path, target: Path) -> bool:
    """Copy ``source`` to the new file ``target`` (mode and times kept) when it is a regular
    file, never through a link; False when it is not one (any more)."""
    try:
        fd = os.open(source, _READ_FLAGS)
    except OSError:  # a link now (ELOOP), or gone
        return False
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return False
        with os.fdopen(fd, "rb", closefd=False) as reader, open(target, "xb") as writer:
            shutil.copyfileobj(reader, writer)
        os.chmod(target, stat.S_IMODE(info.st_mode))
        os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))
    finally:
        os.close(fd)
    return True
