"""``MediaFileField(kind="image"|"video")``: a page field holding a file id.

An integer column; in the admin a ``FieldPanel`` edits it with ``MediaFileChooser``.
Templates render it like any id: ``{% media_image page.hero "thumb" %}``.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.db import models

from .widgets import MediaFileChooser, check_kind

__all__ = ["MediaFileField"]


class MediaFileField(models.PositiveBigIntegerField):  # type: ignore[type-arg]
    """The id of an image (``kind="image"``, the default) or a video (``kind="video"``)."""

    description = "The id of a Media Asset Service file"

    def __init__(self, *args: Any, kind: str = "image", **kwargs: Any) -> None:
        self.kind = check_kind(kind)
        super().__init__(*args, **kwargs)

    def deconstruct(self) -> Any:
        name, path, args, kwargs = super().deconstruct()
        kwargs["kind"] = self.kind
        return name, path, args, kwargs

    def formfield(self, **kwargs: Any) -> Any:
        # Wagtail's admin passes no widget for a field it does not know: ours is used.
        defaults: dict[str, Any] = {
            "form_class": forms.IntegerField,
            "widget": MediaFileChooser(kind=self.kind),
        }
        return super().formfield(**{**defaults, **kwargs})
