"""Files copied as they are: ``static/``, and the files beside the pages in ``content/``.

Every build copies them, never over what it writes. A file at the path of a page, a
published image or the usage manifest would be silently replaced (or would replace it); one
where the build needs a folder (``static/media`` as a file) breaks the write. Both are refused
before anything is written, each named.

Which files of ``content/`` are published (an image beside its page, a raw ``.html``) is
``resources.py``'s choice; this module checks and copies them.

Symlinks are never followed (``sources.py``): a link, to a file or a folder, is skipped with a
warning; a dangling one (an editor's lock file) silently.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..errors import ConfigError, Problem
from ..fileio import Confined
from .sources import copy_plain, skipped_warning, source_files

__all__ = ["check_resources", "check_static", "copy_files"]


def _in_the_way(files: Iterable[str], outputs: Iterable[str]) -> list[tuple[str, str]]:
    """(file, output) for each of ``files`` at the path of an output, or where an output needs
    a folder, or needing a folder where an output is a file (posix paths under the output)."""
    files = list(files)
    if not files:
        return []
    # Each output, and each folder it needs, once: a site has thousands of outputs and
    # usually a handful of such files, so this stays one pass over the outputs.
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


def _refuse(clashes: list[str], what: str) -> None:
    if clashes:
        listed = "\n".join(clashes[:20])
        more = f"\n  ... and {len(clashes) - 20} more" if len(clashes) > 20 else ""
        raise ConfigError(
            f"{len(clashes)} {what} would replace, or be replaced by, what the build "
            f"writes; rename or remove them:\n{listed}{more}"
        )


def check_static(static_dir: Path, outputs: Iterable[str], shown: str) -> None:
    """Raise a ConfigError naming every static file in the way of a build output
    (``outputs``: posix paths under the output folder). ``shown`` names the folder."""
    clashes = _in_the_way(source_files(static_dir).files, outputs)
    _refuse(
        [f"  {shown}/{name} is in the way of the build's {output}" for name, output in clashes],
        "static file(s)",
    )


def check_resources(names: Iterable[str], outputs: Iterable[str], shown: str) -> None:
    """Raise a ConfigError naming every file of ``content/`` (``shown``) that would be
    published over a page, a published image or the manifest, or in their way."""
    clashes = _in_the_way(names, outputs)
    _refuse(
        [f"  {shown}/{name} is in the way of the build's {output}" for name, output in clashes],
        "file(s) beside the pages",
    )


def copy_files(
    root: Path, staging: Confined, shown: str, names: Iterable[str] | None = None
) -> list[Problem]:
    """Copy ``names`` (default: every file) from ``root`` into the staging folder at the same
    paths, each a new file in a folder proven inside it; what cannot be copied is a
    ConfigError. Returns a warning for each link or odd file skipped (for ``names``:
    replaced by one since the walk)."""
    if names is None:
        found = source_files(root)
        names, skipped = found.files, found.skipped
    else:
        skipped = []
    name = ""
    try:
        for name in names:
            if not copy_plain(root / name, staging.file(name)):
                skipped.append(name)  # replaced by a link since the walk
    except OSError as exc:
        raise ConfigError(f"{shown}: cannot copy {name}: {exc.strerror or exc}") from None
    return [skipped_warning(shown, name) for name in skipped]
