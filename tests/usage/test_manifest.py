"""The usage manifest: page URLs, the JSON contract, atomic files."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mediashortcodes.errors import ConfigError
from mediashortcodes.usage.manifest import Manifest, PageUsage, page_url


@pytest.mark.parametrize(
    ("base", "path", "expected"),
    [
        ("https://www.example.org", "/blog/post/", "https://www.example.org/blog/post/"),
        ("https://www.example.org/", "/blog/post/", "https://www.example.org/blog/post/"),
        ("https://www.example.org", "/", "https://www.example.org/"),
        ("https://x.org/docs", "/blog/", "https://x.org/docs/blog/"),
        ("https://x.org/docs/", "blog/", "https://x.org/docs/blog/"),
        ("https://x.org/docs/", "/", "https://x.org/docs/"),
        ("https://x.org", "https://other.org/page/", "https://other.org/page/"),
    ],
)
def test_page_url_joins_base_url_and_page_path(base: str, path: str, expected: str) -> None:
    assert page_url(base, path) == expected


def test_page_url_without_a_base_url_is_the_path_a_report_then_refuses() -> None:
    assert page_url("", "/blog/post/") == "/blog/post/"


@pytest.mark.parametrize("base", ["www.example.org", "ftp://x.org", "/relative"])
def test_page_url_rejects_a_base_url_that_is_not_absolute_http(base: str) -> None:
    with pytest.raises(ConfigError, match=r"\[site\] base_url"):
        page_url(base, "/")


def test_from_pages_sorts_and_deduplicates_file_ids() -> None:
    manifest = Manifest.from_pages("https://s.org", [("https://s.org/", "Home", [5, 3, 5, 1])])
    assert manifest.pages["https://s.org/"] == PageUsage("Home", (1, 3, 5))


def test_from_pages_merges_a_page_given_twice_and_keeps_its_first_title() -> None:
    manifest = Manifest.from_pages(
        "https://s.org", [("https://s.org/a/", "A", [1]), ("https://s.org/a/", "Layout", [2])]
    )
    assert manifest.pages == {"https://s.org/a/": PageUsage("A", (1, 2))}


def test_from_pages_rejects_an_id_that_is_not_an_integer() -> None:
    expected = re.escape(
        "page https://s.org/: file ids must be integers from 0 to 9223372036854775807, got '7'"
    )
    with pytest.raises(ConfigError, match=expected):
        Manifest.from_pages("https://s.org", [("https://s.org/", "Home", ["7"])])  # type: ignore[list-item]


def test_to_json_writes_the_contract_format_with_pages_sorted() -> None:
    manifest = Manifest.from_pages(
        "https://s.org", [("https://s.org/b/", "B", [2, 1]), ("https://s.org/a/", "Å", [])]
    )
    assert json.loads(manifest.to_json()) == {
        "site": "https://s.org",
        "pages": {
            "https://s.org/a/": {"title": "Å", "files": []},
            "https://s.org/b/": {"title": "B", "files": [1, 2]},
        },
    }
    assert list(json.loads(manifest.to_json())["pages"]) == ["https://s.org/a/", "https://s.org/b/"]


page_entries = st.lists(
    st.tuples(
        st.text(min_size=1).map(lambda s: "https://s.org/" + s),
        st.text(),
        st.lists(st.integers(min_value=0, max_value=2**40)),
    )
)


@given(page_entries)
def test_a_manifest_survives_a_json_round_trip(entries: list) -> None:
    manifest = Manifest.from_pages("https://s.org", entries)
    assert Manifest.from_json(manifest.to_json()) == manifest


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[]", "not a usage manifest"),
        ('{"site": "x"}', "not a usage manifest"),
        ('{"site": 3, "pages": {}}', '"site" must be a string'),
        ('{"site": "x", "service": 1, "pages": {}}', '"service" must be a string'),
        ('{"site": "x", "pages": {"u": {"files": [], "pending": 2}}}', '"pending" must be a list'),
        (
            '{"site": "x", "pages": {"u": {"title": "t"}}}',
            'page u must be an object with a "files"',
        ),
        ('{"site": "x", "pages": {"u": {"title": 1, "files": []}}}', '"title" must be a string'),
        ('{"site": "x", "pages": {"u": {"title": "t", "files": [true]}}}', "must be integers"),
    ],
)
def test_from_json_names_the_source_and_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=r"^site/media-usage\.json: ") as info:
        Manifest.from_json(text, source="site/media-usage.json")
    assert message in str(info.value)


def test_load_of_a_missing_manifest_says_to_build_first(tmp_path) -> None:
    with pytest.raises(ConfigError, match="run `mediashortcodes build` first"):
        Manifest.load(tmp_path / "media-usage.json")


def test_write_atomic_creates_folders_and_leaves_no_temporary_file(tmp_path) -> None:
    manifest = Manifest.from_pages("https://s.org", [("https://s.org/", "Home", [1])])
    target = tmp_path / "out" / "media-usage.json"
    manifest.write_atomic(target)
    manifest.write_atomic(target)
    assert Manifest.load(target) == manifest
    assert [p.name for p in target.parent.iterdir()] == ["media-usage.json"]


def test_manifest_pages_cannot_be_changed_after_creation() -> None:
    manifest = Manifest.from_pages("https://s.org", [("https://s.org/", "Home", [1])])
    with pytest.raises(TypeError):
        manifest.pages["https://s.org/x/"] = PageUsage("X", (2,))  # type: ignore[index]


@given(
    site=st.text(max_size=30),
    service=st.text(max_size=30),
    pages=st.dictionaries(
        st.text(max_size=30),
        st.tuples(
            st.text(max_size=30),
            st.lists(st.integers(0, 10**12), max_size=6),
            st.lists(st.integers(0, 10**12), max_size=3),
        ),
        max_size=5,
    ),
)
def test_to_json_is_the_indented_json_of_the_manifest(
    site: str, service: str, pages: dict[str, tuple[str, list[int], list[int]]]
) -> None:
    # A report state has a service and pending files; a build's manifest has neither.
    manifest = Manifest(
        site,
        {
            url: PageUsage(title, tuple(sorted(set(ids))), tuple(sorted(set(pending))))
            for url, (title, ids, pending) in pages.items()
        },
        service=service,
    )
    data: dict = {"site": site, **({"service": service} if service else {}), "pages": {}}
    for url, page in manifest.pages.items():
        data["pages"][url] = {"title": page.title, "files": list(page.files)}
        if page.pending:
            data["pages"][url]["pending"] = list(page.pending)
    assert manifest.to_json() == json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    assert Manifest.from_json(manifest.to_json()) == manifest


def test_a_written_manifest_is_readable_by_the_web_server_like_any_published_file(tmp_path):
    # mkstemp's 0600 made the published media-usage.json 404/403 for a server running as
    # another user, and --previous failed on every run after.
    target = tmp_path / "out" / "media-usage.json"
    Manifest.from_pages("https://s.org", [("https://s.org/", "Home", [1])]).write_atomic(target)
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    assert target.stat().st_mode & 0o777 == plain.stat().st_mode & 0o777
