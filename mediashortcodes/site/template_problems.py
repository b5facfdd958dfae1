"""A layout's errors and printed undefined values, at the template line to fix, naming the
pages rendered (docs/site-builder.md). Only *printing* an undefined value warns: testing it
(``or``, ``default``, a loop) is how a layout says front matter is optional."""

from __future__ import annotations

import difflib
import linecache
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import jinja2
from jinja2.utils import missing, object_type_repr

from ..errors import Problem
from ..jinja import calling_template, template_path
from ..media.render import failed_template_line
from .pages import PageSource, display_path

SHOWN_PAGES = 3  # a problem on a thousand pages names this many, then counts the rest
TEMPLATE = "template"  # the code of a layout's problems (Problem.code)
ATTRIBUTE = "mediashortcodes_undefined_prints"  # the environment's recorder, if any
UNDEFINED = "undefined"  # the warning's code (Problem.code)
ADVICE = '; fix the name, or add | default("") if the value is optional'


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


def template_problem(exc: Exception, page: PageSource, templates_dir: Path) -> Problem | OnPage:
    """The problem an exception from rendering ``page`` with its template stands for."""
    shown_dir = display_path(templates_dir)
    frame = failed_template_line(exc)  # a syntax error's too
    if isinstance(exc, jinja2.TemplateSyntaxError):
        path, line = frame or (page.display_path, exc.lineno)
        return Problem(path, line, 1, f"{exc.message or exc}; fix the template's syntax", TEMPLATE)
    if isinstance(exc, jinja2.TemplateNotFound):
        close = _close_match(exc.name, templates_dir)
        # Without a template's frame: the page's own template, named by its front matter.
        path, line = frame or (page.display_path, page.template_line)
        fix = "the name here" if frame else "the page's template: key"
        message = f"template {exc.name!r} not found in {shown_dir}{close}; create it or fix {fix}"
        return Problem(path, line, 1, message, TEMPLATE)
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


class PrintedUndefined(jinja2.Undefined):
    """Jinja's ``Undefined``, but printing it is recorded."""

    __slots__ = ()

    def __str__(self) -> str:
        # Only a name can be misspelt (an inline `if` without `else` has none).
        found = calling_template(sys._getframe(1)) if self._undefined_name is not None else None
        if found is not None:
            template, line = found
            prints = getattr(template.environment, ATTRIBUTE, None)
            if isinstance(prints, UndefinedPrints):
                prints.record(self, template, line)
        return ""

    __html__ = __str__  # what markupsafe's escape() asks first (autoescape)


class UndefinedPrints:
    """What the layouts of ``env`` printed undefined, by place and page."""

    def __init__(self, env: jinja2.Environment) -> None:
        self.page = ""
        self._variables: tuple[object, object] = (None, None)  # this page's `page` and `site`
        self._found: dict[OnPage, None] = {}  # ordered: warnings in the order first met
        setattr(env, ATTRIBUTE, self)

    def begin_page(self, path: str, page: object, site: object) -> None:
        """Rendering the page at ``path`` (as shown) with these ``page`` and ``site``."""
        self.page = path
        self._variables = (page, site)

    def record(self, value: jinja2.Undefined, template: jinja2.Template, line: int) -> None:
        what = self._described(value, template.filename, line)
        path = template_path(template.name, template.filename)
        problem = Problem(path, line, 0, f"{what} is undefined, so it printed nothing", UNDEFINED)
        self._found[OnPage(problem, self.page, ADVICE)] = None

    def take(self) -> list[OnPage]:
        """What was recorded, in the order first met; then forgotten."""
        found, self._found = self._found, {}
        return list(found)

    def _described(self, value: jinja2.Undefined, filename: str | None, line: int) -> str:
        """``name``, ``item.titel`` as written, ``page.titel``, or ``'titel' of a dict object``."""
        name, obj = value._undefined_name, value._undefined_obj
        if obj is missing:
            return str(name)
        if isinstance(name, str) and filename:
            linecache.checkcache(filename)  # a template edited since (serve)
            expression = _expression_before(linecache.getline(filename, line), name)
            if expression:
                return expression + _attribute(name)
        for variable, known in zip(("page", "site"), self._variables, strict=True):
            if obj is known:
                return variable + _attribute(name)
        return f"{name!r} of a {object_type_repr(obj)}"


def _attribute(name: object) -> str:
    return f".{name}" if isinstance(name, str) and name.isidentifier() else f"[{name!r}]"


_DOTTED = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"


def _expression_before(source_line: str, name: str) -> str | None:
    """The one expression on the line whose ``.name`` or ``["name"]`` was looked up."""
    escaped = re.escape(name)
    pattern = rf"(?<![\w.])({_DOTTED})\s*(?:\.{escaped}\b|\[\s*['\"]{escaped}['\"]\s*\])"
    found = set(re.findall(pattern, source_line))
    return found.pop() if len(found) == 1 else None
