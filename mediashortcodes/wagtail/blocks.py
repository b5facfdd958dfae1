"""StreamField blocks: ``MediaImageBlock`` and ``MediaVideoBlock``.

Each renders exactly what the shortcode with the same values renders (the same path as
the Jinja functions and the Django tags: ``rendering.render_built``), through the renderer
of the render in progress, so the static export records and publishes their files.
A ``Meta.template`` set by a subclass or in the block's options takes over as usual.
"""

from __future__ import annotations

from typing import Any

from django import forms
from markupsafe import Markup
from wagtail import blocks

from ..language import IMAGE, VIDEO, Location
from .rendering import render_built
from .widgets import MediaFileChooser, check_kind

__all__ = ["MediaFileBlock", "MediaImageBlock", "MediaVideoBlock", "shortcode_values"]

CROP = ("w", "h", "sw", "sh", "x1", "x2", "y1", "y2")


class MediaFileBlock(blocks.FieldBlock):  # type: ignore[misc]
    """A file id, edited with ``MediaFileChooser`` (``kind`` "image" or "video")."""

    def __init__(
        self,
        kind: str = "image",
        required: bool = True,
        help_text: str | None = None,
        **kwargs: Any,
    ) -> None:
        self.kind = check_kind(kind)
        self.field = forms.IntegerField(
            required=required,
            min_value=0,
            help_text=help_text,
            widget=MediaFileChooser(kind=kind),
        )
        super().__init__(**kwargs)

    def get_form_state(self, value: Any) -> Any:
        # The chooser widget starts from the chosen file's data (as Wagtail's ChooserBlock
        # gives it): with the bare id, a saved page's StreamField failed to load in the editor.
        return self.field.widget.get_value_data(value)

    class Meta:
        icon = "image"


def _choice(values: tuple[str, ...], help_text: str) -> blocks.ChoiceBlock:
    return blocks.ChoiceBlock(choices=[(v, v) for v in values], required=False, help_text=help_text)


class CropBlock(blocks.StructBlock):  # type: ignore[misc]
    """A custom crop (format -1): w, h, x1, x2, y1, y2 required together; sw, sh optional."""

    w = blocks.IntegerBlock(required=False, min_value=1)
    h = blocks.IntegerBlock(required=False, min_value=1)
    sw = blocks.IntegerBlock(required=False, min_value=1)
    sh = blocks.IntegerBlock(required=False, min_value=1)
    x1 = blocks.IntegerBlock(required=False, min_value=0)
    x2 = blocks.IntegerBlock(required=False, min_value=0)
    y1 = blocks.IntegerBlock(required=False, min_value=0)
    y2 = blocks.IntegerBlock(required=False, min_value=0)
    stretch = blocks.BooleanBlock(required=False)

    class Meta:
        collapsed = True
        label = "Custom crop"


class MediaImageBlock(blocks.StructBlock):  # type: ignore[misc]
    """``<% media_image file format alt=... %>`` as a block."""

    file = MediaFileBlock(kind="image")
    format = blocks.CharBlock(
        required=False, help_text="original, a format's name or id; empty: the default format"
    )
    alt = blocks.CharBlock(required=False, help_text="Empty: the file's alt text")
    decorative = blocks.BooleanBlock(required=False, help_text='No alt text (alt="")')
    caption = blocks.CharBlock(required=False)
    title = blocks.CharBlock(required=False)
    css_class = blocks.CharBlock(required=False, label="Class")
    loading = _choice(("lazy", "eager"), "Empty: lazy")
    widths = blocks.CharBlock(required=False, help_text="e.g. 480,960,1440, or auto")
    sizes = blocks.CharBlock(required=False)
    formats = blocks.MultipleChoiceBlock(
        choices=[("avif", "AVIF"), ("webp", "WebP")],
        required=False,
        help_text="Empty: [images] formats",
    )
    priority = blocks.BooleanBlock(
        required=False, help_text="The page's largest image above the fold: loaded first"
    )
    placeholder = _choice(("none", "color", "blur"), "Empty: [images] placeholder")
    crop = CropBlock()

    class Meta:
        icon = "image"
        label = "Media image"

    def render_basic(self, value: Any, context: Any = None) -> Markup:
        return render_built(IMAGE, *shortcode_values(IMAGE, value), _where(self, context))


class MediaVideoBlock(blocks.StructBlock):  # type: ignore[misc]
    """``<% media_video file embed=... %>`` as a block."""

    file = MediaFileBlock(kind="video")
    embed = _choice(("iframe", "script"), "Empty: [video] embed")
    title = blocks.CharBlock(required=False, help_text="Empty: the file's name")
    load = _choice(("eager", "click"), "Empty: [video] load")
    lang = blocks.CharBlock(required=False, help_text="Empty: [video] language")

    class Meta:
        icon = "media"
        label = "Media video"

    def render_basic(self, value: Any, context: Any = None) -> Markup:
        return render_built(VIDEO, *shortcode_values(VIDEO, value), _where(self, context))


def _text(value: Any) -> str | None:
    """A block's optional value as a shortcode value: empty means not given."""
    return None if value is None or value == "" else str(value)


def shortcode_values(name: str, value: Any) -> tuple[Any, str | None, list[tuple[str, Any]]]:
    """A block value's (file id, format, options), as the equivalent shortcode has them."""
    if name == VIDEO:
        keys = ("embed", "title", "lang", "load")
        return value.get("file"), None, [(k, _text(value.get(k))) for k in keys]
    alt = "" if value.get("decorative") else _text(value.get("alt"))
    options: list[tuple[str, Any]] = [("alt", alt)]
    options += [(k, _text(value.get(k))) for k in ("title", "caption", "loading")]
    options += [("class", _text(value.get("css_class")))]
    options += [(k, _text(value.get(k))) for k in ("widths", "sizes", "placeholder")]
    options += [("formats", ",".join(value.get("formats") or ()) or None)]
    options += [("priority", "true" if value.get("priority") else None)]
    crop = value.get("crop") or {}
    options += [(k, _text(crop.get(k))) for k in CROP]
    options += [("stretch", "true" if crop.get("stretch") else None)]
    return value.get("file"), _text(value.get("format")), options


def _where(block: blocks.Block, context: Any) -> Location:
    """Where a problem of this block is shown: the block and, when known, its page."""
    page = context.get("page") if hasattr(context, "get") else None
    on = f" on {page.url_path}" if getattr(page, "url_path", None) else ""
    return Location(f"<{block.name or 'media'} block{on}>", 0, 0)
