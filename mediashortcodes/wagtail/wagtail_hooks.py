"""Wagtail hooks of the integration (Wagtail imports this module when the admin starts)."""

from __future__ import annotations

from typing import Any

from django.urls import include, path
from wagtail import hooks

# -- The editors' chooser and the rich-text feature "media" (issue 31, items 2 and 3) -------


@hooks.register("register_admin_urls")
def register_chooser_urls() -> list[Any]:
    from . import chooser

    return [path("mediashortcodes/chooser/", include(chooser, namespace=chooser.app_name))]


@hooks.register("register_rich_text_features")
def register_media_rich_text_feature(features: Any) -> None:
    from .editor import register_media_feature

    register_media_feature(features)
