"""Lines and columns in the file (front matter included) of the shortcodes markdown-it-py
found."""

from __future__ import annotations

from functools import cached_property

from markdown_it.token import Token

from ..language import LineIndex


class SourceLines:
    """The document's lines, and how far inline tokens already reached on each line."""

    def __init__(self, src: str, start_line: int) -> None:
        self.src = src
        self.start_line = start_line
        self.cursors: dict[int, int] = {}

    @cached_property  # only for shortcodes inside paragraphs and HTML: most pages have none
    def lines(self) -> list[str]:
        return self.src.split("\n")

    def find(self, index: int, text: str) -> int:
        """Column (0-based) of ``text`` on line ``index``, after earlier cells of that line."""
        if not 0 <= index < len(self.lines):
            return -1
        line = self.lines[index]
        cursor = self.cursors.get(index, 0)
        col = line.find(text, cursor)
        if col < 0:
            col = line.find(text)
        if col >= 0:
            self.cursors[index] = max(cursor, col + len(text))
        return col


class Locator:
    """Offsets in an inline or HTML block token's content to (line, col) in the file: each
    content line (markers, ``>`` and indentation stripped; a table cell) found on its line."""

    def __init__(self, source: SourceLines, token: Token) -> None:
        self.source = source
        self.content = token.content
        self.first = token.map[0] if token.map else None
        self.index = LineIndex(self.content)
        self.cols: dict[int, int] = {}

    def __call__(self, offset: int) -> tuple[int, int]:
        j, col = self.index.split(offset)
        if self.first is None:
            return self.source.start_line + j, col + 1
        return self.source.start_line + self.first + j, self._line_col(j) + col + 1

    def advance(self) -> None:
        """Claim this token's place on its first line, so a later table cell is found after it."""
        if self.first is not None:
            self._line_col(0)

    def _line_col(self, j: int) -> int:
        if j not in self.cols:
            starts = self.index.starts
            end = starts[j + 1] - 1 if j + 1 < len(starts) else len(self.content)
            text = self.content[starts[j] : end].rstrip()
            found = self.source.find(self.first + j, text) if text and self.first is not None else 0
            self.cols[j] = max(found, 0)
        return self.cols[j]

    def shortcode_start(self, offset: int, source: str) -> tuple[int, int]:
        """Where ``source`` (a shortcode at ``offset``) starts, checked against the file."""
        line, col = self(offset)
        if self.first is None:
            return line, col
        index = line - self.source.start_line
        lines = self.source.lines
        text = lines[index] if 0 <= index < len(lines) else ""
        head = source.split("\n", 1)[0]
        found = col - 1 if text.startswith(head, col - 1) else text.find(head)
        return (line, found + 1) if found >= 0 else (line, col)
