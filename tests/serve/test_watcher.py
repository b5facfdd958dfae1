"""The watcher over a real folder: what it reports as changed."""

from __future__ import annotations

import queue
from pathlib import Path

import pytest

from mediashortcodes import config as config_mod
from mediashortcodes.serve.watcher import SiteWatcher
from mediashortcodes.site.scaffold import write_new_site

pytest.importorskip("watchfiles")

# What editors write beside a file while saving it: vim's swap, backup and write test,
# emacs's autosave and lock, JetBrains' safe write, Kate's swap, gedit's, Office's lock.
EDITORS_FILES = [
    ".index.md.swp",
    ".index.md.swx",
    "index.md~",
    "4913",
    "#index.md#",
    ".#index.md",
    "index.md___jb_tmp___",
    "index.md___jb_old___",
    ".index.md.kate-swp",
    ".goutputstream-ABC123",
    "~$index.md",
]


def test_editors_temporary_files_are_not_changes(tmp_path: Path) -> None:
    write_new_site(tmp_path)
    content = tmp_path / "content"
    batches: queue.Queue[set[Path]] = queue.Queue()
    watcher = SiteWatcher(config_mod.load(tmp_path), batches.put).start()
    try:
        for name in EDITORS_FILES:
            (content / name).write_text("x", encoding="utf-8")
        (content / "index.md").write_text("# Saved\n", encoding="utf-8")  # the real save
        seen: set[Path] = set()
        while (content / "index.md").resolve() not in seen:
            seen |= batches.get(timeout=30)
    finally:
        watcher.stop()
    while not batches.empty():
        seen |= batches.get_nowait()
    assert sorted(path.name for path in seen) == ["index.md"]
