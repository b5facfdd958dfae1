"""The one server-side browsing core of the picker (``mediashortcodes pick``) and the Wagtail
chooser: the folder tree, a folder's files, search, the kind filter, paging, formats and
previews.

Callers only ever see file ids, names and alt texts; preview URLs stay here and are fetched
on the caller's behalf by id, so a browser never learns a service address that might carry
a token, and cannot make the server fetch an address of its choosing.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..errors import NotFoundError
from ..media.imageinfo import probe
from ..records import File, Folder, FolderNode, Format, folder_tree

PREVIEW_MAX_BYTES = 8 * 1024 * 1024
PREVIEW_SIZES = ("thumb", "small")
KINDS = ("image", "video")


class Service(Protocol):
    """The part of :class:`mediashortcodes.client.sync_client.Client` browsing uses."""

    def folders(self) -> list[Folder]: ...
    def files(self, folder_id: int) -> list[File]: ...
    def search(self, query: str) -> list[File]: ...
    def formats(self) -> list[Format]: ...
    def download(self, url: str, *, max_bytes: int) -> bytes: ...


class BrowseError(ValueError):
    """A request the caller can correct (a bad kind, page or id): shown as it is."""


def file_kind(file: File) -> str:
    return "video" if file.is_video else "image"


def file_summary(file: File) -> dict[str, Any]:
    """What a person is shown of a file: no service URL, only what a person reads."""
    return {
        "id": file.id,
        "name": file.name or file.filename,
        "filename": file.filename,
        "kind": file_kind(file),
        "extension": file.type.extension,
        "description": file.type.description,
        "alttext": file.alttext,
        "gdpr_status": file.gdpr_status,
        "uploaded": file.uploaded,
        "has_preview": bool(file.thumb_preview or file.small_preview),
    }


def folder_json(node: FolderNode) -> dict[str, Any]:
    """A folder and its subfolders as a browsing page reads them."""
    return {
        "id": node.folder.id,
        "name": node.folder.name,
        "archived": node.folder.archived,
        "separator": node.folder.separator,
        "children": [folder_json(child) for child in node.children],
    }


@dataclass(frozen=True)
class Page:
    """One page of a listing (the service returns a folder whole: paging happens here)."""

    items: list[dict[str, Any]]
    number: int  # from 1
    pages: int  # at least 1
    total: int

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.pages


def checked_kind(kind: str | None) -> str | None:
    """``image``, ``video`` or ``None`` (both); anything else is the caller's mistake."""
    if kind in (None, ""):
        return None
    if kind not in KINDS:
        raise BrowseError(f"kind must be image or video, got {kind!r}")
    return kind


def paged(items: Sequence[dict[str, Any]], number: int, per_page: int) -> Page:
    """Page ``number`` of ``items``; a number past the end gives the last page."""
    if per_page < 1:
        raise BrowseError(f"per_page must be 1 or more, got {per_page}")
    pages = max(1, -(-len(items) // per_page))
    number = min(max(1, number), pages)
    start = (number - 1) * per_page
    return Page(list(items[start : start + per_page]), number, pages, len(items))


class Browser:
    """Thread-safe: the picker's HTTP server and Django call it from many threads. Every
    file listed or found is remembered, so its preview can be fetched by id."""

    def __init__(self, service: Service) -> None:
        self._service = service
        self._lock = threading.Lock()
        self._files: dict[int, File] = {}
        self._formats: list[Format] | None = None

    def _remember(self, files: Sequence[File], kind: str | None = None) -> list[dict[str, Any]]:
        kind = checked_kind(kind)
        with self._lock:
            for file in files:
                self._files[file.id] = file
        return [file_summary(f) for f in files if kind is None or file_kind(f) == kind]

    def known_file(self, file_id: int) -> File:
        with self._lock:
            file = self._files.get(file_id)
        if file is None:
            raise NotFoundError(
                f"file {file_id} has not been listed here yet; open its folder or search"
            )
        return file

    def folders(self) -> list[dict[str, Any]]:
        return [folder_json(node) for node in folder_tree(self._service.folders())]

    def files(self, folder_id: int, kind: str | None = None) -> list[dict[str, Any]]:
        return self._remember(self._service.files(folder_id), kind)

    def search(self, query: str, kind: str | None = None) -> list[dict[str, Any]]:
        return self._remember(self._service.search(query), kind)

    def formats(self) -> list[Format]:
        with self._lock:
            cached = self._formats
        if cached is None:
            cached = self._service.formats()
            with self._lock:
                self._formats = cached
        return cached

    def formats_json(self) -> list[dict[str, Any]]:
        return [
            {"id": f.id, "name": f.name or str(f.id), "width": f.width, "height": f.height}
            for f in self.formats()
        ]

    def preview(self, file_id: int, size: str) -> tuple[bytes, str]:
        """The preview image of a listed file, and its MIME type (checked, not trusted)."""
        if size not in PREVIEW_SIZES:
            raise NotFoundError(f"no preview size {size!r}")
        file = self.known_file(file_id)
        if size == "thumb":
            url = file.thumb_preview or file.small_preview
        else:
            url = file.small_preview or file.thumb_preview
        if not url:
            raise NotFoundError(f"file {file_id} has no preview image")
        data = self.download_preview(file, size, url)
        return data, probe(data).mime

    def download_preview(self, file: File, size: str, url: str) -> bytes:
        """The bytes at a preview URL (a subclass may answer from a cache)."""
        return self._service.download(url, max_bytes=PREVIEW_MAX_BYTES)
