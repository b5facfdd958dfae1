"""Tables and JSON of folders, files and formats, control characters escaped (names come
from the service)."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import asdict

from ..errors import shown
from ..records import File, Folder, FolderNode, Format, folder_tree
from .output import json_text


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: wide 2, combining and format characters 0."""
    width = 0
    for char in text:
        if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Left-aligned columns separated by two spaces; numbers right-aligned."""
    cells = [[shown(str(c)) for c in headers]]
    cells += ([shown(str(c)) for c in row] for row in rows)
    sizes = [[display_width(cell) for cell in row] for row in cells]
    widths = [max(row[i] for row in sizes) for i in range(len(headers))]
    numeric = [
        bool(rows) and all(isinstance(row[i], int) for row in rows) for i in range(len(headers))
    ]
    lines = []
    for row, row_sizes in zip(cells, sizes, strict=True):
        parts = []
        for i, (cell, size) in enumerate(zip(row, row_sizes, strict=True)):
            pad = " " * (widths[i] - size)
            parts.append(pad + cell if numeric[i] else cell + pad)
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def folder_rows(nodes: Sequence[FolderNode], depth: int = 0) -> list[tuple[int, Folder]]:
    """Folders in tree order with their depth."""
    rows: list[tuple[int, Folder]] = []
    for node in nodes:
        rows.append((depth, node.folder))
        rows.extend(folder_rows(node.children, depth + 1))
    return rows


def folders_text(folders: Sequence[Folder]) -> str:
    if not folders:
        return "no folders are visible to this integration"
    rows = [
        (f.id, "  " * depth + f.name + (" (archived)" if f.archived else ""))
        for depth, f in folder_rows(folder_tree(folders))
    ]
    return table(("ID", "NAME"), rows)


def files_text(files: Sequence[File]) -> str:
    if not files:
        return "no files"
    rows = [
        (
            f.id,
            "video" if f.is_video else (f.type.type or "image"),
            f.name,
            f.filename,
            f.filesize,
            f.gdpr_status,
        )
        for f in files
    ]
    return table(("ID", "KIND", "NAME", "FILENAME", "SIZE", "GDPR"), rows)


def formats_text(formats: Sequence[Format]) -> str:
    rows: list[tuple[object, ...]] = [(0, "original", "")]
    for f in formats:
        size = f"{f.width or '?'}x{f.height or '?'}" if f.width or f.height else ""
        rows.append((f.id, f.name, size))
    return table(("ID", "NAME", "SIZE"), rows)


def to_json(records: Sequence[Folder | File | Format]) -> str:
    """The records in the service's own camelCase shape, for scripts."""
    data = [r.to_api() if isinstance(r, (Folder, File)) else asdict(r) for r in records]
    return json_text(data)
