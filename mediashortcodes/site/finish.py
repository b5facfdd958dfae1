"""Finish a site another tool built with the extension but without the plugin (Zensical):
resolve its pages' ``<mediashortcodes-ref>`` elements at once, and only when nothing is
wrong write the pages, the media and ``media-usage.json``."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..config import Config
from ..errors import ConfigError
from ..fileio import Confined, write_atomic
from ..language import html_for
from ..language.htmltext import splice
from ..language.refs import read_refs
from ..usage.manifest import MANIFEST_NAME
from .hosted import page_title, resolved_for_host
from .pipeline import BuildOptions, PageEntry, Pipeline, Resolved


def finish_site(
    config: Config,
    site_dir: Path,
    pages: Iterable[PageEntry],
    *,
    site_name: str = "",
    offline: bool = False,
    refresh: bool = False,
) -> Resolved | None:
    """Resolve, write and publish; None when already finished (no reference left and the
    manifest newer than every page). Raises ContentError, and then writes nothing."""
    if not site_dir.is_dir():
        raise ConfigError(f"{site_dir}: no built site here; build it first (zensical build)")
    build = Pipeline(config, BuildOptions(offline=offline, refresh=refresh))
    texts: dict[str, str] = {}
    newest = 0.0
    refs = 0
    for page in pages:
        file = site_dir / page.output_file
        try:
            text = file.read_text(encoding="utf-8")
            newest = max(newest, file.stat().st_mtime)
        except FileNotFoundError:
            continue  # not built (a draft, an excluded page)
        build.begin_page(page.source, page.output_file, page.url)
        texts[page.output_file] = _with_markers(text, page.output_file, build)
        refs += text.count("<mediashortcodes-ref")
    manifest_file = site_dir / MANIFEST_NAME
    if not refs and manifest_file.is_file() and manifest_file.stat().st_mtime >= newest:
        return None
    resolved = resolved_for_host(build)
    titles: dict[str, str] = {}
    confined = Confined(site_dir, what="the built site")  # a page's folder may be a link
    for output_file, text in texts.items():
        html = resolved.html(text, output_file)
        titles[output_file] = page_title(html, site_name)
        if html != text:
            write_atomic(confined.file(output_file), html.encode("utf-8"))
    resolved.publish(site_dir)
    if config.site.base_url:
        pages_used = [(p.url, titles.get(p.output_file, ""), p.used) for p in build.pages]
        resolved.manifest(pages_used).write_atomic(manifest_file)
    return resolved


def _with_markers(text: str, output_file: str, build: Pipeline) -> str:
    """The page with each reference replaced by a marker (a malformed one by nothing)."""
    if "<mediashortcodes-ref" not in text:
        return text
    refs = read_refs(text, os.path.join("site", output_file))
    return splice(text, ((ref.start, ref.end, html_for(build.renderer, ref)) for ref in refs))
