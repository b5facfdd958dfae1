"""Wagtail hooks of the integration (Wagtail imports this module at start-up)."""

from __future__ import annotations

from typing import Any

from django.urls import include, path
from wagtail import hooks

from . import richtext

# -- rich text, server side: the media embeds and their Draftail conversion (richtext.py) ----


@hooks.register("register_rich_text_features")
def register_media_embeds(features: Any) -> None:
    richtext.register(features)


# -- The editors' chooser and the rich-text button of "media" (issue 31, items 2 and 3) -----


@hooks.register("register_admin_urls")
def register_chooser_urls() -> list[Any]:
    from . import chooser

    return [path("mediashortcodes/chooser/", include(chooser, namespace=chooser.app_name))]


@hooks.register("register_rich_text_features")
def register_media_rich_text_button(features: Any) -> None:
    from .editor import register_media_button

    register_media_button(features)
