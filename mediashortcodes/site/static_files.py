"""The site's static files: copied as they are into every build, never over what it writes.

A static file at the path of a page, a published image or the usage manifest would be
silently replaced (or would replace it); one where the build needs a folder (``static/media``
as a file) breaks the write. Both are refused before anything is written, each named. A
symlinked folder that leads back up the tree would be copied for ever; a dangling symlink
(an editor's lock file) is skipped.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path

from ..errors import ConfigError

__all__ = ["check_static", "copy_static"]


def check_static(static_dir: Path, outputs: Iterable[str], shown: str) -> None:
    """Raise a ConfigError naming every static file in the way of a build output
    (``outputs``: posix paths under the output folder). ``shown`` names the folder."""
    files = _files(static_dir, shown)
    if not files:
        return
    # Each output, and each folder it needs, once: a site has thousands of outputs and
    # usually a handful of static files, so this stays one pass over the outputs.
    needed: dict[str, str] = {}
    for output in outputs:
        needed.setdefault(output, output)
        slash = output.find("/")
        while slash > 0:
            needed.setdefault(output[:slash], output)
            slash = output.find("/", slash + 1)
    clashes = sorted(
        f"  {shown}/{name} is in the way of the build's {needed[name]}"
        for name in files
        if name in needed
    )
    if clashes:
        listed = "\n".join(clashes[:20])
        more = f"\n  ... and {len(clashes) - 20} more" if len(clashes) > 20 else ""
        raise ConfigError(
            f"{len(clashes)} static file(s) would replace, or be replaced by, what the "
            f"build writes; rename or remove them:\n{listed}{more}"
        )


def _files(static_dir: Path, shown: str) -> set[str]:
    root = static_dir.resolve()
    found: set[str] = set()
    for folder, dirs, names in os.walk(static_dir):
        for name in dirs:
            linked = Path(folder, name)
            if linked.is_symlink() and root.is_relative_to(linked.resolve()):
                raise ConfigError(
                    f"{shown}/{linked.relative_to(static_dir).as_posix()} is a symlink to a "
                    "folder that holds it: copying it would never end; remove it"
                )
        relative = Path(folder).relative_to(static_dir)
        found.update((relative / name).as_posix() for name in names)
    return found


def copy_static(static_dir: Path, staging: Path, shown: str) -> None:
    """Copy the static files into the staging folder; what cannot be copied is a ConfigError."""
    try:
        shutil.copytree(static_dir, staging, ignore_dangling_symlinks=True, dirs_exist_ok=True)
    except (shutil.Error, OSError) as exc:
        raise ConfigError(f"{shown}: cannot copy the static files: {exc}") from None
