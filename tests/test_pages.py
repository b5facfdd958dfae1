"""Pages: discovery, front matter, pretty URLs, real line numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from mediashortcodes.errors import ConfigError, Problem
from mediashortcodes.site.pages import (
    PageError,
    PageSource,
    list_pages,
    load_pages,
    split_front_matter,
    url_clashes,
    url_path_for,
)


def discover(content: Path, problems: list[Problem] | None = None) -> list[PageSource]:
    """Every page under ``content``, as a build reads them."""
    return load_pages(content, list_pages(content, [], []).files, problems)


@pytest.mark.parametrize(
    ("relative", "url"),
    [
        ("index.md", "/"),
        ("about.md", "/about/"),
        ("blog/post.md", "/blog/post/"),
        ("blog/index.md", "/blog/"),
    ],
)
def test_pretty_urls(relative: str, url: str) -> None:
    assert url_path_for(Path(relative)) == url


def test_front_matter_body_starts_on_its_real_line() -> None:
    front, body, start = split_front_matter("---\ntitle: Hi\ndraft: true\n---\nHello\n", "x.md")
    assert front == {"title": "Hi", "draft": True}
    assert body == "Hello\n"
    assert start == 5


def test_no_front_matter_keeps_the_whole_text() -> None:
    assert split_front_matter("# Title\n", "x.md") == ({}, "# Title\n", 1)


def test_invalid_front_matter_names_file_and_line() -> None:
    with pytest.raises(PageError, match=r"x\.md:3: invalid YAML front matter"):
        split_front_matter("---\ntitle: ok\nbad: [unclosed\n---\nbody\n", "x.md")


@pytest.mark.parametrize("value", ["2024-13-45", "2024-02-30 10:00:00"])
def test_a_value_yaml_cannot_build_names_its_line(value: str) -> None:
    with pytest.raises(PageError, match=r"x\.md:3: invalid value in the front matter"):
        split_front_matter(f"---\ntitle: ok\ndate: {value}\n---\nbody\n", "x.md")


def test_yaml_anchors_and_aliases_in_front_matter_are_refused_at_their_line() -> None:
    # A small alias bomb: were it read, its list would hold 3 ** 3 "lol"s.
    bomb = "---\ntitle: ok\na: &a [lol, lol, lol]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b]\n---\n"
    with pytest.raises(PageError, match=r"x\.md:3: YAML anchors and aliases .* not allowed"):
        split_front_matter(bomb, "x.md")


def test_an_ampersand_or_asterisk_in_a_value_is_no_anchor() -> None:
    text = '---\ntitle: Tom & Jerry\nnote: "&a *b"\nstars: a * b\n---\n'
    assert split_front_matter(text, "x.md")[0] == {
        "title": "Tom & Jerry",
        "note": "&a *b",
        "stars": "a * b",
    }


def test_front_matter_must_be_a_mapping() -> None:
    with pytest.raises(PageError, match="must be a mapping"):
        split_front_matter("---\n- a\n- b\n---\n", "x.md")


def test_unclosed_front_matter_is_an_error() -> None:
    with pytest.raises(PageError, match="no closing ---"):
        split_front_matter("---\ntitle: x\n", "x.md")


def test_discover_finds_nested_pages_in_order(tmp_path: Path) -> None:
    (tmp_path / "blog").mkdir()
    (tmp_path / "index.md").write_text("home")
    (tmp_path / "blog" / "post.md").write_text("---\ntitle: Post\ndraft: true\n---\nx")
    found = discover(tmp_path)
    assert [(p.url_path, p.title, p.draft) for p in found] == [
        ("/blog/post/", "Post", True),
        ("/", "Index", False),
    ]


def test_missing_content_directory_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"create it or set \[site\] content"):
        discover(tmp_path / "nope")


def test_discover_lists_every_unreadable_page_and_keeps_the_others(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("---\n- a list\n---\n")
    (tmp_path / "b.md").write_text("fine")
    (tmp_path / "c.md").write_bytes(b"\xff")
    problems: list = []
    found = discover(tmp_path, problems)
    assert [p.url_path for p in found] == ["/b/"]
    assert [(Path(p.path).name, p.line, p.col) for p in problems] == [
        ("a.md", 2, 1),
        ("c.md", 1, 1),
    ]


def test_a_byte_order_mark_is_no_part_of_the_page(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_bytes(b"\xef\xbb\xbf---\ntitle: T\n---\nHi\n")
    (tmp_path / "b.md").write_bytes(b"\xef\xbb\xbf# Heading\n")
    a, b = discover(tmp_path)
    assert (a.title, a.body, a.body_start_line) == ("T", "Hi\n", 4)
    assert (b.front_matter, b.body) == ({}, "# Heading\n")


def test_a_draft_flag_that_is_not_a_boolean_is_listed_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text('---\ntitle: x\ndraft: "true"\n---\n')
    (tmp_path / "b.md").write_text("---\ndraft: false\n---\n")
    problems: list = []
    assert [p.url_path for p in discover(tmp_path, problems)] == ["/b/"]
    assert [(Path(p.path).name, p.line) for p in problems] == [("a.md", 3)]
    assert "not 'true'; write draft: true or draft: false" in problems[0].message


def test_url_clashes_names_every_source_of_a_shared_url(tmp_path: Path) -> None:
    for name in ("x.md", "x/index.md", "y.md"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("")
    (clash,) = url_clashes(discover(tmp_path))
    assert clash.line == 0  # the whole file: shown as path: message
    assert clash.message.startswith("same URL /x/ as ")
    shown = f"{clash.path}: {clash.message}"
    assert str(tmp_path / "x.md") in shown and str(tmp_path / "x" / "index.md") in shown


def test_a_page_that_cannot_be_read_is_a_page_problem_not_a_traceback(tmp_path, monkeypatch):
    # chmod 000 does not stop root, as CI often runs: fail the read itself.
    page = tmp_path / "content" / "locked.md"
    page.parent.mkdir()
    page.write_text("# Locked\n")
    real_read = Path.read_text

    def read_text(self, *args, **kwargs):
        if self == page:
            raise PermissionError(13, "Permission denied")
        return real_read(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", read_text)
    problems: list = []
    assert discover(tmp_path / "content", problems) == []
    assert [p.message for p in problems] == ["cannot read it: Permission denied"]
