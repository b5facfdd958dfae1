"""``mediashortcodes finish`` over the HTML any generator wrote (Hugo, Eleventy, Jekyll...).

The shortcodes reach the built pages as text: raw (a layout's) or escaped by the Markdown
engine, their quotes, dashes and ellipses perhaps made typographic (the language's
``find_in_html(typographic=True)`` reads them back). Every page's shortcodes go through the
one pipeline at once: markers, resolve all, replace; then each changed page is rewritten
atomically, the media published under the output folder and ``media-usage.json`` written.

Choices (docs/generators.md lists them):

- Pages are the output's ``*.html`` files; feeds and search indexes (XML, JSON) are left
  as the generator wrote them.
- A page whose file is not newer than the last finish's ``media-usage.json``, while others
  are, was not written by the newest generator run: it is a leftover of an earlier build
  (Hugo and Eleventy do not clean their output) and is neither read nor listed. When no page
  is newer, the folder is already finished: nothing is read, sent or written.
- A shortcode alone in a ``<p>`` replaces the paragraph; a block one (a video, a captioned
  image) inside a paragraph's plain text splits it, so the HTML stays valid.
- A page's ``<meta name="mediashortcodes-source" content="...">`` (a layout writes it) names
  its source in problems.
"""

from __future__ import annotations

import html as htmllib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..config import Config, load, with_site_base_url
from ..errors import ConfigError, counted, display_path
from ..language import Found, LineIndex, html_for
from ..language.htmltext import find_in_html, splice
from ..markdown.blocks import block_kind
from ..site.hosted import resolved_for_host, write_finished
from ..site.pipeline import BuildOptions, BuildResult, Pipeline, Resolved
from ..usage.manifest import MANIFEST_NAME
from .detect import detect

PAGE_SUFFIXES = (".html", ".htm")
_OPEN_P = re.compile(r"<p(?:\s[^<>]*)?>\s*$", re.IGNORECASE)
_CLOSE_P = re.compile(r"\s*</p\s*>", re.IGNORECASE)
_SOURCE = re.compile(
    r"<meta\s+name=[\"']mediashortcodes-source[\"']\s+content=[\"']([^\"']*)[\"']", re.IGNORECASE
)


@dataclass
class Finished:
    """What a finish did; ``resolved`` is None when the folder was already finished."""

    output: Path
    resolved: Resolved | None = None
    result: BuildResult = field(default_factory=BuildResult)
    rewritten: int = 0
    stale: list[str] = field(default_factory=list)  # leftovers of an earlier build

    def notes(self) -> list[str]:
        """What the command says besides the build's summary and problems."""
        if not self.stale:
            return []
        more = " ..." if len(self.stale) > 5 else ""
        return [
            f"{counted(len(self.stale), 'page')} older than this build left out of the manifest "
            f"(an earlier build's leftovers; clean the output folder before building to remove "
            f"them): {', '.join(self.stale[:5])}{more}"
        ]


def page_url(output_file: str) -> str:
    """A page's path in the site: ``a/index.html`` -> ``a/``, ``b.html`` -> ``b.html``."""
    folder, _, name = output_file.rpartition("/")
    if name == "index.html":
        return f"{folder}/" if folder else ""
    return output_file


def built_pages(output: Path, media_dir: str) -> dict[str, float]:
    """Each page of the output (relative, with "/") and its modification time."""
    media = media_dir.strip("/") + "/"
    pages: dict[str, float] = {}
    for folder, dirs, files in os.walk(output):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(PAGE_SUFFIXES):
                path = Path(folder, name)
                relative = path.relative_to(output).as_posix()
                if not relative.startswith(media) and not path.is_symlink():
                    pages[relative] = path.stat().st_mtime
    return pages


def finish_generated(
    site: Path,
    output: Path | None,
    base_url: str | None,
    offline: bool = False,
    refresh: bool = False,
    keep_going: bool = False,
) -> Finished:
    """``finish`` of the site in ``site``: its ``mediashortcodes.toml``, the generator's
    output (``output``, else what the generator's config names, else its default)."""
    config = load(site)
    if base_url is not None:
        config = with_site_base_url(config, base_url)
    keep_going = keep_going or config.build.on_missing == "placeholder"
    folder = output or site / detect(site).output
    return finish_output(config, folder, offline=offline, refresh=refresh, keep_going=keep_going)


def finish_output(
    config: Config,
    output: Path,
    *,
    offline: bool = False,
    refresh: bool = False,
    keep_going: bool = False,
) -> Finished:
    """Finish the generator's ``output``; raises ContentError (then writes nothing)."""
    if not output.is_dir():
        raise ConfigError(
            f"{display_path(output)}: no built site here; run the generator first (hugo, "
            "npx @11ty/eleventy, jekyll build), or name its output with --output DIR"
        )
    finished = Finished(output)
    pages = built_pages(output, config.site.media_dir)
    manifest_file = output / MANIFEST_NAME
    last = manifest_file.stat().st_mtime if manifest_file.is_file() else None
    current = [page for page, mtime in pages.items() if last is None or mtime > last]
    if not current:
        return finished  # already finished: nothing newer than the last finish
    finished.stale = [page for page in pages if page not in current]
    build = Pipeline(config, BuildOptions(offline=offline, refresh=refresh))
    texts: dict[str, str] = {}
    sources: dict[str, str] = {}
    for output_file in current:
        file = output / output_file
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            build.close()
            raise ConfigError(f"{display_path(file)}: cannot read the page: {exc}") from None
        shown = display_path(file)
        build.begin_page(shown, output_file, page_url(output_file))
        if (source := _SOURCE.search(text)) is not None:
            sources[shown] = htmllib.unescape(source.group(1))
        texts[output_file] = splice(text, _replacements(text, shown, build))
    resolved = resolved_for_host(build, keep_going=keep_going, sources=sources)
    resolved.result.problems = resolved.problems
    finished.resolved, finished.result = resolved, resolved.result
    finished.rewritten = write_finished(output, build, resolved, texts)
    resolved.result.output = output
    return finished


def _replacements(text: str, shown: str, build: Pipeline) -> Iterator[tuple[int, int, str]]:
    """Each shortcode's range in the page and its marker (``<p>`` handled, see above)."""
    if "<%" not in text and "&lt;%" not in text and "&#" not in text:
        return
    for found in find_in_html(text, shown, LineIndex(text), typographic=True):
        marker = html_for(build.renderer, found)
        before = _OPEN_P.search(text, max(0, found.start - 400), found.start)
        after = _CLOSE_P.match(text, found.end)
        if before is not None and after is not None:  # alone in its paragraph
            yield before.start(), after.end(), marker
        elif block_kind(found) and _in_plain_paragraph(text, found):
            yield found.start, found.end, f"</p>{marker}<p>"
        else:
            yield found.start, found.end, marker


def _in_plain_paragraph(text: str, found: Found) -> bool:
    """Whether ``found`` stands in a paragraph's own text (no other element around it)."""
    opening = text.rfind("<", 0, found.start)
    closing = text.find("<", found.end)
    return bool(
        _OPEN_P.match(text[opening : text.find(">", opening) + 1] + " ")
        and _CLOSE_P.match(text, closing)
    )
