"""What the service was last told, in the manifest format, merged per page under a lock
file, never read or written through a link, with a journal of the pages accepted since it
was last written (docs/usage-reporting.md, *The state*)."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
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
        self.journal_path = self.path.with_name(self.path.name + ".journal")
        self._thread_lock = threading.Lock()

    def load(self, site: str = "") -> Manifest:
        """The state on disk, the journal replayed over it."""
        journal = self._read(self.journal_path, "journal")  # first: a fold deletes it last
        state = self._parse(self._read(self.path, "state"), f"usage state {self.path}")
        state = state or Manifest(site=site)
        if not journal:
            return state
        pages = dict(state.pages)
        for number, line in enumerate(journal.split(b"\n"), 1):
            where = f"usage state journal {self.journal_path}, line {number}"
            if record := self._parse(line, where, torn_ok=True):
                _apply(pages, record.pages)
        return replace(state, pages=pages)

    def update(self, pages: Mapping[str, PageUsage | None], site: str, service: str = "") -> None:
        """Set each URL's page (None: forget it) and fold the journal into the state;
        another ``service``'s state is replaced."""
        with self._locked():
            state = self.load(site)
            if os.path.lexists(self.journal_path):
                self._write(state)  # the journal's pages are in the state file first
                self.journal_path.unlink()
            other_service = bool(service and state.service and state.service != service)
            merged = {} if other_service else dict(state.pages)
            _apply(merged, pages)
            updated = Manifest(site=site, pages=merged, service=service or state.service)
            if updated != state:
                self._write(updated)

    def record(self, pages: Mapping[str, PageUsage | None]) -> None:
        """Set each URL's page as :meth:`update` does, at a cost that does not grow with
        the state: one line appended to the journal, on disk when this returns."""
        line = Manifest("", {url: page or PageUsage("", ()) for url, page in pages.items()})
        with self._locked():
            path = self._confined_file(self.journal_path)
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
            try:
                fd = os.open(path, flags | getattr(os, "O_BINARY", 0), 0o666)
                with os.fdopen(fd, "ab") as journal:  # on a line of its own: past a torn one
                    journal.write(b"\n" + line.to_json(indent=None).encode())
                    journal.flush()
                    os.fsync(journal.fileno())
            except OSError as exc:
                raise ConfigError(
                    f"{path}: cannot write the usage state journal: {exc.strerror}"
                ) from None

    def _read(self, path: Path, what: str) -> bytes | None:
        """A file of the state (None when absent), never read through a link (a planted
        one would send removals)."""
        path = self._confined_file(path, create=False)
        if os.path.islink(path):
            raise ConfigError(
                f"{path}: the usage {what} is a symlink; it is never read or written through "
                "a link; remove it (or pass --state with the real file)"
            )
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read the usage {what}: {exc.strerror}") from None

    def _parse(self, text: bytes | None, source: str, torn_ok: bool = False) -> Manifest | None:
        """``text`` as a manifest (None for none); ``torn_ok``: also None for what is not
        JSON, a journal line whose write never finished (never synced, so never relied on)."""
        if text is None or (torn_ok and not text.strip()):
            return None
        try:
            return Manifest.from_json(text, source=source)
        except ConfigError as exc:
            if torn_ok and _not_json(text):
                return None
            raise ConfigError(
                f"{exc}\nThe usage state is damaged: restore it, or delete it (and its "
                "journal) and run `mediashortcodes report --previous "
                "URL_OF_LIVE_media-usage.json` (deleting it alone would forget the removals "
                "still to send)"
            ) from None

    def _write(self, state: Manifest) -> None:
        try:
            write_atomic(self._confined_file(self.path), state.to_json().encode(), durable=True)
        except OSError as exc:
            message = f"{self.path}: cannot write the usage state: {exc.strerror}"
            raise ConfigError(message) from None

    def _confined_file(self, path: Path, create: bool = True) -> Path:
        """``path`` (the state or its journal), its folders proven inside the root."""
        relative = os.path.relpath(path, self.root).replace(os.sep, "/")
        return Confined(self.root, what=str(self.root), create=create).file(relative)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with self._thread_lock:
            lock = file_lock(self.lock_path)
            try:
                self._confined_file(self.path)  # its folder made, proven inside the root
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


def _apply(pages: dict[str, PageUsage], changes: Mapping[str, PageUsage | None]) -> None:
    """Set each changed page; one with no files (None, or recorded empty) is forgotten."""
    for url, page in changes.items():
        if page is None or not (page.files or page.pending):
            pages.pop(url, None)
        else:
            pages[url] = page


def _not_json(text: bytes) -> bool:
    try:
        json.loads(text)
    except ValueError:  # UnicodeDecodeError included
        return True
    except RecursionError:
        pass
    return False
