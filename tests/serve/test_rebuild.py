"""Rebuilds as serve runs them, against the sandbox: an edited page is written exactly as a
whole build writes it, anything more builds the whole site, and a problem stays over the
pages until it is fixed."""

from __future__ import annotations

import filecmp
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from mediashortcodes.config import load
from mediashortcodes.serve.channel import LiveChannel
from mediashortcodes.serve.rebuild import Rebuilder, served_config
from mediashortcodes.site.builder import BuildOptions, SiteBuilder

EXAMPLE = Path(__file__).resolve().parents[2] / "example_site"
ORIGIN = "http://127.0.0.1:8000"


@pytest.fixture
def site(tmp_path: Path, sandbox: Any, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example site, asking the test's sandbox by its URLs."""
    for name, value in sandbox.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("MEDIASHORTCODES_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "site"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("_site", ".mediashortcodes"))
    config = root / "mediashortcodes.toml"
    text = config.read_text().replace("sandbox = true", f'download_url = "{sandbox.download_url}"')
    config.write_text(text)
    return root


class Served:
    def __init__(self, site: Path, output: Path) -> None:
        self.site = site
        self.channel = LiveChannel()
        self.lines: list[str] = []
        self.config = served_config(load(site), ORIGIN)
        self.rebuilder = Rebuilder(self.config, output, self.channel, self.lines.append)
        self.output = output

    def rebuild(self, *changed: str) -> str:
        """The last line the rebuild printed."""
        self.rebuilder.rebuild({(self.site / name).resolve() for name in changed})
        return self.lines[-1]

    def edit(self, name: str, old: str, new: str) -> None:
        path = self.site / name
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new, 1))


@pytest.fixture
def served(site: Path, tmp_path: Path) -> Served:
    served = Served(site, tmp_path / "served" / "site")
    assert served.rebuild().startswith("built ")
    return served


def whole_build(served: Served, output: Path) -> Path:
    SiteBuilder(served.config, BuildOptions(output=output)).build()
    return output


def assert_same_site(served: Path, whole: Path) -> None:
    """Every file of the whole build, byte for byte, in the served output (which may keep a
    media file no page uses any more)."""
    for path in whole.rglob("*"):
        if path.is_file():
            assert filecmp.cmp(path, served / path.relative_to(whole), shallow=False), path


def test_an_edited_page_is_rendered_alone_and_written_as_a_whole_build_writes_it(
    served: Served, tmp_path: Path
) -> None:
    page = "content/articles/city-nights.md"
    served.edit(page, "\n\n", '\n\nA new paragraph.\n\n<% media_image 113 small alt="Tram" %>\n\n')
    assert served.rebuild(page).startswith("updated 1 page, ")
    html = (served.output / "articles/city-nights/index.html").read_text()
    assert "A new paragraph." in html
    assert 'alt="Tram"' in html
    assert served.channel.state.version == 2
    manifest = json.loads((served.output / "media-usage.json").read_text())
    assert manifest["site"] == ORIGIN + "/"  # the served build's URLs are the local address
    assert f"{ORIGIN}/articles/city-nights/" in manifest["pages"]
    assert_same_site(served.output, whole_build(served, tmp_path / "whole"))


def test_a_changed_title_builds_every_page_that_lists_it(served: Served) -> None:
    served.edit("content/gallery.md", "title: Gallery", "title: Pictures")
    assert served.rebuild("content/gallery.md").startswith("built ")
    assert ">Pictures</a>" in (served.output / "about" / "index.html").read_text()


def test_a_problem_stays_over_the_pages_until_it_is_fixed(served: Served) -> None:
    broken, other = "content/about.md", "content/articles/city-nights.md"
    before = (served.output / "about/index.html").read_bytes()
    served.edit(broken, "\n\n", "\n\n<% media_image 101 colour=red %>\n\n")
    served.rebuild(broken)
    state = served.channel.state
    [problem] = state.problems
    assert problem["path"].endswith("content/about.md")
    assert (problem["line"], problem["col"]) > (1, 0)
    assert "unknown key 'colour'" in problem["message"]
    assert (served.output / "about/index.html").read_bytes() == before  # the last good page

    served.edit(other, "\n\n", "\n\nMore words.\n\n")  # another page: the problem is still there
    served.rebuild(other)
    assert served.channel.state.problems == state.problems

    served.edit(broken, " colour=red", "")
    assert served.rebuild(broken).startswith("updated 2 pages, ")
    assert served.channel.state.message == ""
    assert "More words." in (served.output / "articles/city-nights/index.html").read_text()


def test_a_broken_layout_is_shown_at_its_line_and_the_last_good_pages_stay(
    served: Served,
) -> None:
    before = (served.output / "index.html").read_bytes()
    served.edit("templates/page.html", "{{ page.content }}", "{{ page.content }")
    served.rebuild("templates/page.html")
    [problem] = served.channel.state.problems
    assert problem["path"].endswith("templates/page.html")
    assert problem["line"] == 5
    assert (served.output / "index.html").read_bytes() == before
    served.edit("templates/page.html", "{{ page.content }", "{{ page.content }}")
    assert served.rebuild("templates/page.html").startswith("built ")
    assert served.channel.state.problems == ()
