"""``mediashortcodes init``: a minimal site that builds as it is against the embedded
sandbox, written only where none of its files exists yet."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import ConfigError

# The new site's files, in the order written, from new_site/ beside this module (where the
# .gitignore is "gitignore": with its dot it would be git's own).
NEW_SITE_FILES = Path(__file__).resolve().parent / "new_site"
NEW_SITE = (
    "mediashortcodes.toml",
    "templates/page.html",
    "static/style.css",
    "content/index.md",
    ".gitignore",
)


def write_new_site(folder: Path) -> list[Path]:
    """Write the new site into ``folder`` (made if missing); the files written."""
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"{folder} exists and is not a folder; choose a new folder for the site")
    there = [name for name in NEW_SITE if os.path.lexists(folder / name)]
    if there:
        raise ConfigError(
            f"{folder} already has {', '.join(there)}; init never overwrites a file: choose a "
            "new or empty folder (mediashortcodes init DIR), or move these away"
        )
    written = []
    for name in NEW_SITE:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("x", encoding="utf-8") as file:  # "x": never over a file made meanwhile
            file.write((NEW_SITE_FILES / name.lstrip(".")).read_text(encoding="utf-8"))
        written.append(path)
    return written
