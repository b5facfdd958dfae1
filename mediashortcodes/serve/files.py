"""Which file of the built output answers a URL path.

Pretty URLs: ``/blog/post/`` is ``blog/post/index.html`` and ``/blog/post`` redirects
there. Only the built output is ever served: a path with ``..`` or ``.`` segments, a NUL or
a backslash is not found, no symbolic link is followed (any part of the path being one is
"not found"), and a folder without ``index.html`` is not found, never listed.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

__all__ = ["Found", "Redirect", "locate"]


@dataclass(frozen=True)
class Found:
    path: Path  # a regular file inside the output, reached without a symbolic link


@dataclass(frozen=True)
class Redirect:
    location: str  # the same path with its trailing slash


def locate(root: Path, url_path: str) -> Found | Redirect | None:
    """The answer to ``url_path`` (the request's path, still percent-encoded, no query)
    from the output folder ``root``; ``None`` is "not found"."""
    try:
        decoded = unquote(url_path, errors="strict")
    except UnicodeDecodeError:
        return None
    if not decoded.startswith("/") or "\x00" in decoded or "\\" in decoded:
        return None
    segments = [segment for segment in decoded.split("/") if segment]
    if any(segment in (".", "..") for segment in segments):
        return None
    current = root
    mode = _mode(current)
    if mode is None or not stat.S_ISDIR(mode):
        return None
    for segment in segments:
        current = current / segment
        mode = _mode(current)
        if mode is None or stat.S_ISLNK(mode):
            return None
    if stat.S_ISDIR(mode):
        if not decoded.endswith("/"):
            return Redirect(url_path + "/")
        index = current / "index.html"
        index_mode = _mode(index)
        return Found(index) if index_mode is not None and stat.S_ISREG(index_mode) else None
    if stat.S_ISREG(mode) and not decoded.endswith("/"):
        return Found(current)
    return None


def _mode(path: Path) -> int | None:
    try:
        return os.lstat(path).st_mode
    except (OSError, ValueError):  # missing, not a folder on the way, a name too long
        return None
