"""The Python-Markdown extension: shortcodes in any Python-Markdown host (MkDocs, Zensical,
Pelican, plain ``markdown.Markdown``), with their real places in the source file.

::

    md = markdown.Markdown(extensions=[MediaShortcodesExtension()])
    html = md.convert(text)
    md.mediashortcodes.shortcodes, md.mediashortcodes.problems

Three steps, so Markdown keeps its own meaning everywhere:

1. A preprocessor, first of all, notes where each ``<%`` opens in the text as given (front
   matter already taken off by the host: ``start_line`` says which file line it began on).
2. An inline pattern claims ``<% ... %>`` after code spans (so they are never expanded) and
   before backslash escapes (so ``\\<%`` stays literal), and leaves an empty raw-HTML
   placeholder: Python-Markdown reads nothing inside it as Markdown.
3. A tree processor, after the table of contents took the headings' text, walks the
   document in order: it parses each claimed shortcode at the place it was written, asks
   the renderer for its HTML, and drops the ``<p>`` around a paragraph of shortcodes only.

Without a renderer, a shortcode shows as its own (escaped) text and nothing needs the
network; under Zensical, which has no plugins, each becomes a ``<mediashortcodes-ref>``
element that ``mediashortcodes finish`` resolves in the built site.
"""

from __future__ import annotations

import html as htmllib
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as etree

from markdown import Extension, Markdown
from markdown.inlinepatterns import InlineProcessor
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor

from ..errors import Problem
from ..language import (
    Found,
    LineIndex,
    Shortcode,
    ShortcodeRenderer,
    find_end,
    html_for,
    is_opening,
    parse_one,
    unterminated,
)
from .refs import ref_element

__all__ = ["MediaShortcodesExtension", "ShortcodesDocument", "makeExtension", "start_line_in"]

ATTRIBUTE = "mediashortcodes"  # md.mediashortcodes: the last converted document's results
_PLACEHOLDER = re.compile("\x02wzxhzdk:(\\d+)\x03")  # Python-Markdown's raw-HTML placeholder
_TAG = re.compile(r"<[^>]*>")


@dataclass
class ShortcodesDocument:
    """One converted document: where it came from, and what its shortcodes were."""

    path: str = "<string>"
    start_line: int = 1
    shortcodes: list[Shortcode] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # Where each "<%" opens in the source, by its first line's words: (line, col), in order.
    openings: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    claimed: dict[int, tuple[str, bool]] = field(default_factory=dict)  # stash index -> source


class MediaShortcodesExtension(Extension):
    """``<% media_image ID ... %>`` and ``<% media_video ID ... %>`` in Python-Markdown.

    Options: ``renderer`` (a :class:`ShortcodeRenderer`; none: shortcodes show as text),
    ``path`` and ``start_line`` (where the text comes from, for problems). A host that
    converts many files calls :meth:`set_document` before each; under Zensical the page is
    found by itself.
    """

    def __init__(self, **kwargs: Any) -> None:
        self.config = {
            "renderer": ["", "renders shortcodes (None: they show as their text)"],
            "path": ["<string>", "the source file, as problems name it"],
            "start_line": [1, "the file line of the text's first line (after front matter)"],
        }
        self._document: tuple[str, int] | None = None
        super().__init__(**kwargs)

    def set_document(self, path: str, start_line: int = 1) -> None:
        """Name the file (and the line its text starts on) of the next conversion."""
        self._document = (path, start_line)

    def extendMarkdown(self, md: Markdown) -> None:
        md.registerExtension(self)
        setattr(md, ATTRIBUTE, ShortcodesDocument())
        # First of all: the text exactly as the host gave it (before tabs are expanded).
        md.preprocessors.register(_SourcePreprocessor(md, self), "mediashortcodes", 40)
        # After code spans (190), before backslash escapes (180) and links (160).
        md.inlinePatterns.register(_ShortcodePattern(r"<%", md), "mediashortcodes", 185)
        md.inlinePatterns.register(_LiteralPattern(r"\\<%", md), "mediashortcodes_literal", 186)
        # After the table of contents (5) read the headings, before unescaping (0).
        md.treeprocessors.register(_PlaceTreeprocessor(md, self), "mediashortcodes", 4)


def makeExtension(**kwargs: Any) -> MediaShortcodesExtension:
    return MediaShortcodesExtension(**kwargs)


def _key(source: str) -> str:
    """A shortcode's first line as words: the same whatever tabs and spaces a host changed."""
    return " ".join(source.split("\n", 1)[0].split())


def _openings(text: str) -> Iterator[tuple[int, str]]:
    """Each ``<%`` in ``text`` that opens a shortcode, and the key of its first line."""
    pos = text.find("<%")
    while pos >= 0:
        if is_opening(text, pos) and not _escaped(text, pos):
            line_end = text.find("\n", pos)
            line_end = len(text) if line_end < 0 else line_end
            end = text.find("%>", pos + 2, line_end)
            yield pos, _key(text[pos : line_end if end < 0 else end + 2])
        pos = text.find("<%", pos + 2)


# -- 1. where each shortcode opens ----------------------------------------------------------


class _SourcePreprocessor(Preprocessor):
    def __init__(self, md: Markdown, extension: MediaShortcodesExtension) -> None:
        super().__init__(md)
        self.extension = extension

    def run(self, lines: list[str]) -> list[str]:
        ext = self.extension
        path, start_line = ext._document or (ext.getConfig("path"), ext.getConfig("start_line"))
        if ext._document is None and path == "<string>":
            path, start_line = _zensical_document(self.md, lines) or (path, start_line)
        doc = ShortcodesDocument(path=str(path), start_line=int(start_line))
        setattr(self.md, ATTRIBUTE, doc)
        if not any("<%" in line for line in lines):
            return lines
        doc.lines = lines
        for index, line in enumerate(lines):
            for pos, key in _openings(line):
                doc.openings.setdefault(key, []).append((start_line + index, pos + 1))
        return lines


def _escaped(text: str, pos: int) -> bool:
    """Whether an odd number of backslashes stands right before ``pos``."""
    count = 0
    while pos - count > 0 and text[pos - count - 1] == "\\":
        count += 1
    return count % 2 == 1


# -- 2. claiming shortcodes in inline text ----------------------------------------------------


class _ShortcodePattern(InlineProcessor):
    def handleMatch(self, m: re.Match[str], data: str) -> tuple[str | None, int | None, int | None]:
        start = m.start(0)
        if not is_opening(data, start, escapable=False) or _escaped(data, start):
            return None, None, None  # text; a backslash before it is the escape pattern's
        end = find_end(data, start)
        stop = start + 2 if end is None else end  # unterminated: its "<%" alone
        source = data[start:stop]
        # Code spans inside a value were already taken out by the backtick pattern.
        source = self.unescape(source)
        placeholder = self.md.htmlStash.store("")
        index = int(_PLACEHOLDER.fullmatch(placeholder).group(1))  # type: ignore[union-attr]
        getattr(self.md, ATTRIBUTE).claimed[index] = (source, end is not None)
        return placeholder, start, stop


class _LiteralPattern(InlineProcessor):
    """``\\<%`` is a literal ``<%`` (Python-Markdown does not escape ``<`` itself)."""

    def handleMatch(self, m: re.Match[str], data: str) -> tuple[str | None, int | None, int | None]:
        start = m.start(0)
        if _escaped(data, start) or not is_opening(data, start + 1, escapable=False):
            return None, None, None  # "\\<%": an escaped backslash, then a shortcode
        return "<%", start, start + 3


# -- 3. parsing, rendering and placing, in document order ------------------------------------


class _PlaceTreeprocessor(Treeprocessor):
    def __init__(self, md: Markdown, extension: MediaShortcodesExtension) -> None:
        super().__init__(md)
        self.extension = extension

    def run(self, root: etree.Element) -> None:
        doc: ShortcodesDocument = getattr(self.md, ATTRIBUTE)
        if not doc.claimed:
            return
        renderer = self.extension.getConfig("renderer") or None
        zensical = renderer is None and _zensical_context(self.md) is not None
        used: dict[str, int] = {}  # first-line words -> how many of their places are taken
        done: set[int] = set()  # stash indices of the shortcodes placed
        stash = self.md.htmlStash.rawHtmlBlocks

        def place(text: str | None, code: bool = False) -> None:
            if not text:
                return
            if code:  # shown as code: its "<%" are places no shortcode will claim
                _skip_places(htmllib.unescape(text), used)
                return
            for match in _PLACEHOLDER.finditer(text):
                index = int(match.group(1))
                claim = doc.claimed.get(index)
                if claim is None:  # a fenced code block, raw HTML: another extension's
                    other = stash[index] if index < len(stash) else ""
                    if isinstance(other, str) and "%" in other:
                        _skip_places(htmllib.unescape(_TAG.sub("", other)), used)
                elif index not in done:
                    done.add(index)
                    found = self._parse(doc, claim, used)
                    stash[index] = self._html(found, renderer, zensical)

        def walk(element: etree.Element) -> None:
            place(element.text, code=element.tag == "code")
            for child in element:
                walk(child)
                place(child.tail)

        walk(root)
        if renderer is not None or zensical:
            _unwrap_paragraphs(root, done)

    def _parse(
        self, doc: ShortcodesDocument, claim: tuple[str, bool], used: dict[str, int]
    ) -> Found:
        source, terminated = claim
        line, col = _claim_place(doc, source, used)
        locate = _locator(doc, source, line, col)
        if not terminated:
            found = unterminated(source, 0, doc.path, locate)
        else:
            found = parse_one(source, doc.path, locate)
        if found.shortcode is not None:
            doc.shortcodes.append(found.shortcode)
        doc.problems.extend(found.problems)
        return found

    def _html(self, found: Found, renderer: ShortcodeRenderer | None, zensical: bool) -> str:
        if zensical:
            return ref_element(found)
        if renderer is None:
            return htmllib.escape(found.source, quote=False)
        return html_for(renderer, found)


def _claim_place(doc: ShortcodesDocument, source: str, used: dict[str, int]) -> tuple[int, int]:
    """Where ``source`` was written: the next of the places its first line was seen at."""
    key = _key(source)
    places = doc.openings.get(key)
    if not places and key == "<%":  # unterminated: any opening no other claim explains
        places = [p for k, ps in doc.openings.items() if not k.endswith("%>") for p in ps]
    if not places:
        return 0, 0  # a host changed the text beyond recognition: the file, no line
    n = used.get(key, 0)
    used[key] = n + 1
    return places[min(n, len(places) - 1)]


def _skip_places(text: str, used: dict[str, int]) -> None:
    """Count the openings in text shown as code as taken, so that a shortcode written again
    after its example in code is placed at its own line."""
    for _, key in _openings(text):
        used[key] = used.get(key, 0) + 1


def _locator(
    doc: ShortcodesDocument, source: str, line: int, col: int
) -> Callable[[int], tuple[int, int]]:
    """Offsets in ``source`` to file (line, col); later lines are found on their own line
    of the file, as block quotes and lists take their markers off."""
    index = LineIndex(source)

    def locate(offset: int) -> tuple[int, int]:
        if not line:
            return 0, 0
        j, within = index.split(offset)
        if j == 0:
            return line, col + within
        text = source[index.starts[j] :].split("\n", 1)[0]
        stripped = text.lstrip()
        lead = len(text) - len(stripped)
        at_line = line - doc.start_line + j
        file_line = doc.lines[at_line] if 0 <= at_line < len(doc.lines) else ""
        at = file_line.find(stripped) if stripped else -1
        if at < 0 or within < lead:
            return line + j, within + 1
        return line + j, at + within - lead + 1

    return locate


def _unwrap_paragraphs(root: etree.Element, ours: set[int]) -> None:
    """A paragraph holding only shortcodes renders as their HTML alone (a ``<figure>`` or a
    player is no content of a ``<p>``), as the built-in builder does."""
    for parent in list(root.iter()):
        for index, child in reversed(list(enumerate(parent))):
            if child.tag != "p" or len(child) or not child.text:
                continue
            text = child.text
            if not _PLACEHOLDER.search(text) or _PLACEHOLDER.sub("", text).strip():
                continue
            if not all(int(i) in ours for i in _PLACEHOLDER.findall(text)):
                continue  # another extension's raw HTML
            content = text.strip() + (child.tail or "")
            if index:
                before = parent[index - 1]
                before.tail = (before.tail or "") + content
            else:
                parent.text = (parent.text or "") + content
            parent.remove(child)


# -- Zensical -----------------------------------------------------------------------------


def _zensical_context(md: Markdown) -> Any:
    """Zensical's rendering context (its page) when Zensical converts this document."""
    for processor in md.preprocessors:
        if type(processor).__name__ == "ContextPreprocessor" and hasattr(processor, "page"):
            return processor
    return None


def _zensical_document(md: Markdown, lines: list[str]) -> tuple[str, int] | None:
    """The page's source file, as problems name it, and the line its text starts on
    (Zensical gives the text without its front matter)."""
    context = _zensical_context(md)
    if context is None:
        return None
    docs_dir = str((getattr(context, "config", None) or {}).get("docs_dir") or "docs")
    file = Path(docs_dir) / str(context.page.path)
    try:
        shown = os.path.relpath(file)
    except ValueError:
        shown = str(file)
    return shown, start_line_in(file, "\n".join(lines))


def start_line_in(file: Path, text: str) -> int:
    """The line of ``file`` where ``text`` (its content, front matter taken off) begins."""
    try:
        raw = file.read_text(encoding="utf-8-sig").replace("\r\n", "\n")
    except (OSError, UnicodeDecodeError):
        return 1
    body = text.strip("\n")
    if not body:
        return 1
    at = raw.find(body.split("\n", 1)[0])
    end_of_front = _front_matter_end(raw)
    if end_of_front and at < end_of_front:
        later = raw.find(body.split("\n", 1)[0], end_of_front)
        at = later if later >= 0 else at
    return raw.count("\n", 0, at) + 1 if at >= 0 else 1


def _front_matter_end(raw: str) -> int:
    match = re.match(r"---[ \t]*\n.*?\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", raw, re.DOTALL)
    return match.end() if match else 0
