"""The rich-text feature ``media``, server side: ``<embed embedtype="media_image" id="101"
format="thumb" alt="..."/>`` (or ``embedtype="media_video"``) in stored rich text.

``|richtext`` expands each embed on the same path as the Jinja functions, the Django tags
and the blocks (``rendering.render_built``): exactly what the shortcode with the same values
renders. In the editor (Draftail) an embed is an atomic ``MEDIA`` entity whose data are the
embed's attributes; the admin chooser's toolbar button creates such entities.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from draftjs_exporter.dom import DOM
from markupsafe import Markup
from wagtail.admin.rich_text.converters.contentstate_models import Entity
from wagtail.admin.rich_text.converters.html_to_contentstate import (
    AtomicBlockEntityElementHandler,
)
from wagtail.rich_text import EmbedHandler
from wagtail.rich_text.rewriters import EmbedRewriter

from ..language import IMAGE, VIDEO, Location
from ..language.model import KEYS
from .rendering import render_built

__all__ = ["ENTITY", "FEATURE", "embed_values", "iter_embeds", "register", "stored_attributes"]

FEATURE = "media"
ENTITY = "MEDIA"  # the Draftail entity type
_STORED = {"embedtype", "id", "format", *KEYS[IMAGE], *KEYS[VIDEO]}


def embed_values(attrs: Mapping[str, Any]) -> tuple[str, Any, Any, list[tuple[str, Any]]]:
    """An embed's (shortcode name, file id, format, options); an empty format is the default."""
    options = [(k, v) for k, v in attrs.items() if k not in ("embedtype", "id", "format")]
    return attrs.get("embedtype", IMAGE), attrs.get("id"), attrs.get("format") or None, options


def _expand(attrs: dict[str, Any]) -> Markup:
    name, file_id, format, options = embed_values(attrs)
    return render_built(name, file_id, format, options, Location("<rich text>", 0, 0))


class MediaImageEmbedHandler(EmbedHandler):  # type: ignore[misc]
    identifier = IMAGE

    @staticmethod
    def expand_db_attributes(attrs: dict[str, Any]) -> str:
        return str(_expand(attrs))


class MediaVideoEmbedHandler(EmbedHandler):  # type: ignore[misc]
    identifier = VIDEO

    @staticmethod
    def expand_db_attributes(attrs: dict[str, Any]) -> str:
        return str(_expand(attrs))


def stored_attributes(props: Mapping[str, Any]) -> dict[str, str]:
    """The attributes an entity's data are stored with; anything else (a preview's URL, a
    label the editor shows) is dropped."""
    return {k: str(v) for k, v in props.items() if k in _STORED and v is not None}


def _media_entity(props: Mapping[str, Any]) -> Any:
    return DOM.create_element("embed", stored_attributes(props))


class MediaElementHandler(AtomicBlockEntityElementHandler):  # type: ignore[misc]
    """A stored embed as the editor's ``MEDIA`` entity."""

    def create_entity(self, name: str, attrs: dict[str, Any], state: Any, contentstate: Any) -> Any:
        return Entity(ENTITY, "IMMUTABLE", stored_attributes(attrs))


def register(features: Any) -> None:
    """Register the embed types and the ``media`` feature's contentstate conversion."""
    features.register_embed_type(MediaImageEmbedHandler)
    features.register_embed_type(MediaVideoEmbedHandler)
    selectors = {f'embed[embedtype="{name}"]': MediaElementHandler() for name in (IMAGE, VIDEO)}
    rule = {
        "from_database_format": selectors,
        "to_database_format": {"entity_decorators": {ENTITY: _media_entity}},
    }
    features.register_converter_rule("contentstate", FEATURE, rule)


def iter_embeds(html: str) -> Iterator[dict[str, Any]]:
    """The attributes of every media embed in stored rich text (no rendering)."""
    tags = EmbedRewriter({}).extract_tags(html)
    for name in (IMAGE, VIDEO):
        for tag in tags.get(name, ()):
            yield tag.attrs
