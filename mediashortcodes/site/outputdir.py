"""The output directory: which one a build may replace, the staging folder, the swap, and
killed builds' leftovers."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from ..config import Config
from ..errors import ConfigError, MediaShortcodesError, counted
from ..fileio import (
    claim,
    claimed_by_a_running_process,
    escapes,
    file_lock,
    folder_lock_path,
    remove_tree,
)
from ..usage.manifest import MANIFEST_NAME


def check_output_dir(output: Path, config: Config) -> None:
    """Raise a ConfigError naming the setting when replacing ``output`` would lose files."""
    output = output.resolve()
    site, state = config.site, config.usage_state_path
    protected = {
        "the site itself": (config.root.resolve(), ""),
        f"[site] content ({site.content})": (config.path(site.content), ""),
        f"[site] templates ({site.templates})": (config.path(site.templates), ""),
        f"[site] static ({site.static})": (config.path(site.static), ""),
        "the media cache": (config.cache_dir, ", or move [cache] dir out of it"),
        f"the usage state ({state})": (state, ", or move [usage] state out of it"),
    }
    for what, (path, or_else) in protected.items():
        if path.is_relative_to(output):
            raise ConfigError(
                f"the output directory {output} holds {what}, which the build would delete "
                "when it replaces the output; set [site] output (or --output) to a folder "
                f"of its own, such as _site{or_else}"
            )
    for setting, folder in (("static", site.static), ("content", site.content)):
        if output.is_relative_to(config.path(folder)):
            raise ConfigError(
                f"the output directory {output} is inside [site] {setting}, whose files are "
                "the site's sources; set [site] output (or --output) to a folder outside it"
            )
    if output.is_dir() and any(output.iterdir()) and not (output / MANIFEST_NAME).is_file():
        raise ConfigError(
            f"the output directory {output} is not empty and was not written by a build (it "
            f"has no {MANIFEST_NAME}); the build replaces the whole directory, so choose a "
            "new or empty folder, or remove this one first"
        )


def refuse_escapes(outputs: Iterable[str]) -> None:
    """Raise a ConfigError naming every output path not plainly inside the output."""
    found = sorted(output for output in outputs if escapes(output))
    if found:
        raise ConfigError(
            f"{counted(len(found), 'output path')} would lie outside the output folder; "
            "nothing was written: " + ", ".join(found[:20])
        )


def remove_leftovers(output: Path) -> list[Path]:
    """Remove killed builds' staging and old folders beside ``output``; claim this process's."""
    claim(output)
    pattern = re.compile(rf"\.{re.escape(output.name)}\.(?:staging|old)-(\d+)")
    removed = []
    for path in output.parent.glob(f".{output.name}.*-*") if output.parent.is_dir() else ():
        found = pattern.fullmatch(path.name)
        if found and path.is_dir() and not claimed_by_a_running_process(output, int(found[1])):
            remove_tree(path)
            removed.append(path)
    return removed


def staging_path(output: Path) -> Path:
    """This process's empty staging folder beside ``output`` (leftovers removed first)."""
    remove_leftovers(output)
    staging = output.parent / f".{output.name}.staging-{os.getpid()}"
    remove_tree(staging)
    return staging


def written_in_staging(output: Path, write: Callable[[Path], int]) -> None:
    """``write`` the output into a staging folder, then swap it in; on failure ``output``
    stays as it was."""
    staging = staging_path(output)
    try:
        swap_into_place(staging, output, threads=write(staging))
    except BaseException:
        remove_tree(staging)
        raise


def swap_into_place(staging: Path, output: Path, *, threads: int = 1) -> None:
    """Replace ``output`` by ``staging`` in two renames (if the second fails the old one is
    put back), then remove the old one; builds into one output take turns."""
    with file_lock(folder_lock_path(output.parent)):
        if output.exists() and not output.is_dir():
            raise MediaShortcodesError(f"{output} exists and is not a directory; remove it")
        old = output.parent / f".{output.name}.old-{os.getpid()}"
        if output.exists():
            os.replace(output, old)
        try:
            os.replace(staging, output)
        except BaseException:
            if old.exists():
                os.replace(old, output)
            raise
        remove_tree(old, threads=threads)
