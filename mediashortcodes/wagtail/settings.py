"""The integration's settings, read from Django's settings.

``MEDIASHORTCODES = {"config": BASE_DIR / "mediashortcodes.toml"}`` points at the TOML file
(or the folder that holds it); any other mapping is the TOML's sections written as a dict.
Relative paths in it (templates, cache, usage state) are relative to ``BASE_DIR``, or to
the TOML file's folder. Credentials always come from the environment.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import config as config_module
from ..config import CONFIG_NAME, Config
from ..errors import ConfigError
from ..site.builder import media_url_prefix
from ..usage.manifest import page_url
from .live import Publication

SETTING = "MEDIASHORTCODES"
REPORT_ON_PUBLISH = "report_on_publish"

__all__ = ["SETTING", "IntegrationSettings", "read_settings"]


@dataclass(frozen=True)
class IntegrationSettings:
    config: Config
    # True when [site] base_url was given: the static export's public address. Without
    # it, usage is reported under Wagtail's own URL of each page.
    base_url_set: bool
    media_root: str
    media_url: str
    # Report each page's files when it is published (publishing.py), not from an export.
    report_on_publish: bool = False

    def live_publication(self) -> Publication:
        """Where a live request stores downloaded images: under MEDIA_ROOT, served at MEDIA_URL."""
        if not self.media_root:
            raise ConfigError(
                "MEDIA_ROOT is not set: live requests and previews store downloaded images "
                "under it; set MEDIA_ROOT (and MEDIA_URL) in the Django settings"
            )
        if not self.media_url:
            raise ConfigError(
                "MEDIA_URL is not set: images downloaded for live requests are served from "
                'it; set MEDIA_URL (e.g. "/media/") in the Django settings'
            )
        return Publication.under(Path(self.media_root), self.media_url, self.config.site.media_dir)

    def export_publication(self, build_dir: Path) -> Publication:
        """Where a static export puts images: ``BUILD_DIR/<media_dir>/``, as the builder does."""
        site = self.config.site
        return Publication(
            build_dir / site.media_dir.strip("/"), media_url_prefix(site.base_url, site.media_dir)
        )

    def page_url(self, root_url: str, path: str) -> str:
        """The URL a page is reported under: ``[site] base_url`` + its path when that is set,
        else Wagtail's full URL of the page (its site's root URL + its path)."""
        if self.base_url_set:
            return page_url(self.config.site.base_url, path)
        return page_url(root_url, path)


def read_settings(settings: Any = None) -> IntegrationSettings:
    """Read MEDIASHORTCODES, BASE_DIR, MEDIA_ROOT and MEDIA_URL from Django's settings."""
    if settings is None:
        from django.conf import settings
    base_dir = getattr(settings, "BASE_DIR", None)
    root = Path(base_dir) if base_dir else Path.cwd()
    value = getattr(settings, SETTING, None)
    on_publish = False
    if isinstance(value, Mapping) and REPORT_ON_PUBLISH in value:
        on_publish = value[REPORT_ON_PUBLISH]
        if not isinstance(on_publish, bool):
            raise ConfigError(
                f"settings.{SETTING}['{REPORT_ON_PUBLISH}'] must be True or False, "
                f"got {on_publish!r}"
            )
        value = {k: v for k, v in value.items() if k != REPORT_ON_PUBLISH}
    config, base_url_set = _config(value, root)
    return IntegrationSettings(
        config=config,
        base_url_set=base_url_set,
        media_root=str(getattr(settings, "MEDIA_ROOT", "") or ""),
        media_url=str(getattr(settings, "MEDIA_URL", "") or ""),
        report_on_publish=on_publish,
    )


def _config(value: Any, root: Path) -> tuple[Config, bool]:
    if value is None:
        config = config_module.load(root)
        return config, _file_sets_base_url(config)
    if not isinstance(value, Mapping):
        raise ConfigError(
            f"settings.{SETTING} must be a dict: {{'config': BASE_DIR / '{CONFIG_NAME}'}} "
            f"or the TOML's sections, got {type(value).__name__}"
        )
    if "config" in value:
        if len(value) > 1:
            others = ", ".join(sorted(str(k) for k in value if k != "config"))
            raise ConfigError(
                f"settings.{SETTING}: give either 'config' (the path of {CONFIG_NAME}) or the "
                f"TOML's sections, not both (also found: {others})"
            )
        path = value["config"]
        if not isinstance(path, (str, Path)):
            raise ConfigError(
                f"settings.{SETTING}['config'] must be the path of {CONFIG_NAME}, got {path!r}"
            )
        path = Path(path)
        if not path.is_dir() and not path.is_file():
            raise ConfigError(
                f"settings.{SETTING}['config']: {path} does not exist; create it or fix the path"
            )
        config = config_module.load(path)
        return config, _file_sets_base_url(config)
    config = config_module.from_mapping(value, root, source=f"settings.{SETTING}")
    site = value.get("site")
    return config, isinstance(site, Mapping) and "base_url" in site


def _file_sets_base_url(config: Config) -> bool:
    path = Path(config.source)
    if not path.is_file():
        return False
    # load() has already parsed this file, so it is valid TOML.
    site = tomllib.loads(path.read_text(encoding="utf-8")).get("site")
    return isinstance(site, dict) and "base_url" in site
