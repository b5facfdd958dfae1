"""Shortcodes for images and videos kept in the Media Asset Service.

Authors write ``<% media_image 123 %>`` or ``<% media_video 456 %>``; a build resolves them
against the service, downloads images into the site, renders video embeds and reports which
page uses each file. The public names are imported on first use, so importing is cheap.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_PUBLIC = {
    "shortcodes_plugin": "markdown",
    "MediaShortcodesExtension": "jinja",
    "parse": "language",
    "Shortcode": "language",
    "build_site": "site.builder",
    "BuildOptions": "site.builder",
    "BuildResult": "site.builder",
    "Config": "config",
    "load_config": "config",
    "AsyncClient": "client.async_client",
    "Client": "client.sync_client",
    "Manifest": "usage.manifest",
    "report_site": "usage.reporting",
    "MediaShortcodesError": "errors",
    "ConfigError": "errors",
    "ContentError": "errors",
    "ServiceError": "errors",
    "Problem": "errors",
}
_ALIASES = {"load_config": "load"}

__all__ = ["__version__", *_PUBLIC]


def _installed_version() -> str:
    # importlib.metadata scans the installed distributions (tens of milliseconds).
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mediashortcodes")
    except PackageNotFoundError:  # running from a source tree that is not installed
        return "0.0.0"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        value: Any = _installed_version()
        globals()[name] = value
        return value
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'mediashortcodes' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), _ALIASES.get(name, name))
    globals()[name] = value
    return value
