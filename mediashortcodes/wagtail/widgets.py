"""The widget that edits a file id (``MediaFileField``, ``MediaImageBlock``'s file).

``MediaFileChooser(kind="image"|"video")``: Wagtail's chooser widget over the admin chooser
(``chooser.py``), which offers only files of that kind; its value is the file id as text,
read back by an ``IntegerField``. It shows the chosen file's name and preview from the
cache's record, without asking the service while the edit page renders.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from django import forms
from django.urls import reverse
from wagtail.admin.staticfiles import versioned_static
from wagtail.admin.telepath import register
from wagtail.admin.widgets import BaseChooser, BaseChooserAdapter

__all__ = ["KINDS", "MediaFileChooser", "check_kind"]

KINDS = ("image", "video")
CHOOSER_JS = "mediashortcodes/chooser/chooser.js"
CHOOSER_CSS = "mediashortcodes/chooser/chooser.css"


def check_kind(kind: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"kind must be 'image' or 'video', got {kind!r}")
    return kind


class MediaFileChooser(BaseChooser):  # type: ignore[misc]
    """Edits the id of a file of one ``kind`` ("image" or "video")."""

    show_edit_link = False
    js_constructor = "MediaShortcodesFileChooser"

    def __init__(self, kind: str = "image", attrs: dict[str, Any] | None = None) -> None:
        self.kind = check_kind(kind)
        self.icon = "image" if kind == "image" else "media"
        super().__init__(
            attrs={"data-media-kind": kind, **(attrs or {})},
            choose_one_text=f"Choose {'an image' if kind == 'image' else 'a video'}",
            choose_another_text=f"Choose another {kind}",
            clear_choice_text="Clear choice",
        )

    def get_chooser_modal_url(self) -> str:
        return reverse("mediashortcodes_chooser:choose")

    def get_instance(self, value: Any) -> int | None:
        text = str(value).strip() if value not in (None, "") else ""
        return int(text) if text.isdigit() else None

    def get_value_data(self, value: Any) -> dict[str, Any] | None:
        file_id = self.get_instance(value)
        if file_id is None:
            return None
        from .chooser import chosen_data
        from .chooser_service import chooser_browser

        try:
            file = chooser_browser().service.cached_file(file_id)
        except Exception:  # a label only: the field still shows the id
            file = None
        if file is None:
            return {"id": file_id, "title": f"File {file_id}", "preview": "", "kind": self.kind}
        return chosen_data(file)

    @property
    def base_js_init_options(self) -> dict[str, Any]:
        return {**super().base_js_init_options, "accept": self.kind}

    @cached_property
    def media(self) -> forms.Media:
        return forms.Media(
            js=[
                versioned_static("wagtailadmin/js/chooser-widget.js"),
                versioned_static(CHOOSER_JS),
            ],
            css={"all": [versioned_static(CHOOSER_CSS)]},
        )


class MediaFileChooserAdapter(BaseChooserAdapter):  # type: ignore[misc]
    """How StreamField blocks build the widget in the browser (telepath)."""

    js_constructor = "mediashortcodes.widgets.MediaFileChooser"

    @cached_property
    def media(self) -> forms.Media:
        return forms.Media(
            js=[
                versioned_static("wagtailadmin/js/chooser-widget.js"),
                versioned_static("wagtailadmin/js/chooser-widget-telepath.js"),
                versioned_static(CHOOSER_JS),
            ],
            css={"all": [versioned_static(CHOOSER_CSS)]},
        )


register(MediaFileChooserAdapter(), MediaFileChooser)
