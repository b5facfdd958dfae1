"""The folder tree, rebuilt from the service's flat folder list by parent (pure).

The service sends every visible folder in one flat list; ``parent`` and ``depth`` let a
client draw the tree. A folder whose parent is not visible (or that sits in a parent cycle)
is shown at the top level rather than lost.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..records import Folder


@dataclass(frozen=True)
class FolderNode:
    folder: Folder
    children: tuple[FolderNode, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.folder.id,
            "name": self.folder.name,
            "archived": self.folder.archived,
            "separator": self.folder.separator,
            "children": [child.to_json() for child in self.children],
        }


def _effective_parent(folder: Folder, by_id: Mapping[int, Folder]) -> int | None:
    parent = folder.parent
    if parent is None or parent not in by_id:
        return None
    seen = {folder.id}
    current: int | None = parent
    while current is not None:
        if current in seen:
            return None
        seen.add(current)
        above = by_id[current].parent
        current = above if above in by_id else None
    return parent


def folder_tree(folders: Iterable[Folder]) -> list[FolderNode]:
    """Nest the flat list; siblings keep the service's order, ties broken by depth."""
    by_id: dict[int, Folder] = {}
    for folder in folders:
        by_id.setdefault(folder.id, folder)
    ordered = sorted(by_id.values(), key=lambda f: f.depth)  # stable: keeps order within a depth
    children: dict[int | None, list[Folder]] = {}
    for folder in ordered:
        children.setdefault(_effective_parent(folder, by_id), []).append(folder)

    def build(folder: Folder) -> FolderNode:
        return FolderNode(folder, tuple(build(child) for child in children.get(folder.id, ())))

    return [build(root) for root in children.get(None, [])]
