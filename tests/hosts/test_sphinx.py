"""`sphinx-build` with ``extensions = ["mediashortcodes.sphinx"]``, as a user runs it, against
the sandbox: reStructuredText and MyST, the html and dirhtml builders, parallel reads,
incremental rebuilds, and problems as Sphinx warnings."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from .sites import broken_media, requests, run, service_options, tree, write_files

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")

pytestmark = pytest.mark.slow

CONF = """\
project = "Docs"
extensions = ["myst_parser", "mediashortcodes.sphinx"]
exclude_patterns = ["_build"]
"""
SITE = '[site]\nbase_url = "https://docs.example.org/"\n\n'  # or html_baseurl in conf.py

# Seven documents, so that `-j 2` reads them in parallel (Sphinx 7 did from six on only).
PAGES = {
    "index.rst": """\
Home
====

.. toctree::

   guide/setup
   guide/deeper
   myst
   films
   plain
   notes

Text.

.. media-image:: 101 thumb
   :alt: Dawn at the lake
   :caption: Dawn

.. media-video:: 201

``<% media_image 999 %>`` is how a shortcode is written.
""",
    "guide/setup.rst": """\
Setup
=====

* A list item

  .. media-image:: 102
     :alt: A meadow
""",
    "guide/deeper.rst": 'Deeper\n======\n\n.. media-image:: 101 "thumb"\n',
    "myst.md": """\
# MyST page

```{media-image} 103
:alt: A waterfall
:caption: Falling water
```

```{media-video} 201
```
""",
    "films.rst": """\
Films
=====

.. media-image:: 104
   :widths: 160,320

.. media-video:: 202
   :load: click
""",
    "plain.rst": "Plain\n=====\n\nNo media.\n",
    "notes.md": "# Notes\n\nNothing here either.\n",
}


def toml(sandbox: Any, site: str = SITE) -> str:
    service = "\n".join(f'{k} = "{v}"' for k, v in service_options(sandbox).items())
    usage = '[usage]\ncontact = "web@example.org"\nproject = "Docs"\n'
    return f"{site}[service]\n{service}\n\n{usage}"


def project(
    root: Path, sandbox: Any, pages: dict[str, str] = PAGES, conf: str = CONF, site: str = SITE
) -> Path:
    files = {"conf.py": conf, "mediashortcodes.toml": toml(sandbox, site), **pages}
    write_files(root, files)
    return root


def build(root: Path, env: dict[str, str], builder: str = "html", *extra: str) -> Any:
    done = run(["sphinx-build", *extra, "-b", builder, ".", f"_build/{builder}"], root, env)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def manifest(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "media-usage.json").read_text())  # type: ignore[no-any-return]


MANIFEST = {
    "index.html": {"title": "Home", "files": [101, 201]},
    "guide/setup.html": {"title": "Setup", "files": [102]},
    "guide/deeper.html": {"title": "Deeper", "files": [101]},
    "myst.html": {"title": "MyST page", "files": [103, 201]},
    "films.html": {"title": "Films", "files": [104, 202]},
    "plain.html": {"title": "Plain", "files": []},
    "notes.html": {"title": "Notes", "files": []},
}


def expected(urls: dict[str, str] | None = None) -> dict[str, Any]:
    """The manifest of PAGES, each page at ``urls[page]`` (default: as the html builder)."""
    base = "https://docs.example.org/"
    pages = {base + (urls or {}).get(k, k): dict(v) for k, v in MANIFEST.items()}
    return {"site": base, "pages": pages}


@pytest.fixture(scope="module")
def built(
    tmp_path_factory: pytest.TempPathFactory, host_env: dict[str, str], sandbox_server: Any
) -> dict[str, Any]:
    """One project built cold (read in parallel), then after one edit, then again."""
    root = project(tmp_path_factory.mktemp("sphinx"), sandbox_server)
    sandbox_server.reset_stats()
    build(root, host_env, "html", "-j", "2")
    cold = requests(sandbox_server), tree(root / "_build/html")
    # One document changes (its shortcode moves and another place joins it): Sphinx reads
    # that one only.
    edited = PAGES["guide/setup.rst"].replace("* A list item", "Intro.\n\n* A list item")
    write_files(root, {"guide/setup.rst": edited + "\n.. media-image:: 101 thumb\n"})
    shutil.rmtree(root / "_build/html/media")  # so every page's media must come back
    sandbox_server.reset_stats()
    incremental = build(root, host_env)
    warm_edit = requests(sandbox_server), tree(root / "_build/html")
    sandbox_server.reset_stats()
    again = build(root, host_env)
    return {
        "root": root,
        "cold": cold,
        "incremental": incremental,
        "edited": warm_edit,
        "again": (requests(sandbox_server), again),
    }


def test_rst_and_myst_pages_show_their_media(built: dict[str, Any]) -> None:
    out = built["root"] / "_build/html"
    pages = built["cold"][1]
    index = pages["index.html"].decode()
    assert '<img src="media/mountain-lake-101-' in index and 'alt="Dawn at the lake"' in index
    assert "<figcaption>Dawn</figcaption>" in index and '<iframe title="Welcome' in index
    assert '<span class="pre">media_image</span>' in index  # a literal stays text
    myst = pages["myst.html"].decode()
    assert '<img src="media/waterfall-103-' in myst and "Falling water" in myst
    assert '<img src="../media/mountain-lake-101-' in pages["guide/deeper.html"].decode()
    films = pages["films.html"].decode()
    assert re.search(r'srcset="media/pine-forest-104-[^"]+ 160w', films), films
    assert '<script src="media/mediashortcodes-click-' in films
    assert not [name for name, page in pages.items() if name.endswith(".html") and b"\x02" in page]
    assert broken_media(out) == []
    assert built["cold"][0] > 0


def test_the_manifest_lists_every_page_by_its_html_url(built: dict[str, Any]) -> None:
    assert json.loads(built["cold"][1]["media-usage.json"]) == expected()


def test_an_incremental_rebuild_reads_one_document_and_keeps_every_page(
    built: dict[str, Any],
) -> None:
    reading = [line for line in built["incremental"].stdout.splitlines() if "reading" in line]
    assert any("guide/setup" in line for line in reading), reading
    assert not any("myst" in line or "films" in line for line in reading), reading
    requests_made, pages = built["edited"]
    assert requests_made == 0  # every file was in the cache
    setup = pages["guide/setup.html"].decode()
    assert '<img src="../media/meadow-flowers-102-' in setup
    assert '<img src="../media/mountain-lake-101-' in setup
    # Every page's media is published and the manifest lists every page, read or not.
    assert broken_media(built["root"] / "_build/html") == []
    want = expected()
    want["pages"]["https://docs.example.org/guide/setup.html"]["files"] = [101, 102]
    assert json.loads(pages["media-usage.json"]) == want


def test_a_warm_rebuild_makes_no_request(built: dict[str, Any]) -> None:
    requests_made, done = built["again"]
    assert requests_made == 0
    assert "0 requests" in done.stdout


def test_report_works_from_the_sphinx_project(
    built: dict[str, Any], host_env: dict[str, str]
) -> None:
    root = built["root"]
    done = run(
        ["mediashortcodes", "report", ".", "--output", "_build/html", "--dry-run"], root, host_env
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "https://docs.example.org/myst.html" in done.stdout


def test_dirhtml_links_pages_as_folders(
    tmp_path: Path, host_env: dict[str, str], sandbox_server: Any
) -> None:
    root = project(tmp_path, sandbox_server)
    build(root, host_env, "dirhtml")
    out = root / "_build/dirhtml"
    assert (
        '<img src="../../media/meadow-flowers-102-' in (out / "guide/setup/index.html").read_text()
    )
    assert broken_media(out) == []
    urls = {k: k.removesuffix("index.html").replace(".html", "/") for k in MANIFEST}
    assert manifest(out) == expected(urls)


def test_singlehtml_shows_each_documents_own_media(
    tmp_path: Path, host_env: dict[str, str], sandbox_server: Any
) -> None:
    root = project(tmp_path, sandbox_server)
    build(root, host_env, "singlehtml")
    out = root / "_build/singlehtml"
    page = (out / "index.html").read_text()
    assert re.search(r'<img src="media/waterfall-103-[^"]+" alt="A waterfall"', page), page
    assert re.search(r'<img src="media/meadow-flowers-102-[^"]+" alt="A meadow"', page)
    assert broken_media(out) == []


BAD = {
    "index.rst": """\
Home
====

.. toctree::

   page

Fine:

.. media-image:: 101

Not there:

.. media-image:: 99999
   :alt: Gone

.. media-image:: abc
""",
    "page.md": "# Page\n\nText.\n\n```{media-video} 101\n```\n",
}


@pytest.fixture(scope="module")
def bad(
    tmp_path_factory: pytest.TempPathFactory, host_env: dict[str, str], sandbox_server: Any
) -> dict[str, Any]:
    # The site's address from conf.py this time.
    conf = CONF + 'html_baseurl = "https://docs.example.org/v2/"\n'
    root = project(tmp_path_factory.mktemp("sphinx-bad"), sandbox_server, BAD, conf, site="")
    plain = run(["sphinx-build", "-b", "html", ".", "_build/html"], root, host_env)
    shutil.rmtree(root / "_build")
    strict = run(["sphinx-build", "-W", "-b", "html", ".", "_build/html"], root, host_env)
    return {"root": root, "plain": plain, "strict": strict}


def test_problems_are_sphinx_warnings_with_document_and_line(bad: dict[str, Any]) -> None:
    plain = bad["plain"]
    assert plain.returncode == 0, plain.stderr
    warnings = [line for line in plain.stderr.splitlines() if "WARNING" in line]
    assert any(re.search(r"index\.rst:14: WARNING: file 99999\b", w) for w in warnings), warnings
    assert any(re.search(r"index\.rst:17: WARNING: file ID must be", w) for w in warnings)
    assert any(re.search(r"page\.md:5: WARNING: .*\b101\b.*video", w) for w in warnings)


def test_the_page_shows_a_placeholder_never_a_broken_image(bad: dict[str, Any]) -> None:
    out = bad["root"] / "_build/html"
    index = (out / "index.html").read_text()
    assert index.count('class="mediashortcodes-missing"') == 2
    assert '<img src="media/mountain-lake-101-' in index
    assert "mediashortcodes-missing" in (out / "page.html").read_text()
    assert broken_media(out) == []
    assert manifest(out)["pages"] == {
        "https://docs.example.org/v2/index.html": {"title": "Home", "files": [101]},
        "https://docs.example.org/v2/page.html": {"title": "Page", "files": []},  # no video
    }


def test_warnings_fail_the_build_under_w(bad: dict[str, Any]) -> None:
    strict = bad["strict"]
    assert strict.returncode != 0
    assert re.search(r"index\.rst:14: (WARNING|ERROR): file 99999\b", strict.stderr), strict.stderr
