"""Files written whole: a reader (a web server, another build, the next run) sees the old
file or the new one, never a part of one."""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

__all__ = ["write_atomic"]


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
