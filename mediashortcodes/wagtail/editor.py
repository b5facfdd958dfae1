"""The rich-text feature ``media`` in Draftail: the toolbar button (``draftail.js``) opens
the admin chooser and inserts an atomic ``MEDIA`` entity, stored as
``<embed embedtype="media_image" id="101" format="thumb"/>`` (or ``media_video``). Rendering
those embeds on pages is ``richtext.py``'s job; this module only converts them for the editor.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from draftjs_exporter.dom import DOM
from wagtail.admin.rich_text.converters.contentstate_models import Entity
from wagtail.admin.rich_text.converters.html_to_contentstate import (
    AtomicBlockEntityElementHandler,
)
from wagtail.admin.rich_text.editors.draftail import features as draftail_features
from wagtail.admin.staticfiles import versioned_static

from .widgets import CHOOSER_CSS, CHOOSER_JS

FEATURE = "media"
ENTITY = "MEDIA"
EMBED_TYPES = {"image": "media_image", "video": "media_video"}


class MediaEmbedHandler(AtomicBlockEntityElementHandler):  # type: ignore[misc]
    """``<embed embedtype="media_image|media_video" ...>`` from the database -> an entity.
    The editor shows the id and the preview; no service call while the editor loads."""

    def create_entity(self, name: str, attrs: dict[str, str], state: Any, contentstate: Any) -> Any:
        kind = "video" if attrs.get("embedtype") == EMBED_TYPES["video"] else "image"
        file_id = attrs.get("id", "")
        preview = (
            reverse("mediashortcodes_chooser:preview", args=[int(file_id), "thumb"])
            if file_id.isdigit()
            else ""
        )
        data = {"id": file_id, "kind": kind, "format": attrs.get("format", ""), "preview": preview}
        return Entity(ENTITY, "IMMUTABLE", data)


def media_entity(props: dict[str, Any]) -> Any:
    """The entity -> the stored embed (only what the shortcode needs: id and format)."""
    kind = "video" if props.get("kind") == "video" else "image"
    attrs = {"embedtype": EMBED_TYPES[kind], "id": props.get("id")}
    if props.get("format") and kind == "image":
        attrs["format"] = props["format"]
    return DOM.create_element("embed", attrs)


def register_media_feature(features: Any) -> None:
    control = {
        "type": ENTITY,
        "icon": "image",
        "description": "Media image or video",
        "chooserUrl": reverse("mediashortcodes_chooser:choose"),
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
    handler = MediaEmbedHandler()
    features.register_converter_rule(
        "contentstate",
        FEATURE,
        {
            "from_database_format": {
                f'embed[embedtype="{embedtype}"]': handler for embedtype in EMBED_TYPES.values()
            },
            "to_database_format": {"entity_decorators": {ENTITY: media_entity}},
        },
    )
