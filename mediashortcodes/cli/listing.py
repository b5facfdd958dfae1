"""Readable tables and JSON of folders, files and formats for the service commands (pure)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict

from ..records import File, Folder, FolderNode, Format, folder_tree


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Left-aligned columns separated by two spaces; numbers right-aligned."""
    cells = [[str(c) for c in headers], *([str(c) for c in row] for row in rows)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    numeric = [
        bool(rows) and all(isinstance(row[i], int) for row in rows) for i in range(len(headers))
    ]
    lines = []
    for row in cells:
        parts = [
            cell.rjust(width) if numeric[i] else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def folder_rows(nodes: Sequence[FolderNode], depth: int = 0) -> list[tuple[int, Folder]]:
    """Folders in tree order with their depth (see :func:`~mediashortcodes.records.folder_tree`)."""
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
    return json.dumps(data, indent=2, ensure_ascii=False)
