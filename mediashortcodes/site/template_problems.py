"""Errors raised while rendering a page's layout, as problems at the template line to fix.

Jinja's rewritten traceback carries template files and lines: the innermost is where the
author must look; the page is named too (its front matter may be the cause), and a
layout's error on many pages is listed once (:func:`pages_named`).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import jinja2

from ..errors import ContentError, MediaShortcodesError, Problem
from .pages import PageSource, display_path

SHOWN_PAGES = 3  # a problem on a thousand pages names this many, then counts the rest
TEMPLATE = "template"  # the code of a layout's problems (Problem.code)


@dataclass(frozen=True)
class OnPage:
    """A problem met while rendering ``page``, at a place outside it (a layout's)."""

    problem: Problem  # its message without the page
    page: str
    after: str = ""  # the message's end, after the pages (the advice)


def pages_named(problems: Iterable[Problem | OnPage]) -> list[Problem]:
    """The problems, each place and message once, naming the pages it happened on."""
    plain: list[Problem] = []
    pages: dict[tuple[Problem, str], set[str]] = {}
    for item in problems:
        if isinstance(item, OnPage):
            pages.setdefault((item.problem, item.after), set()).add(item.page)
        else:
            plain.append(item)
    for (problem, after), on in pages.items():
        shown = sorted(on)
        listed = ", ".join(shown[:SHOWN_PAGES])
        if (more := len(shown) - SHOWN_PAGES) > 0:
            listed += f" and {more} more"
        if len(shown) > 1:  # the count first: how widespread it is, at a glance
            listed = f"{len(shown)} pages: {listed}"
        message = f"{problem.message} (rendering {listed}){after}"
        plain.append(Problem(problem.path, problem.line, problem.col, message, problem.code))
    return plain


@contextmanager
def shown_with_any_stop(found: list[Problem | OnPage]) -> Iterator[None]:
    """Problems already ``found`` go with an error that stops the work (an outage, a
    missing setting), whose exit code stands."""
    try:
        yield
    except MediaShortcodesError as exc:
        if found and not isinstance(exc, ContentError):
            exc.content_problems = tuple(sorted(set(pages_named(found))))
        raise


def template_problem(exc: Exception, page: PageSource, templates_dir: Path) -> Problem | OnPage:
    """The problem an exception from rendering ``page`` with its template stands for."""
    shown_dir = display_path(templates_dir)
    if isinstance(exc, jinja2.TemplateSyntaxError):
        where = exc.filename or exc.name
        path = display_path(Path(where)) if where else page.display_path
        return Problem(
            path, exc.lineno, 1, f"{exc.message or exc}; fix the template's syntax", TEMPLATE
        )
    frame = _innermost_template_frame(exc.__traceback__, templates_dir)
    if isinstance(exc, jinja2.TemplateNotFound):
        missing = (
            f"template {exc.name!r} not found in {shown_dir}{_close_match(exc.name, templates_dir)}"
        )
        if frame is None:  # the page's own template, named by its front matter
            return Problem(
                page.display_path,
                page.template_line,
                1,
                f"{missing}; create it or fix the page's template: key",
                TEMPLATE,
            )
        path, line = frame
        return Problem(path, line, 1, f"{missing}; create it or fix the name here", TEMPLATE)
    what = str(exc) if isinstance(exc, jinja2.TemplateError) else f"{type(exc).__name__}: {exc}"
    if frame is None:
        return Problem(page.display_path, 1, 1, f"template error: {what}", TEMPLATE)
    path, line = frame
    return OnPage(Problem(path, line, 1, what, TEMPLATE), page.display_path, "; fix the template")


def _close_match(name: str | None, templates_dir: Path) -> str:
    """`` (did you mean 'article.html'?)`` for a typo or a missing extension."""
    if not name or not templates_dir.is_dir():
        return ""
    known = [
        p.relative_to(templates_dir).as_posix() for p in templates_dir.rglob("*") if p.is_file()
    ]
    match = [f"{name}.html"] if f"{name}.html" in known else []
    match = match or difflib.get_close_matches(name, known, n=1, cutoff=0.7)
    return f" (did you mean {match[0]!r}?)" if match else ""


def _innermost_template_frame(
    tb: TracebackType | None, templates_dir: Path
) -> tuple[str, int] | None:
    prefix = str(templates_dir) + os.sep
    found: tuple[str, int] | None = None
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if filename.startswith(prefix):
            found = (display_path(Path(filename)), tb.tb_lineno)
        tb = tb.tb_next
    return found
