"""Tables and JSON printed by the service commands."""

from __future__ import annotations

import json

from mediashortcodes.cli.service import (
    files_text,
    folder_rows,
    folders_text,
    formats_text,
    table,
    to_json,
)
from mediashortcodes.records import File, FileType, Folder, Format, folder_tree


def folder(id: int, name: str, parent: int | None = None, **kw) -> Folder:
    return Folder(id=id, name=name, parent=parent, **kw)


def test_folders_print_as_a_tree_indented_under_their_parents():
    folders = [
        folder(1, "Root"),
        folder(5, "Elsewhere"),
        folder(2, "Photos", 1, depth=1),
        folder(3, "2024", 2, depth=2),
        folder(4, "Old", 1, depth=1, archived=True),
    ]
    assert folders_text(folders).splitlines() == [
        "ID  NAME",
        " 1  Root",
        " 2    Photos",
        " 3      2024",
        " 4    Old (archived)",
        " 5  Elsewhere",
    ]


def test_a_folder_whose_parent_is_not_visible_is_shown_at_the_top():
    assert [(d, f.id) for d, f in folder_rows(folder_tree([folder(7, "Shared", 99)]))] == [(0, 7)]


def test_folders_in_a_parent_cycle_are_still_listed():
    cycle = [folder(1, "A", 2, depth=1), folder(2, "B", 1, depth=2)]
    assert sorted(f.id for _, f in folder_rows(folder_tree(cycle))) == [1, 2]


def test_no_folders_gives_a_sentence_not_an_empty_table():
    assert folders_text([]) == "no folders are visible to this integration"


def test_files_show_kind_name_filename_size_and_privacy_status():
    files = [
        File(id=10, name="Harbour", filename="h.jpg", type=FileType(type="image"), filesize=2048,
             gdpr_status="OK"),
        File(id=11, name="Film", filename="f.mp4", media_id="m1", filesize=9),
    ]  # fmt: skip
    assert files_text(files).splitlines() == [
        "ID  KIND   NAME     FILENAME  SIZE  GDPR",
        "10  image  Harbour  h.jpg     2048  OK",
        "11  video  Film     f.mp4        9",
    ]


def test_formats_list_original_first_then_the_services_formats():
    text = formats_text([Format(7, "Thumb", 150, 100), Format(8, "Wide")])
    assert text.splitlines() == [
        "ID  NAME      SIZE",
        " 0  original",
        " 7  Thumb     150x100",
        " 8  Wide",
    ]


def test_numbers_align_right_and_text_left():
    assert table(("N", "WORD"), [(5, "a"), (100, "bbb")]).splitlines() == [
        "  N  WORD",
        "  5  a",
        "100  bbb",
    ]


def test_json_keeps_the_services_camel_case_shape():
    data = json.loads(to_json([folder(2, "Photos", 1, has_children=True)]))
    assert data[0]["parent"] == 1 and data[0]["hasChildren"] is True
    files = json.loads(to_json([File(id=3, media_id="m")]))
    assert files[0]["mediaId"] == "m"
    assert json.loads(to_json([Format(7, "Thumb")])) == [
        {"id": 7, "name": "Thumb", "width": None, "height": None}
    ]


def test_names_that_would_steer_the_terminal_are_printed_as_escapes():
    # A DAM editor's name with a colour change, a title change, an 8-bit CSI and a reversal.
    names = ["Red\x1b[31m", "T\x1b]0;owned\x07", "C\x9b2J", "evil\u202egpj.exe"]
    text = folders_text([folder(i, name) for i, name in enumerate(names, start=1)])
    assert not any(c in text for c in "\x1b\x07\x9b\u202e")
    assert text.splitlines()[1:] == [
        r" 1  Red\x1b[31m",
        r" 2  T\x1b]0;owned\x07",
        r" 3  C\x9b2J",
        r" 4  evil\u202egpj.exe",
    ]
    as_json = to_json([folder(1, names[2]), folder(2, names[3])])
    assert "\x9b" not in as_json and "\u202e" not in as_json
    assert [f["name"] for f in json.loads(as_json)] == names[2:]  # the same data for scripts


def test_columns_line_up_by_display_width_with_wide_and_combining_characters():
    rows = [(1, "写真の港", "x"), (2, "plain", "y"), (3, "😀 party", "z"), (4, "Cafe\u0301", "w")]
    lines = table(("ID", "NAME", "TAG"), rows).splitlines()
    # Each TAG starts at the same screen column: CJK and emoji take two, é (e + accent) one.
    assert lines == [
        "ID  NAME      TAG",
        " 1  写真の港  x",
        " 2  plain     y",
        " 3  😀 party  z",
        " 4  Cafe\u0301      w",
    ]
