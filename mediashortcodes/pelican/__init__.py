"""The Pelican plugin: `pip install "mediashortcodes[pelican]"`, `PLUGINS = ["mediashortcodes"]`.

Pelican imports ``pelican.plugins.mediashortcodes`` (installed by the wheel), which calls
:func:`register`. Pelican reads every article and page before it writes anything; the
plugin follows that:

- ``initialized``: reads ``MEDIASHORTCODES`` (``{"config": "mediashortcodes.toml"}`` or the
  TOML's sections) and ``SITEURL``, and adds the Python-Markdown extension to ``MARKDOWN``.
- ``readers_init``: Markdown files are read by a reader that first names the file to the
  extension (Pelican's metadata lines are part of the text, so lines count from 1).
- ``content_object_init``: notes where each article or page is published.
- ``all_generators_finalized``, once everything is read: resolves every shortcode at once; a
  problem anywhere stops the build, listing all of them, before any page is written; else
  the markers in every content and summary become HTML.
- ``finalized``: publishes the media under ``OUTPUT_PATH/<media_dir>/`` and writes
  ``media-usage.json`` with page URLs from ``SITEURL``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from ..config import Config
from ..errors import ContentError, MediaShortcodesError, Problem
from ..language import Shortcode
from ..site.hosted import host_config, resolved_for_host
from ..site.pages import display_path
from ..site.pipeline import Pipeline, Resolved
from ..usage.manifest import MANIFEST_NAME

__all__ = ["project_config", "register"]

log = logging.getLogger(__name__)

SETTING = "MEDIASHORTCODES"


class _State:
    """The plugin's settings, and the current run's build and content objects (``pelican
    --autoreload`` runs again in the same process)."""

    def __init__(self) -> None:
        self.config: Config | None = None
        self.build: Pipeline | None = None
        self.resolved: Resolved | None = None
        self.extension: Any = None
        self.contents: list[tuple[Any, Any]] = []  # (content object, its page entry)
        self.entries: dict[str, Any] = {}  # source path -> page entry
        self.site_url = ""

    def begin_run(self) -> None:
        assert self.config is not None
        self.build = Pipeline(self.config)
        self.resolved = None
        self.contents, self.entries = [], {}

    # The extension's renderer: the current run's markers.
    def render(self, shortcode: Shortcode) -> str:
        assert self.build is not None
        return self.build.renderer.render(shortcode)

    def problem(self, problem: Problem) -> str:
        assert self.build is not None
        return self.build.renderer.problem(problem)


_state = _State()


def register() -> None:
    from pelican import signals

    signals.initialized.connect(initialized)
    signals.get_generators.connect(get_generators)
    signals.readers_init.connect(readers_init)
    signals.content_object_init.connect(content_object_init)
    signals.all_generators_finalized.connect(all_generators_finalized)
    signals.finalized.connect(finalized)


class PelicanPluginError(Exception):
    """Stops the Pelican build; Pelican prints the message and exits 1."""


def _fail(message: str) -> Exception:
    return PelicanPluginError(message)


def initialized(pelican: Any) -> None:
    from ..pymarkdown import MediaShortcodesExtension

    settings = pelican.settings
    value = settings.get(SETTING) or {}
    if not isinstance(value, dict):
        raise _fail(f"{SETTING} must be a dict: {{'config': 'mediashortcodes.toml'}} or sections")
    root = Path.cwd()  # where pelican runs, beside pelicanconf.py
    site_url = str(settings.get("SITEURL") or "")
    _state.__init__()  # type: ignore[misc]
    try:
        config = host_config(
            value,
            root,
            f"pelicanconf.py ({SETTING})",
            site_url=site_url,
            site_url_key="SITEURL",
            require_site_url=False,
        )
    except MediaShortcodesError as exc:
        raise _fail(f"mediashortcodes: {exc}") from None
    if not site_url and config.usage.enabled:
        log.warning(
            "mediashortcodes: SITEURL is empty, so no media-usage.json is written (it lists "
            "pages by their public address: set SITEURL, as publishconf.py usually does)"
        )
    _state.site_url = site_url
    _state.config = config
    _state.extension = MediaShortcodesExtension(renderer=_state)
    markdown = settings.setdefault("MARKDOWN", {})
    markdown.setdefault("extensions", []).append(_state.extension)
    # Cached content would hold another run's markers.
    settings["CACHE_CONTENT"] = False
    settings["LOAD_CONTENT_CACHE"] = False


def get_generators(pelican: Any) -> None:
    """A run begins: a build of its own."""
    _state.begin_run()


def readers_init(readers: Any) -> None:
    from pelican.readers import MarkdownReader

    class NamingReader(MarkdownReader):  # type: ignore[misc, valid-type]
        def read(self, source_path: str) -> Any:
            build = _state.build
            if build is not None:
                shown = display_path(Path(source_path))
                _state.extension.set_document(shown, 1)
                _state.entries[source_path] = build.begin_page(shown, "", "")
            return super().read(source_path)

    for extension in MarkdownReader.file_extensions:
        if readers.reader_classes.get(extension) is MarkdownReader:
            readers.reader_classes[extension] = NamingReader


def content_object_init(instance: Any) -> None:
    entry = _state.entries.get(getattr(instance, "source_path", "") or "")
    if entry is None:
        return
    entry.output_file = str(getattr(instance, "save_as", "") or "")
    entry.url = str(getattr(instance, "url", "") or "")
    _state.contents.append((instance, entry))


def all_generators_finalized(generators: Any) -> None:
    build = _state.build
    if build is None:
        return
    try:
        resolved = _state.resolved = resolved_for_host(build)
    except ContentError as exc:
        lines = "\n".join(str(p) for p in exc.problems)
        count = len(exc.problems)
        raise _fail(
            f"mediashortcodes: {count} problem{'s' if count != 1 else ''} in the shortcodes; "
            f"nothing was written:\n{lines}"
        ) from None
    except MediaShortcodesError as exc:
        raise _fail(f"mediashortcodes: {exc}") from None
    for warning in resolved.warnings:
        log.warning(warning)
    for instance, _entry in _state.contents:
        # Listings (the index, categories) show the same HTML at other depths: root-relative.
        for name in ("_content", "_summary"):
            text = getattr(instance, name, None)
            if isinstance(text, str) and "\x02" in text:
                setattr(instance, name, resolved.html(text))
        summary = instance.metadata.get("summary") if hasattr(instance, "metadata") else None
        if isinstance(summary, str) and "\x02" in summary:
            instance.metadata["summary"] = resolved.html(summary)
    log.info(f"mediashortcodes: {resolved.result.summary()}")


def finalized(pelican: Any) -> None:
    resolved, build = _state.resolved, _state.build
    if resolved is None or build is None:
        return
    output = Path(pelican.settings["OUTPUT_PATH"])
    try:
        resolved.publish(output)
    except MediaShortcodesError as exc:  # a link in the output where the media go
        raise _fail(f"mediashortcodes: {exc}") from None
    if _state.site_url:
        published = {
            entry.output_file: str(getattr(instance, "title", "") or "")
            for instance, entry in _state.contents
            if getattr(instance, "status", "published") != "draft"
        }
        # A draft is no published page; neither is a file Pelican read but did not publish.
        pages = [
            (p.url, published[p.output_file], p.used)
            for p in build.pages
            if p.output_file in published
        ]
        resolved.manifest(pages).write_atomic(output / MANIFEST_NAME)


def project_config(folder: Path) -> tuple[Config, Path] | None:
    """The config and output folder of the Pelican project in ``folder`` (its
    ``pelicanconf.py``), for ``mediashortcodes report``; None when there is none."""
    conf = folder / "pelicanconf.py"
    if not conf.is_file():
        return None
    from pelican.settings import read_settings

    settings = read_settings(str(conf))
    config = host_config(
        settings.get(SETTING) or {},
        folder.resolve(),
        f"{conf} ({SETTING})",
        site_url=str(settings.get("SITEURL") or ""),
        site_url_key=f"SITEURL in {conf}",
    )
    return config, Path(settings["OUTPUT_PATH"])
