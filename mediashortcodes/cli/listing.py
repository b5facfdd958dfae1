"""Readable tables and JSON of folders, files and formats for the service commands (pure)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict

from ..records import File, Folder, Format


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


def folder_tree(folders: Sequence[Folder]) -> list[tuple[int, Folder]]:
    """Folders in tree order with their depth, built from ``parent`` links.

    Siblings keep the service's order; a folder whose parent is not in the list is shown
    as a top-level folder, so nothing the integration may see is hidden.
    """
    by_id = {f.id: f for f in folders}
    children: dict[int | None, list[Folder]] = {}
    for folder in folders:
        parent = folder.parent if folder.parent in by_id and folder.parent != folder.id else None
        children.setdefault(parent, []).append(folder)
    ordered: list[tuple[int, Folder]] = []
    seen: set[int] = set()

    def walk(parent: int | None, depth: int) -> None:
        for folder in children.get(parent, ()):
            if folder.id not in seen:
                seen.add(folder.id)
                ordered.append((depth, folder))
                walk(folder.id, depth + 1)

    walk(None, 0)
    # Folders caught in a parent cycle are unreachable from the top; show them anyway.
    ordered.extend((folder.depth, folder) for folder in folders if folder.id not in seen)
    return ordered


def folders_text(folders: Sequence[Folder]) -> str:
    if not folders:
        return "no folders are visible to this integration"
    rows = [
        (f.id, "  " * depth + f.name + (" (archived)" if f.archived else ""))
        for depth, f in folder_tree(folders)
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
