"""The picker's side of the service: the shared browsing core (``browse.py``, also behind
the Wagtail chooser) plus what only the picker does: shortcodes and video embeds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ..records import File
from .browse import PREVIEW_MAX_BYTES, PREVIEW_SIZES, Browser, Service, file_summary, folder_json
from .selection import SelectionError, shortcode_for

__all__ = [
    "PREVIEW_MAX_BYTES",
    "PREVIEW_SIZES",
    "EmbedRenderer",
    "PickerBackend",
    "Service",
    "file_summary",
    "folder_json",
]


class EmbedRenderer(Protocol):
    """Renders a video shortcode into the HTML a built page would contain."""

    def __call__(self, shortcode_text: str, file: File) -> str: ...


class PickerBackend(Browser):
    """Thread-safe: the HTTP server calls it from one thread per connection."""

    def __init__(self, service: Service, *, embed_renderer: EmbedRenderer) -> None:
        super().__init__(service)
        self._render_embed = embed_renderer

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
