"""The folder tree rebuilt from the flat folder list."""

from __future__ import annotations

from mediashortcodes.records import Folder, folder_tree


def names(nodes) -> list:  # type: ignore[no-untyped-def]
    return [(n.folder.name, names(n.children)) if n.children else n.folder.name for n in nodes]


def test_children_nest_under_their_parent_in_the_services_order() -> None:
    flat = [
        Folder(1, "Images"),
        Folder(2, "Videos"),
        Folder(3, "Staff", depth=1, parent=1),
        Folder(4, "Events", depth=1, parent=1),
        Folder(5, "2024", depth=2, parent=4),
    ]
    assert names(folder_tree(flat)) == [("Images", ["Staff", ("Events", ["2024"])]), "Videos"]


def test_a_child_listed_before_its_parent_still_nests() -> None:
    flat = [Folder(5, "2024", depth=1, parent=1), Folder(1, "Events")]
    assert names(folder_tree(flat)) == [("Events", ["2024"])]


def test_a_folder_whose_parent_is_not_visible_is_shown_at_the_top() -> None:
    assert names(folder_tree([Folder(7, "Shared", depth=3, parent=99)])) == ["Shared"]


def test_a_parent_cycle_loses_no_folder() -> None:
    flat = [Folder(1, "A", parent=2), Folder(2, "B", parent=1), Folder(3, "C", parent=3)]
    assert sorted(names(folder_tree(flat))) == ["A", "B", "C"]
