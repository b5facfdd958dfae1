"""One Sphinx build on the one pipeline: every place of the site resolved at once before
any page is written, each page's markers replaced as the page is rendered, the media
published and ``media-usage.json`` written when the build ends."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.errors import ConfigError as SphinxConfigError
from sphinx.errors import SphinxError
from sphinx.util import logging

from ..config import Config
from ..errors import MediaShortcodesError
from ..site.hosted import host_config
from ..site.pipeline import Pipeline, Resolved, depth_prefix
from ..usage.manifest import MANIFEST_NAME
from .directives import media_place, places, shortcode_of

logger = logging.getLogger(__name__)

SETTING = "mediashortcodes"  # conf.py: {"config": "mediashortcodes.toml"} or the TOML's sections
TYPE = "mediashortcodes"  # the warnings' type, for suppress_warnings


class MediaError(SphinxError):
    """Stops the build: a setting, or the service out of reach."""

    category = "mediashortcodes error"


class SiteBuild:
    """The extension's state in one Sphinx application: its settings, and the current
    build's resolved places."""

    def __init__(self) -> None:
        self.config: Config | None = None
        self.resolved: Resolved | None = None
        self.markers: dict[str, list[str]] = {}  # docname -> each place's marker
        self.output_files: dict[str, str] = {}  # docname -> its page, relative to outdir
        self.titles: dict[str, str] = {}  # a page (relative to outdir) -> its title

    def config_inited(self, app: Any, config: Any) -> None:
        """Reads ``mediashortcodes.toml`` beside conf.py (or the file ``mediashortcodes``
        names); ``html_baseurl`` is the site's address in the usage manifest."""
        root = Path(app.confdir or app.srcdir).resolve()
        try:
            self.config = host_config(
                getattr(config, SETTING) or {},
                root,
                f"{root / 'conf.py'} ({SETTING})",
                site_url=str(getattr(config, "html_baseurl", "") or ""),
                site_url_key="html_baseurl in conf.py",
                require_site_url=False,
            )
        except MediaShortcodesError as exc:
            raise SphinxConfigError(f"mediashortcodes: {exc}") from None

    # -- before the pages are written ---------------------------------------------------

    def write_started(self, app: Any, builder: Any) -> None:
        """Resolve every place of every document at once, read this build or not."""
        self.resolved, self.markers, self.output_files, self.titles = None, {}, {}, {}
        if builder.format != "html" or self.config is None:
            return
        pipeline = Pipeline(self.config)
        env, outdir = builder.env, Path(builder.outdir)
        kept = places(env)
        for docname in sorted(env.found_docs):
            output_file = Path(builder.get_outfilename(docname)).relative_to(outdir).as_posix()
            self.output_files[docname] = output_file
            title = env.titles.get(docname)
            self.titles[output_file] = title.astext() if title is not None else ""
            source = os.path.relpath(env.doc2path(docname), env.srcdir).replace(os.sep, "/")
            pipeline.begin_page(source, output_file, builder.get_target_uri(docname))
            render = pipeline.renderer.render
            self.markers[docname] = [render(shortcode_of(p)) for p in kept.get(docname, [])]
        try:
            resolved = pipeline.resolve(depth_prefix("", self.config.site.media_dir))
        except MediaShortcodesError as exc:
            pipeline.close()
            raise MediaError(str(exc)) from None
        srcdir = Path(env.srcdir)
        for problem in resolved.problems:  # the page shows a placeholder in its place
            where = f"{srcdir / problem.path}:{problem.line}" if problem.path else None
            logger.warning(problem.message, location=where, type=TYPE, subtype="media")
        for warning in resolved.result.warnings:
            logger.warning(str(warning), type=TYPE, subtype="service")
        logger.info(f"mediashortcodes: {resolved.result.summary()}")
        self.resolved = resolved

    def doctree_resolved(self, app: Any, doctree: nodes.document, docname: str) -> None:
        """Each place gets its marker; a builder that writes no HTML drops the places."""
        for node in list(doctree.findall(media_place)):
            if not self.markers:  # not an HTML builder
                node.parent.remove(node)
            elif "place" in node:
                node["marker"] = self.markers[node["docname"]][node["place"]]

    def page_context(
        self, app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
    ) -> None:
        """The page's markers become the places' HTML, linking the media from this page."""
        body = context.get("body")
        if self.resolved is not None and isinstance(body, str) and "\x02" in body:
            output_file = self.output_files.get(pagename)
            context["body"] = self.resolved.html(body, output_file)

    # -- the end of the build -------------------------------------------------------------

    def build_finished(self, app: Any, exception: BaseException | None) -> None:
        resolved, self.resolved = self.resolved, None
        if resolved is None:
            return
        if exception is not None:
            resolved.cache.close()
            return
        outdir = Path(app.builder.outdir)
        try:
            resolved.publish(outdir)
        except MediaShortcodesError as exc:  # a link in the output where the media go
            raise MediaError(str(exc)) from None
        if app.builder.name not in ("html", "dirhtml"):
            return  # singlehtml, epub: no page has an address of its own
        if not resolved.config.site.base_url:
            if resolved.config.usage.enabled:
                logger.warning(
                    "mediashortcodes: no media-usage.json written: it lists every page by its "
                    "public address; set html_baseurl in conf.py (or [site] base_url), or "
                    "[usage] enabled = false",
                    type=TYPE,
                    subtype="manifest",
                )
            return
        pages = [(p.url, self.titles.get(p.output_file, ""), p.used) for p in resolved.pages]
        resolved.manifest(pages).write_atomic(outdir / MANIFEST_NAME)
