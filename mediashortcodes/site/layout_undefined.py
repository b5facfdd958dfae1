"""Undefined values a layout prints, as warnings at the template line that printed them.

A typo (``{{ page.titel }}``) prints nothing, but an error would be wrong: front matter is
optional, and tests, ``or``, ``default`` and loops are how layouts say so. Only *printing*
an undefined value is worth a warning.
"""

from __future__ import annotations

import linecache
import re
import sys
from types import FrameType

import jinja2
from jinja2.utils import missing, object_type_repr

from ..errors import Problem
from ..jinja import calling_template, template_path
from .template_problems import OnPage, pages_named

ATTRIBUTE = "mediashortcodes_undefined_prints"  # the environment's recorder, if any
UNDEFINED = "undefined"  # the warning's code (Problem.code)
ADVICE = '; fix the name, or add | default("") if the value is optional'


class PrintedUndefined(jinja2.Undefined):
    """Jinja's ``Undefined``, but printing it is recorded."""

    __slots__ = ()

    def __str__(self) -> str:
        _record(self, sys._getframe(1))
        return ""

    __html__ = __str__  # what markupsafe's escape() asks first (autoescape)


def _record(value: jinja2.Undefined, frame: FrameType | None) -> None:
    # Only a name can be misspelt (an inline `if` without `else` has none).
    if value._undefined_name is None:
        return
    found = calling_template(frame)
    if found is not None:
        template, line = found
        prints = getattr(template.environment, ATTRIBUTE, None)
        if isinstance(prints, UndefinedPrints):
            prints.record(value, template, line)


class UndefinedPrints:
    """What the layouts printed undefined, by place and page; set it on an environment."""

    def __init__(self) -> None:
        self.page = ""
        self._variables: tuple[object, object] = (None, None)  # this page's `page` and `site`
        self._found: dict[OnPage, None] = {}  # ordered: warnings in the order first met

    def install(self, env: jinja2.Environment) -> None:
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

    def warnings(self, found: list[OnPage] | None = None) -> list[Problem]:
        """One line per place and name, naming its pages; then forgotten. ``found``: these
        instead (the workers' recorders', in page order)."""
        return pages_named(found or self.take())

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
            expression = _expression_before(_source_line(filename, line), name)
            if expression:
                return expression + _attribute(name)
        for variable, known in zip(("page", "site"), self._variables, strict=True):
            if obj is known:
                return variable + _attribute(name)
        return f"{name!r} of a {object_type_repr(obj)}"


def _source_line(filename: str, line: int) -> str:
    linecache.checkcache(filename)  # a template edited since (serve)
    return linecache.getline(filename, line)


def _attribute(name: object) -> str:
    return f".{name}" if isinstance(name, str) and name.isidentifier() else f"[{name!r}]"


_DOTTED = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"


def _expression_before(source_line: str, name: str) -> str | None:
    """The one expression on the line whose ``.name`` or ``["name"]`` was looked up."""
    escaped = re.escape(name)
    pattern = rf"(?<![\w.])({_DOTTED})\s*(?:\.{escaped}\b|\[\s*['\"]{escaped}['\"]\s*\])"
    found = set(re.findall(pattern, source_line))
    return found.pop() if len(found) == 1 else None
