"""Files in content/ that are not pages are published beside the pages, as Hugo publishes a
page bundle's files; what is private, a draft's, or reached through a link is not."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli

from .conftest import small_site

PNG = b"\x89PNG\r\n\x1a\n not checked: copied as it is"
LAYOUT = "<title>{{ page.title }}</title>{{ page.content }}"


def build(site: Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["build", str(site)])
    return result.exit_code, result.output


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


@pytest.fixture
def site(tmp_path: Path, env: Path, sandbox: Any) -> Path:
    root = small_site(
        tmp_path / "site",
        sandbox,
        {
            "templates/page.html": LAYOUT,
            "content/index.md": "Home\n",
            "content/trip/index.md": "![Our tent](photo.png)\n",
            "content/blog/post.md": "A post\n",
            "content/blog/notes.pdf": "%PDF a file beside a page\n",
            "content/legacy.html": "<p>kept as it is: <% media_image 101 %></p>\n",
            "content/trip/maps/route.gpx": "<gpx/>\n",
            "content/drafts/soon.md": "---\ndraft: true\n---\nNot yet\n",
            "content/drafts/soon.jpg": "a draft's image\n",
            "content/secret/index.md": "---\ndraft: true\n---\nNot yet\n",
            "content/secret/plan/sketch.jpg": "a draft bundle's image\n",
            "content/.DS_Store": "finder\n",
            "content/_private/todo.txt": "an author's own\n",
            "content/trip/_notes.txt": "an author's own\n",
            "content/blog/post.md~": "an editor's backup of the page\n",
        },
        player=False,
    )
    (root / "content" / "trip" / "photo.png").write_bytes(PNG)
    return root


def test_files_beside_the_pages_are_published_beside_their_html(site: Path) -> None:
    code, output = build(site)
    assert code == 0, output
    built = snapshot(site / "_site")
    assert built["trip/photo.png"] == PNG  # beside trip/index.html: the relative link works
    assert '<img src="photo.png" alt="Our tent"' in built["trip/index.html"].decode()
    assert built["trip/maps/route.gpx"] == b"<gpx/>\n"
    assert built["blog/notes.pdf"] == b"%PDF a file beside a page\n"
    # a raw .html is published as it is: no page, no layout, no shortcode expanded
    assert built["legacy.html"] == b"<p>kept as it is: <% media_image 101 %></p>\n"
    assert "legacy/index.html" not in built
    published = set(built)
    for private in (".DS_Store", "_private/todo.txt", "trip/_notes.txt", "blog/post.md~"):
        assert private not in published
    # a draft's files stay as unpublished as the draft
    assert not {"drafts/soon.jpg", "secret/plan/sketch.jpg"} & published
    assert "warning" not in output


def test_a_link_in_content_is_never_followed_and_is_named_in_a_warning(
    site: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "id_rsa").write_text("a key the build can read\n")
    os.symlink(outside / "id_rsa", site / "content" / "trip" / "key.png")
    os.symlink(outside, site / "content" / "trip" / "linked")
    code, output = build(site)
    assert code == 0, output
    for name in ("trip/key.png", "trip/linked"):
        assert f"content/{name}: warning: a symlink or not a regular file: skipped" in output
    built = snapshot(site / "_site")
    assert not [name for name in built if "key" in name or "linked" in name]
    assert not any(b"a key the build can read" in data for data in built.values())


@pytest.mark.parametrize(
    ("name", "output"),
    [
        ("blog/post/index.html", "blog/post/index.html"),  # the page content/blog/post.md
        ("media-usage.json", "media-usage.json"),
        ("blog/post", "blog/post/index.html"),  # a file where the page needs a folder
    ],
)
def test_a_file_in_the_way_of_what_the_build_writes_stops_it_naming_the_file(
    site: Path, name: str, output: str
) -> None:
    assert build(site)[0] == 0
    before = snapshot(site / "_site")
    path = site / "content" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("not what the build writes\n")
    code, text = build(site)
    assert code == 2, text
    assert f"content/{name} is in the way of the build's {output}" in text
    assert snapshot(site / "_site") == before  # nothing written


def test_a_static_file_at_the_path_of_a_file_beside_the_pages_is_refused(site: Path) -> None:
    (site / "static").mkdir()
    (site / "static" / "legacy.html").write_text("which one wins?\n")
    code, output = build(site)
    assert code == 2, output
    assert "static/legacy.html is in the way of the build's legacy.html" in output
    assert not (site / "_site").exists()
