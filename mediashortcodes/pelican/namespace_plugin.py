"""``PLUGINS = ["mediashortcodes"]``: Pelican imports ``pelican.plugins.mediashortcodes``; the
wheel installs this file there (see pyproject.toml)."""

from mediashortcodes.pelican import register

__all__ = ["register"]
