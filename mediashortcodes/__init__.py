"""Shortcodes for images and videos kept in the Media Asset Service.

Authors write ``<% media_image 123 %>`` or ``<% media_video 456 %>``; at build time the
package resolves them against the service, downloads images into the site, renders video
embeds and reports on which page each file is used.

The public names below are imported on first use, so ``import mediashortcodes`` (and the
CLI's start-up) stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import Any

try:
    __version__ = version("mediashortcodes")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"

_PUBLIC = {
    "shortcodes_plugin": "markdown",
    "MediaShortcodesExtension": "jinja",
    "parse": "shortcodes",
    "Shortcode": "shortcodes",
    "build_site": "site",
    "BuildOptions": "site",
    "BuildResult": "site",
    "Config": "config",
    "load_config": "config",
    "AsyncClient": "api",
    "Client": "api",
    "Manifest": "usage",
    "report_site": "reporting",
    "MediaShortcodesError": "errors",
    "ConfigError": "errors",
    "ContentError": "errors",
    "ServiceError": "errors",
    "Problem": "errors",
}
_ALIASES = {"load_config": "load"}

__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'mediashortcodes' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), _ALIASES.get(name, name))
    globals()[name] = value
    return value
