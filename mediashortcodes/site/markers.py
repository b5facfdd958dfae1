"""Deferred rendering: each shortcode leaves a marker in the page; its HTML replaces the
marker once the whole site is resolved."""

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
    """Records shortcodes during rendering and leaves a marker for each in the HTML:
    ``STX <build key>:<index> ETX``, which no escaping touches and no text forges."""

    def __init__(self) -> None:
        self.shortcodes: list[Shortcode] = []
        self._index: dict[int, int] = {}  # id(shortcode) -> its index, for every one listed
        self._places: dict[Shortcode, int] = {}  # places outside the page's own text
        self.problems: list[Problem] = []
        self.on_pages: list[OnPage] = []
        self.used: set[int] = set()
        self.page = ""
        self.page_uses: list[tuple[str, set[int]]] = []
        key = secrets.token_hex(4)
        self._opening = f"\x02{key}:"
        self.marker = re.compile(f"\x02{key}:(\\d+)\x03")

    def begin_page(self, page: str = "") -> None:
        """Start recording the places of ``page`` (as problems show it)."""
        self.used = set()
        self.page = page
        if page:
            self.page_uses.append((page, self.used))

    def render(self, shortcode: Shortcode) -> str:
        if shortcode.location.path == self.page:
            # A place in the page's own text: known by identity (the list keeps it alive).
            index = self._index.setdefault(id(shortcode), len(self.shortcodes))
        else:
            # A layout's place is one place on every page, known by its text and place,
            # also across worker processes.
            index = self._places.setdefault(shortcode, len(self.shortcodes))
        self.used.add(self._listed(shortcode, index))
        return f"{self._opening}{index}\x03"

    def _listed(self, shortcode: Shortcode, index: int) -> int:
        """``index``, the shortcode listed there first when it is a new one."""
        if index == len(self.shortcodes):
            self.shortcodes.append(shortcode)
            self._index[id(shortcode)] = index
        return index

    def problem(self, problem: Problem) -> str:
        problem = replace(problem, code=problem.code or SHORTCODE)
        if self.page and problem.path != self.page:  # e.g. a layout's media_image(page.hero)
            self.on_pages.append(OnPage(problem, self.page))
        else:
            self.problems.append(problem)
        return ""

    def add(self, found: Problem | OnPage) -> None:
        (self.on_pages if isinstance(found, OnPage) else self.problems).append(found)  # type: ignore[arg-type]

    def absorb(self, theirs: DeferredRenderer) -> tuple[list[int], list[set[int]]]:
        """Take in a worker's renderer (pages after ours): its indices in ours, its pages' uses."""
        table: list[int] = []
        shared = set(theirs._places.values())  # known by their text and place (see render)
        for i, shortcode in enumerate(theirs.shortcodes):
            index = len(self.shortcodes)
            if i in shared:
                index = self._places.setdefault(shortcode, index)
            table.append(self._listed(shortcode, index))
        self.problems += theirs.problems
        self.on_pages += theirs.on_pages
        uses: list[set[int]] = []
        for page, used in theirs.page_uses:
            mapped = {table[i] for i in used}
            self.page_uses.append((page, mapped))
            uses.append(mapped)
        return table, uses

    def found_problems(self) -> list[Problem | OnPage]:
        return [*self.problems, *self.on_pages]

    def placed(self, failed: list[tuple[Shortcode, str, str]]) -> list[Problem | OnPage]:
        """The problem of each failed (shortcode, message, code), naming its pages if outside."""
        indices = {self._index.get(id(sc), -1) for sc, _, _ in failed}
        pages: dict[int, list[str]] = {i: [] for i in indices}
        for page, used in self.page_uses:
            for i in used & indices:
                pages[i].append(page)
        problems: list[Problem | OnPage] = []
        for sc, message, code in failed:
            loc = sc.location
            problem = Problem(loc.path, loc.line, loc.col, message, code)
            on = [page for page in pages[self._index.get(id(sc), -1)] if page != loc.path]
            problems += [OnPage(problem, page) for page in on] if on else [problem]
        return problems


HEAD = "\x03"  # HEAD, text for the page's head, HEAD: before a place's HTML (pipeline.py)


def with_markers_replaced(
    html: str,
    marker: re.Pattern[str],
    html_by_index: list[str],
    element_ids: Mapping[int, str] | None = None,
) -> str:
    """``html`` with each ``marker`` replaced by its shortcode's HTML; an element id of
    ``element_ids`` that comes back on the page becomes ``<id>-2``, ``<id>-3``..."""
    parts = marker.split(html)  # text, index, text, index, ..., text
    indices = parts[1::2]
    parts[1::2] = [html_by_index[int(index)] for index in indices]
    heads = [p.split(HEAD)[1] for p in parts[1::2] if p.startswith(HEAD)]
    if heads:  # what goes in the head (a priority image's preload), each once
        parts[1::2] = [p.rpartition(HEAD)[2] for p in parts[1::2]]
    if element_ids:
        seen: dict[str, int] = {}
        for k, index in enumerate(indices):
            element = element_ids.get(int(index))
            if element is not None:
                copies = seen[element] = seen.get(element, 0) + 1
                if copies > 1:
                    parts[2 * k + 1] = parts[2 * k + 1].replace(element, f"{element}-{copies}")
    page = "".join(parts)
    return page.replace("</head>", "".join(dict.fromkeys(heads)) + "</head>", 1) if heads else page
