"""The widget that edits a file id (``MediaFileField``, ``MediaImageBlock``'s file).

``MediaFileChooser(kind="image"|"video")``: a plain number input until the admin chooser
replaces its rendering; its value is the file id as text, read back by an ``IntegerField``.
"""

from __future__ import annotations

from typing import Any

from django import forms

__all__ = ["KINDS", "MediaFileChooser", "check_kind"]

KINDS = ("image", "video")


def check_kind(kind: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"kind must be 'image' or 'video', got {kind!r}")
    return kind


class MediaFileChooser(forms.NumberInput):
    """Edits the id of a file of one ``kind`` ("image" or "video")."""

    def __init__(self, kind: str = "image", attrs: dict[str, Any] | None = None) -> None:
        self.kind = check_kind(kind)
        super().__init__(attrs={"min": 0, "data-media-kind": kind, **(attrs or {})})
