"""`pelican` with ``PLUGINS = ["mediashortcodes"]``, as a user runs it, against the sandbox."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from .sites import broken_media, pictures, requests, run, service_options, tree, write_files

pytest.importorskip("pelican")

pytestmark = pytest.mark.slow

ARTICLES = {
    "first.md": (
        "Title: First post\nDate: 2024-01-01\n\nHello <% media_image 101 %>\n\n"
        "<% media_video 201 %>\n\n`<% media_image 999 %>` stays code.\n"
    ),
    "second.md": 'Title: Second\nDate: 2024-01-02\n\n<% media_image 102 caption="A meadow" %>\n',
    "pages/about.md": "Title: About\n\n* <% media_image 103 %>\n",
    "films.md": (
        "Title: Films\nDate: 2024-01-04\n\n"
        '<% media_image 104 widths="160,320" formats="avif,webp" %>\n\n'
        '<% media_video 202 load="click" %>\n'
    ),
    "draft.md": "Title: Draft\nDate: 2024-01-03\nStatus: draft\n\n<% media_image 104 %>\n",
}


def pelicanconf(sandbox: Any) -> str:
    return f"""\
SITENAME = "Magazine"
SITEURL = "https://example.org/blog"
PATH = "content"
TIMEZONE = "UTC"
DEFAULT_LANG = "en"
FEED_ALL_ATOM = None
CATEGORY_FEED_ATOM = None
PLUGINS = ["mediashortcodes"]
MEDIASHORTCODES = {{
    "service": {service_options(sandbox)!r},
    "usage": {{"contact": "web@example.org", "project": "Blog"}},
}}
"""


def pelican(project: Path, env: dict[str, str]) -> Any:
    return run(["pelican", "content", "-o", "output", "-s", "pelicanconf.py"], project, env)


@pytest.fixture(scope="module")
def built(
    tmp_path_factory: pytest.TempPathFactory, host_env: dict[str, str], sandbox_server: Any
) -> dict[str, Any]:
    project = tmp_path_factory.mktemp("pelican")
    write_files(project / "content", ARTICLES)
    write_files(project, {"pelicanconf.py": pelicanconf(sandbox_server)})
    sandbox_server.reset_stats()
    first = pelican(project, host_env)
    assert first.returncode == 0, first.stdout + first.stderr
    cold = requests(sandbox_server), tree(project / "output")
    sandbox_server.reset_stats()
    second = pelican(project, host_env)
    assert second.returncode == 0, second.stdout + second.stderr
    return {
        "project": project,
        "cold": cold,
        "warm": (requests(sandbox_server), tree(project / "output")),
    }


def test_articles_and_pages_show_their_media_from_every_listing(built: dict[str, Any]) -> None:
    output = built["project"] / "output"
    first = (output / "first-post.html").read_text()
    assert 'src="/blog/media/mountain-lake-101-original-' in first
    assert '<iframe title="Welcome to the park"' in first and "media_image 999" in first
    assert "<figure" in (output / "second.html").read_text()
    assert "\x02" not in (output / "index.html").read_text()
    assert broken_media(output, "/blog/") == []
    assert built["cold"][0] > 0


def test_srcset_candidates_the_poster_and_the_click_script_are_published(
    built: dict[str, Any],
) -> None:
    output = built["project"] / "output"
    films = (output / "films.html").read_text()
    srcset = re.search(r'<img [^>]*srcset="([^"]+)"', films)
    assert srcset, films
    candidates = [c.split() for c in srcset.group(1).split(", ")]
    assert [w for _, w in candidates][:2] == ["160w", "320w"]
    poster = re.search(r'<img src="(/blog/media/[^"]+-202-poster-[^"]+)"', films)
    script = re.search(r'<script src="(/blog/media/mediashortcodes-click-[^"]+\.js)"', films)
    assert poster and script, films
    sources = pictures(films)  # formats=: a <picture>, its sources published too
    assert len(sources) == 2 * len(candidates)
    for url in [u for u, _ in candidates] + [poster.group(1), script.group(1), *sources]:
        assert url.startswith("/blog/media/") and (output / url[len("/blog/") :]).is_file(), url


def test_the_manifest_lists_published_pages_by_siteurl(built: dict[str, Any]) -> None:
    manifest = json.loads((built["project"] / "output/media-usage.json").read_text())
    assert manifest == {
        "site": "https://example.org/blog",
        "pages": {
            "https://example.org/blog/first-post.html": {
                "title": "First post",
                "files": [101, 201],
            },
            "https://example.org/blog/pages/about.html": {"title": "About", "files": [103]},
            "https://example.org/blog/films.html": {"title": "Films", "files": [104, 202]},
            "https://example.org/blog/second.html": {"title": "Second", "files": [102]},
        },
    }


def test_a_second_build_makes_no_request_and_the_same_pages(built: dict[str, Any]) -> None:
    requests_made, pages = built["warm"]
    assert requests_made == 0
    cold = built["cold"][1]
    # Feeds and listings carry no build time; the whole output is the same.
    assert pages == cold


def test_every_problem_is_listed_and_nothing_is_written(
    tmp_path: Path, host_env: dict[str, str], sandbox_server: Any
) -> None:
    write_files(tmp_path / "content", {"ok.md": "Title: Ok\nDate: 2024-01-01\n\nFine.\n"})
    write_files(tmp_path, {"pelicanconf.py": pelicanconf(sandbox_server)})
    assert pelican(tmp_path, host_env).returncode == 0
    before = tree(tmp_path / "output")
    write_files(
        tmp_path / "content",
        {
            "bad.md": "Title: Bad\nDate: 2024-01-02\n\n"
            "Oops <% media_image 99999 %>\n\n<% media_video 101 %>\n"
        },
    )
    failed = pelican(tmp_path, host_env)
    assert failed.returncode == 1
    text = " ".join((failed.stdout + failed.stderr).split())
    assert re.findall(r"content/bad\.md:\d+:\d+", text) == [
        "content/bad.md:4:6",
        "content/bad.md:6:1",
    ]
    assert tree(tmp_path / "output") == before


def test_a_hostile_media_template_override_fails_and_leaks_nothing(
    tmp_path: Path, host_env: dict[str, str], sandbox_server: Any
) -> None:
    """A site's override of a shortcode template renders in Jinja's sandbox in every host
    (issue 29, item 1): reaching for Python fails the build at its line, runs nothing."""
    write_files(
        tmp_path / "content", {"ok.md": "Title: Ok\nDate: 2024-01-01\n\n<% media_image 101 %>\n"}
    )
    write_files(tmp_path, {"pelicanconf.py": pelicanconf(sandbox_server)})
    assert pelican(tmp_path, host_env).returncode == 0
    before = tree(tmp_path / "output")
    secret = host_env["MEDIASHORTCODES_CLIENT_SECRET"]
    globals_ = "cycler.__init__.__globals__"
    write_files(
        tmp_path / "templates",
        {
            "media_image.html": '<img src="{{ src }}">\n'
            f"{{{{ {globals_}.os.environ.get('MEDIASHORTCODES_CLIENT_SECRET') }}}}"
            f"{{{{ {globals_}.os.popen('touch PWNED').read() }}}}\n"
        },
    )
    failed = pelican(tmp_path, {**host_env, "COLUMNS": "1000"})
    assert failed.returncode != 0
    said = " ".join((failed.stdout + failed.stderr).split())
    assert "templates/media_image.html:2: '__init__' is refused: templates run in a sandbox" in said
    assert secret not in said
    assert tree(tmp_path / "output") == before
    assert not (tmp_path / "PWNED").exists()


def test_report_output_reports_the_pelican_site(
    built: dict[str, Any], host_env: dict[str, str], sandbox_server: Any
) -> None:
    sandbox_server.clear_usages()
    project = built["project"]
    done = run(["mediashortcodes", "report", "--output", "output"], project, host_env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert {u["web"]["page"] for u in sandbox_server.usages} == {
        "https://example.org/blog/first-post.html",
        "https://example.org/blog/pages/about.html",
        "https://example.org/blog/second.html",
        "https://example.org/blog/films.html",
    }


def test_a_media_folder_that_is_a_link_out_of_the_output_is_never_written_through(
    built: dict[str, Any], tmp_path: Path, host_env: dict[str, str]
) -> None:
    project = tmp_path / "pelican"
    shutil.copytree(built["project"], project, symlinks=True)
    shutil.rmtree(project / "output" / "media")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, project / "output" / "media")  # Pelican keeps its output folder

    done = pelican(project, {**host_env, "COLUMNS": "1000"})  # the log's lines whole
    assert done.returncode != 0
    said = " ".join((done.stdout + done.stderr).split())
    assert f"{project / 'output' / 'media'}: is a symlink, so nothing is read or written" in said
    assert list(elsewhere.iterdir()) == []
