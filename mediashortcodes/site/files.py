"""The files of ``static/`` and those beside the pages in ``content/``, copied as they are.

Never through a link: a contributor who can commit a symlink could otherwise publish any
file the build can read. Links and non-regular files are skipped with a warning (a dangling
link silently); a file in the way of what the build writes is refused before any write.
A file of ``content/`` is published at its path unless private or in a drafts-only folder.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigError, Problem, counted, shown
from ..fileio import Confined

_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_UNDECODED = re.compile("[\udc80-\udcff]")  # the bytes of a name not UTF-8, as os.walk gives them


@dataclass
class SourceFiles:
    """Relative posix paths under a source folder, each list sorted."""

    files: list[str] = field(default_factory=list)  # regular files
    skipped: list[str] = field(default_factory=list)  # links and other non-regular entries
    sizes: dict[str, int] = field(default_factory=dict)  # each regular file's size


def source_files(root: Path) -> SourceFiles:
    """The regular files under ``root``; linked folders are skipped."""
    found = SourceFiles()
    for folder, dirs, names in os.walk(root):  # os.walk enters no linked folder
        relative = os.path.relpath(folder, root)
        prefix = "" if relative == "." else relative.replace(os.sep, "/") + "/"
        for name in dirs:
            path = os.path.join(folder, name)
            if os.path.islink(path) and os.path.exists(path):
                found.skipped.append(prefix + name)
        for name in names:
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
    undecodable = [shown(n) for n in (*found.files, *found.skipped) if _UNDECODED.search(n)]
    if undecodable:  # no URL or link can name such a file
        raise ConfigError(
            f"{shown(os.path.relpath(root))}: {counted(len(undecodable), 'file name')} not "
            "valid UTF-8 (its bytes shown as \\xNN); rename each in UTF-8: "
            + ", ".join(undecodable[:20])
        )
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
    """Copy the regular file ``source`` to the new file ``target`` (mode and times kept),
    never through a link; False when it is not one (any more)."""
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


def is_private(name: str) -> bool:
    """Whether the content file ``name`` stays unpublished: a path part starting with ``.``
    or ``_``, or an editor's backup."""
    parts = name.split("/")
    last = parts[-1]
    return any(part[:1] in (".", "_") for part in parts) or last.endswith("~") or last[:1] == "#"


def folders_of(name: str) -> list[str]:
    """The folders a posix path is in, innermost last: ``a/b/c.jpg`` -> ``["", "a", "a/b"]``."""
    parts = name.split("/")[:-1]
    return ["", *("/".join(parts[: i + 1]) for i in range(len(parts)))]


def resources_of(names: Iterable[str], withheld: AbstractSet[str] = frozenset()) -> list[str]:
    """The files of ``names`` to publish: not private, not in a ``withheld`` folder."""
    return [
        name
        for name in names
        if not is_private(name) and not any(f in withheld for f in folders_of(name))
    ]


def _in_the_way(files: Iterable[str], outputs: Iterable[str]) -> list[tuple[str, str]]:
    """(file, output) for each of ``files`` at an output's path or its folders', or needing
    a folder where an output is a file."""
    files = list(files)
    if not files:
        return []
    # One pass over the outputs (thousands), each folder once.
    needed: dict[str, str] = {}
    for output in outputs:
        needed.setdefault(output, output)
        slash = output.find("/")
        while slash > 0:
            needed.setdefault(output[:slash], output)
            slash = output.find("/", slash + 1)
    found = []
    for name in files:
        if name in needed:
            found.append((name, needed[name]))
            continue
        folders = [name[:i] for i, char in enumerate(name) if char == "/"]
        blocking = next((f for f in folders if needed.get(f) == f), None)  # an output file
        if blocking is not None:
            found.append((name, blocking))
    return sorted(found)


def check_in_the_way(names: Iterable[str], outputs: Iterable[str], folder: str, what: str) -> None:
    """Raise a ConfigError naming every file of ``names`` (in the folder ``folder``, each a
    ``what``) in the way of a build output (posix paths under the output folder)."""
    clashes = [
        f"  {shown(f'{folder}/{name}')} is in the way of the build's {shown(output)}"
        for name, output in _in_the_way(names, outputs)
    ]
    if clashes:
        listed = "\n".join(clashes[:20])
        more = f"\n  ... and {len(clashes) - 20} more" if len(clashes) > 20 else ""
        raise ConfigError(
            f"{counted(len(clashes), what)} in {shown(folder)} would replace, or be replaced "
            f"by, what the build writes; rename or remove each:\n{listed}{more}"
        )


def copy_files(
    root: Path, staging: Confined, folder: str, names: Iterable[str], skipped: Iterable[str] = ()
) -> list[Problem]:
    """Copy ``names`` from ``root`` into ``staging`` at the same paths; a warning for each of
    ``skipped`` and each replaced by a link since. What cannot be copied is a ConfigError."""
    skipped = list(skipped)
    name = ""
    try:
        for name in names:
            if not copy_plain(root / name, staging.file(name)):
                skipped.append(name)  # replaced by a link since the walk
    except OSError as exc:
        message = f"cannot copy {shown(name)}: {exc.strerror or exc}"
        raise ConfigError(f"{shown(folder)}: {message}") from None
    return [skipped_warning(folder, name) for name in skipped]
