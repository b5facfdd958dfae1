"""The Django app: wires the Jinja2 engines at start-up and after settings change."""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.core.signals import setting_changed

from . import rendering
from .settings import SETTING

# Settings whose change (override_settings in tests) makes Django rebuild its engines.
_ENGINE_SETTINGS = frozenset({"TEMPLATES", "DEBUG", "INSTALLED_APPS"})
_RENDERER_SETTINGS = frozenset({SETTING, "BASE_DIR", "MEDIA_ROOT", "MEDIA_URL"})


class MediaShortcodesConfig(AppConfig):
    name = "mediashortcodes.wagtail"
    label = "mediashortcodes"
    verbose_name = "Media shortcodes"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Django's own receiver rebuilds the template engines when settings change; it is
        # registered when django.test.signals is imported. Importing it first puts ours
        # after it, so ours wires the new engines, not the discarded ones.
        import django.test.signals  # noqa: F401

        setting_changed.connect(_settings_changed, dispatch_uid="mediashortcodes.wagtail")
        rendering.install()
        from . import publishing  # the models are ready now

        publishing.connect()


def _settings_changed(*, setting: str, **kwargs: Any) -> None:
    if setting in _RENDERER_SETTINGS:
        rendering.reset()
    if setting in _ENGINE_SETTINGS:
        rendering.install()
        from . import publishing  # the models are ready now

        publishing.connect()
