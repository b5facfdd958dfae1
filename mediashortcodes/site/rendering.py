"""The built-in builder's pages rendered with markers: Markdown, then the Jinja layout."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

import jinja2
from markupsafe import Markup

from ..config import Config
from ..errors import MediaShortcodesError, Problem
from ..fileio import Confined
from ..jinja import MediaShortcodesExtension
from ..media.render import SiteTemplates
from .markers import MARKDOWN, DeferredRenderer, with_markers_replaced
from .memo import PageMemo, memoized, replayed
from .pages import PageSource
from .template_problems import OnPage, PrintedUndefined, UndefinedPrints, template_problem

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


@dataclass
class RenderedPage:
    source: PageSource
    html: str  # with markers ("" for a page a worker holds)
    used: set[int]


@dataclass
class RenderedRun:
    """What rendering a run of pages gave, besides the deferred renderer's records."""

    pages: list[RenderedPage]
    warnings: list[Problem]  # Markdown's (a shortcode in a heading...)
    undefined: list[OnPage]  # undefined values the layouts printed
    refused: int = 0  # memo entries that failed their check


def site_variables(base_url: str, listed: list[PageSource]) -> dict[str, Any]:
    """The ``site`` every layout gets."""
    pages = [_page_variables(s, front_matter=s.front_matter) for s in listed]
    return {"base_url": base_url, "pages": pages}


def _page_variables(s: PageSource, **more: Any) -> dict[str, Any]:
    return {"title": s.title, "url": s.url, "date": s.front_matter.get("date"), **more}


class PageRenderer:
    """Renders pages into ``deferred`` (a marker for each shortcode)."""

    def __init__(self, config: Config, deferred: DeferredRenderer) -> None:
        self.templates_dir = config.path(config.site.templates)
        self.deferred = deferred
        self.env = SiteTemplates(  # a layout runs no Python (docs/templates.md)
            loader=jinja2.FileSystemLoader(str(self.templates_dir)),
            autoescape=jinja2.select_autoescape(["html", "htm", "xml"]),
            extensions=[MediaShortcodesExtension],
            keep_trailing_newline=True,
            # Silent where layouts guard optional front matter; printed, a warning (a typo).
            undefined=PrintedUndefined,
        )
        self.env.mediashortcodes_renderer = deferred  # type: ignore[attr-defined]
        self.undefined_prints = UndefinedPrints(self.env)
        self.memo: PageMemo | None = None  # the builder's, when the build uses one

    @cached_property
    def markdown(self) -> MarkdownIt:
        """Made for the first page rendered: a build from the memo imports no markdown_it."""
        from markdown_it import MarkdownIt

        from ..markdown import shortcodes_plugin

        return (
            MarkdownIt("commonmark", {"typographer": False})
            .enable(["table", "strikethrough"])
            .use(shortcodes_plugin, renderer=self.deferred)
        )

    def render_pages(self, sources: list[PageSource], site: dict[str, Any]) -> RenderedRun:
        """Render ``sources``, from the memo where it has them; a failed layout's page left out."""
        run = RenderedRun([], [], [])
        memo = self.memo
        if memo is not None:
            memo.for_site(site)
        for source in sources:
            found = memo.get(source) if memo is not None else None
            if found is not None:  # what rendering it gives, without rendering it
                html, used = replayed(self.deferred, source, found)
                run.warnings += found.warnings
                run.undefined += found.undefined
                run.pages.append(RenderedPage(source, html, used))
                continue
            problems = len(self.deferred.found_problems())
            warned = len(run.warnings)
            page = self.render_page(source, site, run.warnings)
            undefined = self.undefined_prints.take()
            run.undefined += undefined
            if page is None:
                continue
            run.pages.append(page)
            if memo is not None and problems == len(self.deferred.found_problems()):
                entry = memoized(
                    self.deferred, page.html, page.used, run.warnings[warned:], undefined
                )
                if entry is not None:
                    memo.put(source, entry)
        run.refused = memo.refused if memo is not None else 0
        return run

    def render_page(
        self, source: PageSource, site: dict[str, Any], warnings: list[Problem]
    ) -> RenderedPage | None:
        deferred = self.deferred
        deferred.begin_page(source.display_path)
        env: dict[str, Any] = {
            "mediashortcodes": {"path": source.display_path, "start_line": source.body_start_line}
        }
        content = self.markdown.render(source.body, env)
        for problem in env["mediashortcodes"].get("problems", ()):
            deferred.problem(problem)
        if found := env["mediashortcodes"].get("warnings"):  # a block in a heading...
            warnings += [replace(w, code=w.code or MARKDOWN) for w in found]
        page = {**source.front_matter, **_page_variables(source, content=Markup(content))}
        page["front_matter"] = source.front_matter
        self.undefined_prints.begin_page(source.display_path, page, site)
        try:
            html = self.env.get_template(source.template).render(page=page, site=site)
        except MediaShortcodesError:
            raise
        except Exception as exc:  # a layout's bug, even a TypeError, is a listed problem
            deferred.add(template_problem(exc, source, self.templates_dir))
            return None
        return RenderedPage(source, html, deferred.used)  # a new set each page


def write_pages(
    rendered: list[RenderedPage],
    staging: Confined,
    marker: re.Pattern[str],
    html_by_index: list[str],
    element_ids: Mapping[int, str],
) -> None:
    """Write each page into ``staging`` as a new file, its markers replaced."""
    for page in rendered:
        with open(staging.file(page.source.output_file), "x", encoding="utf-8") as out:
            out.write(with_markers_replaced(page.html, marker, html_by_index, element_ids))
