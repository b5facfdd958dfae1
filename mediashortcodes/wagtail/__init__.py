"""Wagtail and Django: shortcodes in Jinja2 templates and rich text, live and exported.

::

    INSTALLED_APPS += ["mediashortcodes.wagtail"]
    TEMPLATES = [{"BACKEND": "django.template.backends.jinja2.Jinja2",
                  "OPTIONS": {"extensions": ["mediashortcodes.jinja.MediaShortcodesExtension"]}}]
    MEDIASHORTCODES = {"config": BASE_DIR / "mediashortcodes.toml"}
    BAKERY_VIEWS = ["mediashortcodes.wagtail.BakeryPagesView"]     # static export

See docs/wagtail.md. ``BakeryPagesView`` is imported on first use: django-bakery's views
need the app registry, which is not ready while Django imports this app.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .export import BakeryPagesView

__all__ = ["BakeryPagesView"]


def __getattr__(name: str) -> Any:
    if name == "BakeryPagesView":
        from .export import BakeryPagesView

        return BakeryPagesView
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
