"""The picker's side of the service: listings for the page, previews, shortcodes, embeds.

The page only ever sees file ids, names and alt texts; preview URLs stay here and are
fetched on the page's behalf by id, so the browser never learns a service address that
might carry a token, and cannot make the server fetch an address of its choosing.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ..errors import NotFoundError
from ..media.imageinfo import probe
from ..records import File, Folder, FolderNode, Format, folder_tree
from .selection import SelectionError, shortcode_for

PREVIEW_MAX_BYTES = 8 * 1024 * 1024
PREVIEW_SIZES = ("thumb", "small")


class Service(Protocol):
    """The part of :class:`mediashortcodes.client.sync_client.Client` the picker uses."""

    def folders(self) -> list[Folder]: ...
    def files(self, folder_id: int) -> list[File]: ...
    def search(self, query: str) -> list[File]: ...
    def formats(self) -> list[Format]: ...
    def download(self, url: str, *, max_bytes: int) -> bytes: ...


class EmbedRenderer(Protocol):
    """Renders a video shortcode into the HTML a built page would contain."""

    def __call__(self, shortcode_text: str, file: File) -> str: ...


def file_summary(file: File) -> dict[str, Any]:
    """What the page shows of a file: no service URL, only what a person reads."""
    return {
        "id": file.id,
        "name": file.name or file.filename,
        "filename": file.filename,
        "kind": "video" if file.is_video else "image",
        "extension": file.type.extension,
        "description": file.type.description,
        "alttext": file.alttext,
        "gdpr_status": file.gdpr_status,
        "uploaded": file.uploaded,
        "has_preview": bool(file.thumb_preview or file.small_preview),
    }


class PickerBackend:
    """Thread-safe: the HTTP server calls it from one thread per connection."""

    def __init__(self, service: Service, *, embed_renderer: EmbedRenderer) -> None:
        self._service = service
        self._render_embed = embed_renderer
        self._lock = threading.Lock()
        self._files: dict[int, File] = {}
        self._formats: list[Format] | None = None

    def _remember(self, files: Sequence[File]) -> list[dict[str, Any]]:
        with self._lock:
            for file in files:
                self._files[file.id] = file
        return [file_summary(file) for file in files]

    def known_file(self, file_id: int) -> File:
        with self._lock:
            file = self._files.get(file_id)
        if file is None:
            raise NotFoundError(
                f"file {file_id} has not been listed in this picker; open its folder or search"
            )
        return file

    def folders(self) -> list[dict[str, Any]]:
        return [folder_json(node) for node in folder_tree(self._service.folders())]

    def files(self, folder_id: int) -> list[dict[str, Any]]:
        return self._remember(self._service.files(folder_id))

    def search(self, query: str) -> list[dict[str, Any]]:
        return self._remember(self._service.search(query))

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
        file = self.known_file(file_id)
        if size == "thumb":
            url = file.thumb_preview or file.small_preview
        else:
            url = file.small_preview or file.thumb_preview
        if not url:
            raise NotFoundError(f"file {file_id} has no preview image")
        data = self._service.download(url, max_bytes=PREVIEW_MAX_BYTES)
        return data, probe(data).mime

    def shortcode(self, request: Mapping[str, Any]) -> str:
        file_id = request.get("file")
        if not isinstance(file_id, int) or isinstance(file_id, bool):
            raise SelectionError(f"file must be a file id, got {file_id!r}")
        file = self.known_file(file_id)
        return shortcode_for(request, file, [] if file.is_video else self.formats())

    def embed(self, file_id: int, embed: str) -> str:
        """The HTML a built page would contain for this video with this embed."""
        file = self.known_file(file_id)
        if not file.is_video:
            raise SelectionError(f"file {file_id} is an image; only a video has an embed")
        text = shortcode_for({"embed": embed}, file, [])
        return self._render_embed(text, file)


def folder_json(node: FolderNode) -> dict[str, Any]:
    """A folder and its subfolders as the picker's page reads them."""
    return {
        "id": node.folder.id,
        "name": node.folder.name,
        "archived": node.folder.archived,
        "separator": node.folder.separator,
        "children": [folder_json(child) for child in node.children],
    }
