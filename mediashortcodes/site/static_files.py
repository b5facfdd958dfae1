"""The site's static files: copied as they are into every build, never over what it writes.

A static file at the path of a page, a published image or the usage manifest would be
silently replaced (or would replace it); one where the build needs a folder (``static/media``
as a file) breaks the write. Both are refused before anything is written, each named.
Symlinks are never followed (``sources.py``): a link, to a file or a folder, is skipped with a
warning; a dangling one (an editor's lock file) silently.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..errors import ConfigError, Problem
from .sources import copy_plain, skipped_warning, source_files

__all__ = ["check_static", "copy_static"]


def check_static(static_dir: Path, outputs: Iterable[str], shown: str) -> None:
    """Raise a ConfigError naming every static file in the way of a build output
    (``outputs``: posix paths under the output folder). ``shown`` names the folder."""
    files = source_files(static_dir).files
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


def copy_static(static_dir: Path, staging: Path, shown: str) -> list[Problem]:
    """Copy the static files into the staging folder; what cannot be copied is a ConfigError.
    Returns a warning for each link or odd file skipped."""
    found = source_files(static_dir)
    try:
        made: set[Path] = set()
        for name in found.files:
            target = staging / name
            if target.parent not in made:
                target.parent.mkdir(parents=True, exist_ok=True)
                made.add(target.parent)
            if not copy_plain(static_dir / name, target):
                found.skipped.append(name)  # replaced by a link since the walk
    except OSError as exc:
        raise ConfigError(f"{shown}: cannot copy the static files: {exc}") from None
    return [skipped_warning(shown, name) for name in found.skipped]
