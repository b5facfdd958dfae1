"""Deferred rendering: each shortcode leaves a marker in the page while everything is rendered,
and its HTML replaces the marker once the whole site is resolved."""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from dataclasses import replace

from ..errors import Problem
from ..language import Shortcode
from .template_problems import OnPage

SHORTCODE = "shortcode"  # the code (Problem.code) of a malformed shortcode's problem
MARKDOWN = "markdown"  # a warning's: a shortcode where Markdown cannot hold it (a heading)


class DeferredRenderer:
    """Records shortcodes during rendering and leaves a marker for each in the HTML.

    A marker is ``STX <build key>:<index> ETX``: control characters no escaping touches
    around a key drawn for this build, so text that looks like one is never taken for one;
    ASCII, so it survives any charset and keeps Latin-1 pages in one-byte strings.
    """

    def __init__(self) -> None:
        self.shortcodes: list[Shortcode] = []
        self._index: dict[int, int] = {}  # id(shortcode) -> its index, for every one listed
        self._places: dict[Shortcode, int] = {}  # places outside the page's own text
        self.problems: list[Problem] = []
        # Problems at a place outside the page being rendered (a layout's): each names its page.
        self.on_pages: list[OnPage] = []
        self.used: set[int] = set()
        self.page = ""
        # Each named page with the places it used (the same set as `used`): a problem found
        # later, at a layout's place, can then name the pages it is on.
        self.page_uses: list[tuple[str, set[int]]] = []
        key = secrets.token_hex(4)
        self._opening = f"\x02{key}:"
        self.marker = re.compile(f"\x02{key}:(\\d+)\x03")

    def begin_page(self, page: str = "") -> None:
        """Start recording the places of ``page`` (its path as shown in problems, if any)."""
        self.used = set()
        self.page = page
        if page:
            self.page_uses.append((page, self.used))

    def render(self, shortcode: Shortcode) -> str:
        if shortcode.location.path == self.page:
            # A place in the page's own text: each is a new object, known by its identity
            # (hashing each would cost more than the rest of this). The list keeps every
            # object alive, so no identity is reused.
            index = self._index.setdefault(id(shortcode), len(self.shortcodes))
        else:
            # A layout's, a partial's, a function's or a filter's place is one place on every
            # page it is on, however many objects stand for it: known by its text and place,
            # so pages rendered in several processes find the same places (site/workers.py).
            index = self._places.setdefault(shortcode, len(self.shortcodes))
        if index == len(self.shortcodes):
            self.shortcodes.append(shortcode)
            self._index[id(shortcode)] = index
        self.used.add(index)
        return f"{self._opening}{index}\x03"

    def problem(self, problem: Problem) -> str:
        problem = replace(problem, code=problem.code or SHORTCODE)
        if self.page and problem.path != self.page:  # e.g. a layout's media_image(page.hero)
            self.on_pages.append(OnPage(problem, self.page))
        else:
            self.problems.append(problem)
        return ""

    def add(self, found: Problem | OnPage) -> None:
        """A problem met while rendering the page (a broken layout's)."""
        (self.on_pages if isinstance(found, OnPage) else self.problems).append(found)  # type: ignore[arg-type]

    def by_value(self) -> list[int]:
        """The indices of places known by their text and place (see :meth:`render`)."""
        return list(self._places.values())

    def absorb(
        self,
        shortcodes: list[Shortcode],
        by_value: list[int],
        problems: list[Problem],
        on_pages: list[OnPage],
        page_uses: list[tuple[str, set[int]]],
    ) -> tuple[list[int], list[set[int]]]:
        """Take in what another renderer recorded for the pages after ours (a worker's) as if
        this one had rendered them; return each of its indices in ours, and its pages' uses."""
        table: list[int] = []
        shared = set(by_value)
        for i, shortcode in enumerate(shortcodes):
            index = len(self.shortcodes)
            if i in shared:
                index = self._places.setdefault(shortcode, index)
            if index == len(self.shortcodes):
                self.shortcodes.append(shortcode)
                self._index[id(shortcode)] = index
            table.append(index)
        self.problems += problems
        self.on_pages += on_pages
        uses: list[set[int]] = []
        for page, used in page_uses:
            mapped = {table[i] for i in used}
            self.page_uses.append((page, mapped))
            uses.append(mapped)
        return table, uses

    def found_problems(self) -> list[Problem | OnPage]:
        """Every problem found while rendering (malformed shortcodes, broken layouts)."""
        return [*self.problems, *self.on_pages]

    def placed(
        self, failed: list[tuple[Shortcode, str]], code: str = "media"
    ) -> list[Problem | OnPage]:
        """The problem of each failed place (or its warning), naming the pages that used it
        when it is outside them. Only then: it looks at every page's places."""
        if not failed:
            return []
        indices = {self._index.get(id(sc), -1) for sc, _ in failed}
        pages: dict[int, list[str]] = {i: [] for i in indices}
        for page, used in self.page_uses:
            for i in used & indices:
                pages[i].append(page)
        problems: list[Problem | OnPage] = []
        for sc, message in failed:
            loc = sc.location
            problem = Problem(loc.path, loc.line, loc.col, message, code)
            on = [page for page in pages[self._index.get(id(sc), -1)] if page != loc.path]
            problems += [OnPage(problem, page) for page in on] if on else [problem]
        return problems


def with_markers_replaced(
    html: str,
    marker: re.Pattern[str],
    html_by_index: list[str],
    element_ids: Mapping[int, str] | None = None,
) -> str:
    """``html`` with each ``marker`` replaced by the HTML of its shortcode.

    ``element_ids``: the element id in a place's HTML (a script embed's); where one comes
    back on the same page (a partial included twice), the copies become ``<id>-2``,
    ``<id>-3``... Split and joined, not ``re.sub`` with a function: one call per marker was
    most of the cost.
    """
    parts = marker.split(html)  # text, index, text, index, ..., text
    indices = parts[1::2]
    parts[1::2] = [html_by_index[int(index)] for index in indices]
    if element_ids:
        seen: dict[str, int] = {}
        for k, index in enumerate(indices):
            element = element_ids.get(int(index))
            if element is not None:
                copies = seen[element] = seen.get(element, 0) + 1
                if copies > 1:
                    parts[2 * k + 1] = parts[2 * k + 1].replace(element, f"{element}-{copies}")
    return "".join(parts)
