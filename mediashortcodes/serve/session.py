"""The author's loop: build, serve, watch the sources, rebuild, tell the open tabs.

The pages are built into a folder of this serve's own, never the site's output: they have
the local address in their URLs and must not be published or reported by mistake. Nothing
is ever reported to the service.
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import webbrowser
from contextlib import ExitStack
from pathlib import Path

from .. import config as config_mod
from ..config import CONFIG_NAME, Config
from ..errors import ConfigError
from ..fileio import Confined, claim, claimed_by_a_running_process
from .channel import LiveChannel
from .player import sandbox_player
from .rebuild import Echo, Rebuilder, served_config
from .server import LOOPBACK, LiveServer
from .watcher import SiteWatcher, watched_folders

__all__ = ["serve"]

SERVED_FOLDER = ".mediashortcodes"  # beside the usage state: the site's file system, so the
# cache's images are hard-linked into the served pages, not copied


def serve(
    config: Config,
    *,
    port: int,
    host: str = LOOPBACK,
    open_browser: bool = False,
    echo: Echo,
    banner: Echo,
) -> None:
    """Serve ``config``'s site until Ctrl-C (raised to the caller)."""
    root = config.root.resolve()  # a planted link there is refused, as `report` refuses it
    folder = Confined(root, what=f"the site {root}").folder(SERVED_FOLDER) / f"serve-{os.getpid()}"
    channel = LiveChannel()
    server = LiveServer(folder / "site", channel, host=host, port=port)  # a taken port: here
    watcher: SiteWatcher | None = None
    stack = ExitStack()
    try:
        changes: queue.Queue[set[Path]] = queue.Queue()
        watcher = SiteWatcher(config, changes.put)  # before any build: a missing extra is said
        claim(folder.parent)
        remove_abandoned(folder.parent)
        folder.mkdir(parents=True)
        server.start()
        banner(f"Serving {config.root} at {server.origin}/")
        stack.enter_context(sandbox_player(config, banner))
        banner("Press Ctrl-C to stop.")
        watcher.start()
        rebuilder = Rebuilder(served_config(config, server.origin), server.output, channel, echo)
        rebuilder.rebuild()
        if open_browser:
            webbrowser.open(server.origin + "/")
        while True:
            try:
                batch = changes.get(timeout=0.5)
            except queue.Empty:
                continue
            while not changes.empty():  # one build for everything saved meanwhile
                batch |= changes.get_nowait()
            echo(f"changed: {shown(config.root, batch)}")
            if config.root.resolve() / CONFIG_NAME in batch:
                try:
                    config = config_mod.load(config.root)
                except ConfigError as exc:
                    rebuilder.unbuilt.update(batch)
                    rebuilder.show_failure(exc, str(exc))
                    continue
                rebuilder.config = served_config(config, server.origin)
                if watched_folders(config) != watcher.folders:
                    watcher.stop()
                    watcher = SiteWatcher(config, changes.put).start()
            rebuilder.rebuild(batch)
    finally:
        if watcher is not None:
            watcher.stop()
        server.stop()
        stack.close()
        shutil.rmtree(folder, ignore_errors=True)


def remove_abandoned(parent: Path) -> None:
    """Remove the folders of serves that are gone (killed before they could clean up): a
    running serve holds its claim on the names beside its folder (see fileio.py)."""
    for old in parent.glob("serve-*") if parent.is_dir() else ():
        found = re.fullmatch(r"serve-(\d+)", old.name)
        if (
            found
            and not old.is_symlink()
            and old.is_dir()
            and not claimed_by_a_running_process(parent, int(found[1]))
        ):
            shutil.rmtree(old, ignore_errors=True)


def shown(root: Path, paths: set[Path]) -> str:
    """The changed paths, relative to the site, a few of them."""
    names = []
    for path in sorted(paths):
        try:
            names.append(str(path.relative_to(root.resolve())))
        except ValueError:
            names.append(str(path))
    more = f" and {len(names) - 3} more" if len(names) > 3 else ""
    return ", ".join(names[:3]) + more
