"""``<mediashortcodes-ref>`` elements: shortcodes left in built pages for a later step.

A host without plugins (Zensical) writes each shortcode as an empty element holding its
canonical text and place, or its problems; ``mediashortcodes finish`` resolves them all and
puts the HTML in their place. With no text, the element shows in no search index or table
of contents.
"""

from __future__ import annotations

import html as htmllib
import json
import re
from collections.abc import Iterator

from ..errors import Problem
from ..language.model import Found, Shortcode
from ..language.parser import parse_one

REF_TAG = "mediashortcodes-ref"
_ELEMENT = re.compile(rf"<{REF_TAG}((?:\s+[a-z-]+=\"[^\"]*\")*)\s*>\s*</{REF_TAG}>")
_ATTRIBUTE = re.compile(r'([a-z-]+)="([^"]*)"')


def ref_element(found: Found) -> str:
    """The element that stands for ``found`` in a built page."""
    shortcode = found.shortcode
    if shortcode is not None:
        loc = shortcode.location
        attrs = {
            "data-shortcode": shortcode.to_source(),
            "data-path": loc.path,
            "data-line": str(loc.line),
            "data-col": str(loc.col),
        }
    else:
        problems = [[p.path, p.line, p.col, p.message] for p in found.problems]
        attrs = {"data-problems": json.dumps(problems, ensure_ascii=False)}
    text = "".join(f' {k}="{htmllib.escape(v, quote=True)}"' for k, v in attrs.items())
    return f"<{REF_TAG}{text}></{REF_TAG}>"


def read_refs(text: str, where: str) -> Iterator[Found]:
    """Every reference element in ``text`` (a built page; ``where`` names it in problems),
    as ``text[start:end]`` and what it stands for."""
    for match in _ELEMENT.finditer(text):
        attrs = {k: htmllib.unescape(v) for k, v in _ATTRIBUTE.findall(match.group(1))}
        yield Found(match.start(), match.end(), match.group(), *_ref(attrs, where))


def _ref(attrs: dict[str, str], where: str) -> tuple[Shortcode | None, tuple[Problem, ...]]:
    damaged = "a damaged shortcode reference; build again"
    if "data-problems" in attrs:
        try:
            items = json.loads(attrs["data-problems"])
            problems = tuple(Problem(str(p), int(ln), int(c), str(m)) for p, ln, c, m in items)
        except (ValueError, TypeError):
            problems = (Problem(where, 0, 0, damaged),)
        return None, problems
    path = attrs.get("data-path", where)
    try:
        line, col = int(attrs.get("data-line", "0")), int(attrs.get("data-col", "0"))
    except ValueError:
        line = col = 0
    source = attrs.get("data-shortcode", "")
    found = parse_one(source, path, lambda i: (line, col + i)) if source.startswith("<%") else None
    if found is None or found.shortcode is None:
        return None, (Problem(path, line, col, damaged),)
    return found.shortcode, ()
