"""Which file answers a URL: pretty URLs, and nothing outside the built output."""

from __future__ import annotations

from pathlib import Path

import pytest

from mediashortcodes.serve.files import Found, Redirect, locate


@pytest.fixture
def output(tmp_path: Path) -> Path:
    """A built output beside a secret and the site's sources."""
    (tmp_path / "secret.txt").write_text("secret")
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "page.md").write_text("# draft")
    root = tmp_path / "_site"
    (root / "blog" / "post").mkdir(parents=True)
    (root / "index.html").write_text("home")
    (root / "blog" / "post" / "index.html").write_text("post")
    (root / "media").mkdir()
    (root / "media" / "a b.jpg").write_bytes(b"jpg")
    (root / "style.css").write_text("css")
    return root


def test_pretty_urls_resolve_and_a_folder_without_its_slash_redirects(output: Path) -> None:
    assert locate(output, "/") == Found(output / "index.html")
    assert locate(output, "/blog/post/") == Found(output / "blog/post/index.html")
    assert locate(output, "/blog/post") == Redirect("/blog/post/")
    assert locate(output, "/media/a%20b.jpg") == Found(output / "media/a b.jpg")
    assert locate(output, "/style.css") == Found(output / "style.css")
    assert locate(output, "/style.css/") is None
    assert locate(output, "/nope/") is None


@pytest.mark.parametrize(
    "path",
    [
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/blog/%2E%2E/%2E%2E/secret.txt",
        "/blog/..%2f..%2fsecret.txt",
        "/..%5csecret.txt",
        "/./index.html",
        "/index.html%00.css",
        "/%ff",
        "relative",
    ],
)
def test_nothing_outside_the_output_is_reached(output: Path, path: str) -> None:
    assert locate(output, path) is None


def test_no_symbolic_link_is_followed_and_no_folder_is_listed(output: Path) -> None:
    (output / "leak.txt").symlink_to(output.parent / "secret.txt")
    (output / "sources").symlink_to(output.parent / "sources", target_is_directory=True)
    (output / "blog" / "post" / "same.html").symlink_to(output / "index.html")
    assert locate(output, "/leak.txt") is None
    assert locate(output, "/sources/page.md") is None
    assert locate(output, "/sources/") is None
    assert locate(output, "/blog/post/same.html") is None  # even one that stays inside
    assert locate(output, "/media/") is None  # a folder without index.html: no listing
