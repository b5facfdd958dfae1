"""`mkdocs build` with Material and the plugin, as a user runs it, against the sandbox."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .sites import broken_media, mkdocs_project, pictures, requests, run, tree, write_files

pytest.importorskip("mkdocs")
pytest.importorskip("material")

pytestmark = pytest.mark.slow


@dataclass
class Built:
    project: Path
    cold_requests: int
    warm_requests: int
    cold: dict[str, bytes]  # the site after the first build
    warm: dict[str, bytes]  # after the second, cache kept
    log: str  # the warm build's output


def build_twice(project: Path, env: dict[str, str], sandbox: Any) -> Built:
    sandbox.reset_stats()
    first = run(["mkdocs", "build"], project, env)
    assert first.returncode == 0, first.stderr
    cold_requests = requests(sandbox)
    cold = tree(project / "site")
    sandbox.reset_stats()
    second = run(["mkdocs", "build"], project, env)
    assert second.returncode == 0, second.stderr
    return Built(
        project, cold_requests, requests(sandbox), cold, tree(project / "site"), second.stderr
    )


@pytest.fixture(scope="module")
def site(
    tmp_path_factory: pytest.TempPathFactory, host_env: dict[str, str], sandbox_server: Any
) -> Built:
    """The site under a sub-path, with directory URLs (MkDocs' default): built twice."""
    project = tmp_path_factory.mktemp("mkdocs")
    mkdocs_project(project, sandbox_server)
    return build_twice(project, host_env, sandbox_server)


def test_every_shortcode_of_the_site_is_resolved_and_every_image_loads(site: Built) -> None:
    site_dir = site.project / "site"
    index = (site_dir / "index.html").read_text()
    setup = (site_dir / "guide/setup/index.html").read_text()
    assert site.cold_requests > 0
    assert 'src="media/mountain-lake-101-original-' in index
    assert 'src="../../media/mountain-lake-101-format-1-' in setup  # a list item, relative
    assert "<figure" in setup and "A figure" in setup  # in an admonition
    assert 'alt="over two lines"' in setup  # a block quote, over two lines
    assert '<iframe title="Welcome to the park"' in index
    # Code stays code, and nothing is left over from the markers or the extension.
    assert "media_image 999" in index and "media_image 998" in setup
    assert "\x02" not in index + setup and "mediashortcodes-ref" not in index + setup
    # A paragraph of one shortcode is no paragraph.
    assert "<p><img" not in index and "<p><div" not in index
    assert broken_media(site_dir) == []
    media = sorted(p.name for p in (site_dir / "media").iterdir())
    assert len(media) == 7 and all("-original-" in n or "-format-1-" in n for n in media)


def test_a_formats_image_renders_a_picture_whose_sources_are_published(site: Built) -> None:
    page = site.project / "site"
    urls = pictures((page / "index.html").read_text())
    assert urls and all(u.endswith(".webp") and (page / u).resolve().is_file() for u in urls)


def test_the_manifest_lists_every_page_by_its_address_under_site_url(site: Built) -> None:
    manifest = json.loads(site.cold["media-usage.json"])
    assert manifest == {
        "site": "https://example.org/docs/",
        "pages": {
            "https://example.org/docs/": {"title": "Home", "files": [101, 102, 201]},
            "https://example.org/docs/guide/deeper/page/": {"title": "Deeper", "files": [101]},
            "https://example.org/docs/guide/setup/": {
                "title": "Setup",
                "files": [101, 102, 103, 104, 105],
            },
            "https://example.org/docs/plain/": {"title": "No shortcodes", "files": []},
        },
    }


def test_a_second_build_with_the_cache_makes_no_request_and_the_same_site(site: Built) -> None:
    assert site.warm_requests == 0
    assert "0 requests" in site.log
    assert site.warm == site.cold


def test_without_directory_urls_every_image_loads_too(
    tmp_path: Path, host_env: dict[str, str], sandbox_server: Any
) -> None:
    mkdocs_project(tmp_path, sandbox_server, extra="use_directory_urls: false\n")
    done = run(["mkdocs", "build"], tmp_path, host_env)
    assert done.returncode == 0, done.stderr
    site_dir = tmp_path / "site"
    assert 'src="../media/' in (site_dir / "guide/setup.html").read_text()
    assert broken_media(site_dir) == []
    pages = json.loads((site_dir / "media-usage.json").read_text())["pages"]
    assert sorted(pages) == [
        "https://example.org/docs/guide/deeper/page.html",
        "https://example.org/docs/guide/setup.html",
        "https://example.org/docs/index.html",
        "https://example.org/docs/plain.html",
    ]


def test_srcset_candidates_a_poster_and_the_click_script_are_published_beside_the_pages(
    tmp_path: Path, host_env: dict[str, str], sandbox_server: Any
) -> None:
    films = '# Films\n\n<% media_image 104 widths="160,320" %>\n\n<% media_video 202 load=click %>'
    mkdocs_project(tmp_path, sandbox_server, {"index.md": "# Home\n", "films.md": films})
    done = run(["mkdocs", "build"], tmp_path, host_env)
    assert done.returncode == 0, done.stderr
    page = tmp_path / "site" / "films"
    html = (page / "index.html").read_text()
    srcset = re.search(r'srcset="([^"]+)"', html)
    poster = re.search(r'<img src="(\.\./media/[^"]+-202-poster-[^"]+)"', html)
    script = re.search(r'<script src="(\.\./media/mediashortcodes-click-[^"]+\.js)"', html)
    assert srcset and poster and script, html
    urls = [c.split()[0] for c in srcset.group(1).split(", ")]
    assert len(urls) == 3  # 160w, 320w and the image itself
    for url in [*urls, poster.group(1), script.group(1)]:
        assert url.startswith("../media/") and (page / url).resolve().is_file(), url


PROBLEMS = {
    "index.md": "---\ntitle: Home\n---\n\n# Home\n\n<% media_image 101 %>\n",
    "broken.md": """\
---
title: Broken
---

Unknown: <% media_imag 101 %>

* <% media_image 101 loading=soon %>

<% media_image 99999 %>

<% media_image 201 %>

Open <% media_image 102
""",
    "other.md": "| a |\n|---|\n| <% media_video 101 %> |\n",
}


def test_every_problem_of_the_site_is_listed_and_the_previous_site_stays(
    tmp_path: Path, host_env: dict[str, str], sandbox_server: Any
) -> None:
    mkdocs_project(tmp_path, sandbox_server, {"index.md": PROBLEMS["index.md"]})
    assert run(["mkdocs", "build"], tmp_path, host_env).returncode == 0
    before = tree(tmp_path / "site")
    (tmp_path / ".site.staging-4194301").mkdir()  # a build killed earlier left it
    write_files(tmp_path / "docs", PROBLEMS)
    failed = run(["mkdocs", "build"], tmp_path, host_env)
    assert failed.returncode != 0
    listed = [line for line in failed.stderr.splitlines() if line.startswith("docs/")]
    assert [line.split(": ", 1)[0] for line in listed] == [
        "docs/broken.md:5:13",
        "docs/broken.md:7:30",
        "docs/broken.md:9:1",
        "docs/broken.md:11:1",
        "docs/broken.md:13:6",
        "docs/other.md:3:3",
    ]
    assert "did you mean 'media_image'" in listed[0]
    assert "loading must be lazy or eager" in listed[1]
    assert "file 99999" in listed[2] and "is a video; use media_video" in listed[3]
    assert "unterminated" in listed[4] and "is not a video" in listed[5]
    assert tree(tmp_path / "site") == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging left


def test_a_missing_site_url_is_an_error_naming_the_key(
    tmp_path: Path, host_env: dict[str, str], sandbox_server: Any
) -> None:
    mkdocs_project(tmp_path, sandbox_server, {"index.md": "# Home\n"}, site_url="")
    failed = run(["mkdocs", "build"], tmp_path, host_env)
    assert failed.returncode != 0
    assert "site_url in mkdocs.yml is not set" in failed.stderr


def test_a_dirty_build_still_writes_the_whole_manifest(
    site: Built, host_env: dict[str, str], sandbox_server: Any
) -> None:
    project = site.project
    page = project / "docs/guide/deeper/page.md"
    page.write_text(page.read_text() + "\n<% media_image 106 %>\n")
    sandbox_server.reset_stats()
    done = run(["mkdocs", "build", "--dirty"], project, host_env)
    assert done.returncode == 0, done.stderr
    pages = json.loads((project / "site/media-usage.json").read_text())["pages"]
    before = json.loads(site.warm["media-usage.json"])["pages"]
    assert pages == {
        **before,
        "https://example.org/docs/guide/deeper/page/": {"title": "Deeper", "files": [101, 106]},
    }
    assert broken_media(project / "site") == []


def test_report_output_reports_the_built_site(
    site: Built, host_env: dict[str, str], sandbox_server: Any
) -> None:
    sandbox_server.clear_usages()
    done = run(["mediashortcodes", "report", "--output", "site"], site.project, host_env)
    assert done.returncode == 0, done.stderr
    reported = {u["web"]["page"] for u in sandbox_server.usages}
    assert "https://example.org/docs/guide/setup/" in reported
    again = run(["mediashortcodes", "report", "--output", "site"], site.project, host_env)
    assert again.returncode == 0 and "0 pages reported" in again.stdout


_ = (shutil, Callable)


def test_report_true_reports_after_a_successful_build_only(
    tmp_path: Path, host_env: dict[str, str], sandbox_server: Any
) -> None:
    mkdocs_project(tmp_path, sandbox_server, {"index.md": "# Home\n\n<% media_image 101 %>\n"})
    yml = tmp_path / "mkdocs.yml"
    yml.write_text(yml.read_text().replace("      usage:", "      report: true\n      usage:"))
    sandbox_server.clear_usages()
    done = run(["mkdocs", "build"], tmp_path, host_env)
    assert done.returncode == 0, done.stderr
    assert [(u["web"]["page"], u["id"]) for u in sandbox_server.usages] == [
        ("https://example.org/docs/", [101])
    ]
    write_files(tmp_path / "docs", {"index.md": "# Home\n\n<% media_image 102 %> <% oops %>\n"})
    sandbox_server.clear_usages()
    assert run(["mkdocs", "build"], tmp_path, host_env).returncode != 0
    assert sandbox_server.usages == []  # a failed build reports nothing
