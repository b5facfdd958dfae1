"""The MkDocs plugin: shortcodes in a MkDocs site, resolved for the whole site at once.

MkDocs converts every page before it writes any; the plugin follows those phases:

- ``on_config``: reads the settings, adds the Python-Markdown extension (rendering into
  this build's markers) and, for ``mkdocs build``, points ``site_dir`` at a staging folder
  so a failed build leaves the previous site as it was.
- ``on_page_markdown``: tells the extension which file the page is and on which line its
  text starts (front matter counted).
- ``on_env``, once every page is converted: resolves every shortcode of the site in one
  concurrent step; a problem anywhere stops the build, listing all of them; else each
  page's markers become HTML, before the theme renders any page.
- ``on_post_page``: notes each page's title, as the theme shows it.
- ``on_post_build``: publishes the media, writes ``media-usage.json`` (a ``--dirty`` build
  keeps the entries of the pages it did not rebuild), swaps the staging folder into place
  and, with ``report: true``, reports usage.

Under ``mkdocs serve`` the plugin lives across rebuilds (it has ``on_startup``), a service
that cannot be reached gives placeholders, and nothing is reported.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import Any

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority

from ..config import SECTION_NAMES, Config
from ..errors import ContentError, MediaShortcodesError, Problem
from ..language import Shortcode
from ..media.render import problem_note
from ..pymarkdown import MediaShortcodesExtension
from ..pymarkdown.extension import start_line_in
from ..site.hosted import (
    host_config,
    page_title,
    resolved_for_host,
)
from ..site.outputdir import staging_path, swap_into_place
from ..site.pages import display_path
from ..site.pipeline import Pipeline, Resolved
from ..usage.manifest import MANIFEST_NAME, Manifest, page_url

log = logging.getLogger("mkdocs.plugins.mediashortcodes")

EXTENSION_NAME = "mediashortcodes.pymarkdown"


# config: the TOML's path; report: report usage after a successful build; and the TOML's
# sections inline (service: {sandbox: true}, images: {default_format: original}, ...).
_Options = type(
    "_Options",
    (base.Config,),
    {
        "config": c.Optional(c.Type(str)),
        "report": c.Type(bool, default=False),
        **{section: c.Optional(c.Type(dict)) for section in SECTION_NAMES},
    },
)


class MediaShortcodesPlugin(BasePlugin[_Options]):  # type: ignore[valid-type]
    """``plugins: [mediashortcodes]`` in ``mkdocs.yml``."""

    def __init__(self) -> None:
        self.command = "build"
        self.dirty = False
        self.settings: Config | None = None
        self.extension = MediaShortcodesExtension(renderer=self)
        self.build: Pipeline | None = None
        self.resolved: Resolved | None = None
        self.pages: list[Any] = []
        self.titles: dict[str, str] = {}
        self.site_urls: list[str] = []
        self.site_dir: Path | None = None  # the real one, while the build writes a staging copy
        self.staging: Path | None = None

    # -- settings -----------------------------------------------------------------------

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.command = command
        self.dirty = dirty

    @property
    def preview(self) -> bool:
        return self.command == "serve"

    @event_priority(100)  # before other plugins read site_dir
    def on_config(self, config: Any) -> Any:
        file = Path(config.config_file_path or "mkdocs.yml")
        project = file.resolve().parent
        options = {name: self.config[name] for name in ("config", *SECTION_NAMES)}
        try:
            self.settings = host_config(
                options,
                project,
                f"{display_path(file)} (plugins: mediashortcodes)",
                site_url=config.site_url or "",
                site_url_key="site_url in mkdocs.yml",
                require_site_url=not self.preview,
            )
        except MediaShortcodesError as exc:
            raise PluginError(f"mediashortcodes: {exc}") from None
        # One extension for every page, rendering into this plugin; a listing of it for
        # Zensical in the same mkdocs.yml would convert the shortcodes twice.
        config.markdown_extensions = [
            ext for ext in config.markdown_extensions if ext != EXTENSION_NAME
        ] + [self.extension]
        config.mdx_configs.pop(EXTENSION_NAME, None)
        self.site_dir = self.staging = None
        if not self.preview:
            self._stage(config)
        return config

    def _stage(self, config: Any) -> None:
        """Build into a folder beside ``site_dir``; it replaces the site only on success."""
        real = Path(config.site_dir)
        staging = staging_path(real)  # the leftovers of builds that were killed removed
        if self.dirty and real.is_dir():  # a dirty build rewrites only what changed
            shutil.copytree(real, staging, symlinks=True)
        self.site_dir, self.staging = real, staging
        config.site_dir = str(staging)

    # -- pages ----------------------------------------------------------------------------

    def on_pre_build(self, *, config: Any) -> None:
        assert self.settings is not None
        self.build = Pipeline(self.settings, preview=self.preview)
        self.resolved = None
        self.pages, self.titles, self.site_urls = [], {}, []

    @event_priority(-100)  # after the plugins that change the Markdown
    def on_page_markdown(self, markdown: str, *, page: Any, config: Any, files: Any) -> str:
        assert self.build is not None
        source = display_path(Path(page.file.abs_src_path))
        # Where the text starts in the file (front matter taken off): only a page with a
        # shortcode needs it, so the others are not read again.
        start = start_line_in(Path(page.file.abs_src_path), markdown) if "<%" in markdown else 1
        self.extension.set_document(source, start)
        self.build.begin_page(source, page.file.dest_uri, page.url)
        self.pages.append(page)
        return markdown

    # The extension's renderer: the current build's markers.
    def render(self, shortcode: Shortcode) -> str:
        assert self.build is not None
        return self.build.renderer.render(shortcode)

    def problem(self, problem: Problem) -> str:
        assert self.build is not None
        recorded = self.build.renderer.problem(problem)
        if not self.preview:
            return recorded  # a build stops on it, naming the place
        # A preview goes on: the author sees what is wrong where the shortcode stands.
        return recorded + problem_note(problem)

    @event_priority(100)  # before other plugins read the pages' HTML
    def on_env(self, env: Any, *, config: Any, files: Any) -> Any:
        assert self.build is not None
        # Every page of the site, rebuilt or not (a dirty build keeps the others as they were).
        self.site_urls = [
            "" if f.url in (".", "./") else f.url for f in files.documentation_pages()
        ]
        try:
            resolved = self.resolved = resolved_for_host(self.build)
        except ContentError as exc:
            raise PluginError(_problems_text(exc.problems)) from None
        except MediaShortcodesError as exc:
            raise PluginError(f"mediashortcodes: {exc}") from None
        for problem in resolved.problems:  # a preview shows them and goes on
            log.warning(str(problem))
        for warning in resolved.warnings:  # MkDocs says WARNING itself (and --strict counts it)
            log.warning(warning.replace(": warning: ", ": ", 1))
        for page in self.pages:
            if page.content:
                page.content = resolved.html(page.content, page.file.dest_uri)
            if page.title and "\x02" in page.title:  # an image in the first heading
                page.title = self.build.renderer.marker.sub("", page.title)
        log.info(f"mediashortcodes: {resolved.result.summary()}")
        return env

    def on_post_page(self, output: str, *, page: Any, config: Any) -> str:
        self.titles[page.file.dest_uri] = page_title(output, config.site_name)
        return output

    # -- the end of a build ---------------------------------------------------------------

    def on_post_build(self, *, config: Any) -> None:
        assert self.settings is not None and self.resolved is not None
        site_dir = Path(config.site_dir)
        try:
            self.resolved.publish(site_dir)
        except MediaShortcodesError as exc:  # a link in site_dir where the media go
            raise PluginError(f"mediashortcodes: {exc}") from None
        manifest = None
        if not self.preview and config.site_url:  # else usage is off: no page has an address
            titles, pages = self.titles, self.resolved.pages
            manifest = self.resolved.manifest(
                (p.url, titles.get(p.output_file, ""), p.used) for p in pages
            )
            keep = _previous_manifest(site_dir) if self.dirty else None
            if keep is not None:  # it stands for the site's pages not rendered this time
                urls = [page_url(manifest.site, url) for url in self.site_urls]
                kept = {url: keep.pages[url] for url in urls if url in keep.pages}
                manifest = Manifest(manifest.site, {**kept, **manifest.pages})
            manifest.write_atomic(site_dir / MANIFEST_NAME)
        if self.staging is not None and self.site_dir is not None:
            swap_into_place(self.staging, self.site_dir)
            config.site_dir = str(self.site_dir)
            self.staging = None
        if self.config.report and not self.preview and manifest is not None:
            self._report(manifest)

    def _report(self, manifest: Any) -> None:
        from ..usage.reporting import report_site

        assert self.settings is not None
        try:
            result = report_site(self.settings, manifest=manifest)
        except MediaShortcodesError as exc:
            message = f"mediashortcodes: the site is built, the report failed: {exc}"
            raise PluginError(message) from None
        for warning in result.warnings:
            log.warning(warning)
        log.info(f"mediashortcodes: {result.summary()}")
        if result.failed:
            failed = "\n".join(f"  {f.url}: {f.error}" for f in result.failed)
            raise PluginError(
                f"mediashortcodes: failed pages (run `mediashortcodes report` again):\n{failed}"
            )

    def on_build_error(self, *, error: Exception) -> None:
        if self.staging is not None:
            shutil.rmtree(self.staging, ignore_errors=True)
            self.staging = None


def _previous_manifest(site_dir: Path) -> Manifest | None:
    """The manifest an earlier build left in ``site_dir``, if it can be read."""
    try:
        return Manifest.load(site_dir / MANIFEST_NAME)
    except MediaShortcodesError:
        return None


def _problems_text(problems: list[Problem]) -> str:
    count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
    lines = "\n".join(str(p) for p in problems)
    return f"mediashortcodes: {count} in the shortcodes; the site was not written:\n{lines}"
