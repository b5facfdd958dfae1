"""Zensical's ``finish``: its pages' ``<mediashortcodes-ref>`` elements resolved, then written."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..config import Config
from ..errors import ConfigError
from ..language import html_for
from ..language.htmltext import splice
from ..pymarkdown.refs import read_refs
from ..site.hosted import resolved_for_host, write_finished
from ..site.pipeline import BuildOptions, PageEntry, Pipeline, Resolved
from ..usage.manifest import MANIFEST_NAME


def finish_site(
    config: Config,
    site_dir: Path,
    pages: Iterable[PageEntry],
    *,
    site_name: str = "",
    offline: bool = False,
    refresh: bool = False,
) -> Resolved | None:
    """Resolve, write and publish (after a ContentError, nothing); None if already finished."""
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
        refs += text.count("<mediashortcodes-ref")
        # Each reference replaced by a marker (a malformed one by nothing).
        found = read_refs(text, os.path.join("site", page.output_file))
        texts[page.output_file] = splice(
            text, ((r.start, r.end, html_for(build.renderer, r)) for r in found)
        )
    manifest_file = site_dir / MANIFEST_NAME
    if not refs and manifest_file.is_file() and manifest_file.stat().st_mtime >= newest:
        return None
    resolved = resolved_for_host(build)
    write_finished(site_dir, build, resolved, texts, site_name)
    return resolved
