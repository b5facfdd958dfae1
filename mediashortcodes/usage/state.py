"""The durable record of what the service was last told, kept in the manifest format.

The file (default ``.mediashortcodes/usage-state.json`` in the site) is only ever replaced
whole, through a temporary file and ``os.replace``, so a crash leaves the old or the new
version and never half of one. Updates are per page and merge into what is on disk under
an exclusive lock file, so two reports running at once cannot lose each other's pages.
The state names the service it was reported to: a report to another service starts over.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from ..errors import ConfigError
from ..fileio import file_lock, write_atomic
from .manifest import Manifest, PageUsage

__all__ = ["UsageState"]


class UsageState:
    """The last reported usage of a site, stored at ``path``."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.lock_path = self.path.with_name(self.path.name + ".lock")
        self._thread_lock = threading.Lock()

    def load(self, site: str = "") -> Manifest:
        """The state on disk; a missing file means nothing was reported yet."""
        try:
            text = self.path.read_bytes()
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
        """Set each URL to what the service may now hold (None, or no files held or pending:
        forget the page). A state reported to another ``service`` is replaced, not merged."""
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
                    write_atomic(self.path, updated.to_json().encode(), durable=True)
                except OSError as exc:
                    raise ConfigError(
                        f"{self.path}: cannot write the usage state: {exc.strerror}"
                    ) from None

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with self._thread_lock:
            lock = file_lock(self.lock_path)
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
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
