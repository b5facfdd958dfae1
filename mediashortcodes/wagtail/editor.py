"""The rich-text feature ``media`` in Draftail, the editor's side: the toolbar button
(``draftail.js``) opens the admin chooser and inserts an atomic ``MEDIA`` entity whose data
are the embed's attributes (``embedtype`` ``media_image`` or ``media_video``, ``id``);
``richtext.py`` converts it to and from the stored ``<embed .../>`` and renders it.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from wagtail.admin.rich_text.editors.draftail import features as draftail_features
from wagtail.admin.staticfiles import versioned_static

from .richtext import ENTITY, FEATURE
from .widgets import CHOOSER_CSS, CHOOSER_JS


def register_media_button(features: Any) -> None:
    preview = reverse("mediashortcodes_chooser:preview", args=[0, "thumb"])
    control = {
        "type": ENTITY,
        "icon": "image",
        "description": "Media image or video",
        "chooserUrl": reverse("mediashortcodes_chooser:choose"),
        "previewUrl": preview.replace("/0/", "/{id}/"),  # the editor shows a stored embed's
    }
    features.register_editor_plugin(
        "draftail",
        FEATURE,
        draftail_features.EntityFeature(
            control,
            js=[
                versioned_static("wagtailadmin/js/modal-workflow.js"),
                versioned_static(CHOOSER_JS),
                versioned_static("mediashortcodes/chooser/draftail.js"),
            ],
            css={"all": [versioned_static(CHOOSER_CSS)]},
        ),
    )
