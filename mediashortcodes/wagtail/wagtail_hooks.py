"""Wagtail hooks of the integration (Wagtail imports this module at start-up)."""

from __future__ import annotations

from typing import Any

from wagtail import hooks

from . import richtext

# -- rich text, server side: the media embeds and their Draftail conversion (richtext.py) ----


@hooks.register("register_rich_text_features")
def register_media_embeds(features: Any) -> None:
    richtext.register(features)
