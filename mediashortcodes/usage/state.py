"""What the service was last told, in the manifest format: replaced whole, merged per page
under a lock file (two reports at once lose nothing), never written through a link.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from ..config import Config
from ..errors import ConfigError
from ..fileio import Confined, escapes, file_lock, write_atomic
from .manifest import Manifest, PageUsage

__all__ = ["UsageState", "state_of"]


def state_of(config: Config) -> UsageState:
    """The site's ``[usage] state``, confined to the site unless configured outside it."""
    relative = config.usage.state.replace("\\", "/")
    if os.path.isabs(relative) or escapes(relative):
        return UsageState(config.usage_state_path)
    return UsageState(config.root / relative, root=config.root)


class UsageState:
    """The last reported usage of a site, stored at ``path``."""

    def __init__(self, path: str | Path, *, root: str | Path | None = None) -> None:
        """``root``: the folder the state must lie in (default: its own)."""
        self.path = Path(path)
        self.root = Path(root) if root is not None else self.path.parent
        self.lock_path = self.path.with_name(self.path.name + ".lock")
        self._thread_lock = threading.Lock()

    def load(self, site: str = "") -> Manifest:
        """The state on disk, never read through a link (a planted one would send removals)."""
        path = self._confined(create=False)
        if os.path.islink(path):
            raise ConfigError(
                f"{path}: the usage state is a symlink; it is never read or written through "
                "a link; remove it (or pass --state with the real file)"
            )
        try:
            text = path.read_bytes()
        except FileNotFoundError:
            return Manifest(site=site)
        except OSError as exc:
            raise ConfigError(f"{self.path}: cannot read the usage state: {exc.strerror}") from None
        try:
            return Manifest.from_json(text, source=f"usage state {self.path}")
        except ConfigError as exc:
            raise ConfigError(
                f"{exc}\nThe usage state is damaged: restore it, or delete it and run "
                "`mediashortcodes report --previous URL_OF_LIVE_media-usage.json` "
                "(deleting it alone would forget the removals still to send)"
            ) from None

    def update(self, pages: Mapping[str, PageUsage | None], site: str, service: str = "") -> None:
        """Set each URL's page (None: forget it); another ``service``'s state is replaced."""
        with self._locked():
            state = self.load(site)
            other_service = bool(service and state.service and state.service != service)
            merged = {} if other_service else dict(state.pages)
            for url, page in pages.items():
                if page is None or not (page.files or page.pending):
                    merged.pop(url, None)
                else:
                    merged[url] = page
            updated = Manifest(site=site, pages=merged, service=service or state.service)
            if updated != state:
                try:
                    write_atomic(self._confined(), updated.to_json().encode(), durable=True)
                except OSError as exc:
                    raise ConfigError(
                        f"{self.path}: cannot write the usage state: {exc.strerror}"
                    ) from None

    def _confined(self, create: bool = True) -> Path:
        """The state's path, its folders proven inside the root."""
        relative = os.path.relpath(self.path, self.root).replace(os.sep, "/")
        return Confined(self.root, what=str(self.root), create=create).file(relative)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with self._thread_lock:
            lock = file_lock(self.lock_path)
            try:
                self._confined()  # its folder made, proven inside the root
                lock.acquire()
            except OSError as exc:
                raise ConfigError(
                    f"{self.lock_path}: cannot lock the usage state: {exc.strerror} (it must "
                    "be a file in a folder you can write; move what is in the way, or pass "
                    "--state)"
                ) from None
            try:
                yield
            finally:
                lock.release()
