"""Watch a site's sources with ``watchfiles``: content, templates, static files and the config.

The three folders are watched recursively; the site's own folder only for its config file
and for those folders appearing or going (the folders are then watched anew). The output,
the cache and everything else in the site are never watched, so a build never triggers one.
Editors' swap, backup, lock and temporary files are not changes (:func:`editors_file`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from pathlib import Path

from ..config import CONFIG_NAME, Config
from ..errors import ConfigError

__all__ = ["SiteWatcher", "watched_folders"]

STEP_MS = 30  # a change is reported once nothing more changed for this long (an editor's save)


# vim (.x.swp, x~, 4913), emacs (#x#, .#x), JetBrains (x___jb_tmp___), Kate (.x.kate-swp),
# gedit (.goutputstream-*), Office (~$x), and the caches watchfiles skips by default.
EDITORS_FILE = re.compile(
    r"\.sw.$|~$|^4913$|^#.*#$|^\.#|___jb_...___$|\.kate-swp$|^\.goutputstream-|^~\$"
    r"|\.py[cod]$|^\.DS_Store$|^flycheck_"
)
IGNORED_FOLDERS = {"__pycache__", ".git", ".hg", ".svn", ".idea", "node_modules"}


def editors_file(_change: object, path: str) -> bool:
    """Whether ``path`` is a change to watch: not an editor's file nor in a VCS folder."""
    parts = Path(path).parts
    return not EDITORS_FILE.search(parts[-1]) and IGNORED_FOLDERS.isdisjoint(parts)


def watched_folders(config: Config) -> tuple[Path, ...]:
    """The site's content, templates and static folders, whether they exist or not."""
    site = config.site
    return tuple(config.path(name) for name in (site.content, site.templates, site.static))


def _watch() -> Callable[..., object]:
    try:
        from watchfiles import watch
    except ImportError:
        raise ConfigError(
            "serve needs the serve extra (watchfiles is missing): "
            "pip install 'mediashortcodes[serve]' (in a checkout: pip install -e '.[serve]')"
        ) from None
    return watch


class SiteWatcher:
    """Calls ``on_change(paths)`` from its threads with each batch of changed paths."""

    def __init__(self, config: Config, on_change: Callable[[set[Path]], None]) -> None:
        self._watch = _watch()
        self.root = config.root.resolve()
        self.folders = watched_folders(config)
        self.config_file = self.root / CONFIG_NAME
        self.on_change = on_change
        self._stopped = threading.Event()
        self._rewatch = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> SiteWatcher:
        for target, name in ((self._watch_folders, "folders"), (self._watch_root, "root")):
            thread = threading.Thread(target=target, name=f"mediashortcodes-watch-{name}")
            thread.daemon = True
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        self._stopped.set()
        self._rewatch.set()
        for thread in self._threads:
            thread.join(timeout=5)
        self._threads = []

    def _batches(self, paths: list[Path], stop: threading.Event, **options: object):  # type: ignore[no-untyped-def]
        return self._watch(
            *paths,
            stop_event=stop,
            step=STEP_MS,
            debounce=400,
            rust_timeout=500,
            raise_interrupt=False,
            **options,
        )

    def _watch_folders(self) -> None:
        while not self._stopped.is_set():
            self._rewatch.clear()
            folders = [folder for folder in self.folders if folder.is_dir()]
            if not folders:
                self._rewatch.wait()
                continue
            for changes in self._batches(folders, self._rewatch, watch_filter=editors_file):
                self.on_change({Path(path) for _change, path in changes})

    def _watch_root(self) -> None:
        watched = {self.config_file, *self.folders}

        def interesting(_change: object, path: str) -> bool:
            return Path(path) in watched

        for changes in self._batches(
            [self.root], self._stopped, recursive=False, watch_filter=interesting
        ):
            paths = {Path(path) for _change, path in changes}
            if paths & set(self.folders):
                self._rewatch.set()  # a folder came or went: watch the ones there are now
            self.on_change(paths)
