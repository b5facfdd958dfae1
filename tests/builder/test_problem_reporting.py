"""What a user reads when a build stops: the page behind a layout's problem, one line for a
problem shared by many pages, and the content's problems even when the service is down."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli

NOT_FOUND = (
    "file 99999: it does not exist or is not visible to this integration; check the id "
    "(mediashortcodes search QUERY lists files)"
)


@pytest.fixture
def site(make_site: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example site as ``site/``, run from its parent so problems read ``site/...``."""
    root = make_site()
    monkeypatch.chdir(root.parent)
    return root


def run(*args: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output.splitlines()


def set_hero(site: Path, page: str, hero: str) -> None:
    path = site / "content" / page
    text = path.read_text()
    if "\nhero: " in text:
        start = text.index("\nhero: ") + 1
        text = text[:start] + f"hero: {hero}" + text[text.index("\n", start) :]
    else:
        text = text.replace("---\n", f"---\ntemplate: article.html\nhero: {hero}\n", 1)
    path.write_text(text)


# -- 1. a template call's problem names the page ---------------------------------------------


def test_a_template_call_that_fails_names_the_page_it_was_rendered_for(site: Path) -> None:
    set_hero(site, "articles/autumn-walk.md", "99999")
    code, lines = run("build", "site")
    assert code == 1
    assert lines == [
        "error: 1 problem found; nothing was written",
        f"site/templates/article.html:4: {NOT_FOUND} "
        "(rendering site/content/articles/autumn-walk.md)",
    ]


def test_a_bad_id_from_front_matter_names_the_page_without_the_service(
    site: Path, sandbox: Any
) -> None:
    set_hero(site, "articles/city-nights.md", "'not an id'")
    sandbox.reset_stats()
    code, lines = run("check", "--offline", "site")
    assert code == 1
    assert sum(sandbox.stats.values()) == 0
    (problem,) = lines[1:]
    assert problem.startswith("site/templates/article.html:4: ")
    assert problem.endswith(" (rendering site/content/articles/city-nights.md)")


def test_a_shortcode_in_the_page_itself_is_not_followed_by_its_own_name(site: Path) -> None:
    (site / "content/about.md").write_text("Text\n\n<% media_image 99999 %>\n")
    code, lines = run("build", "site")
    assert code == 1
    assert lines[1:] == [f"site/content/about.md:3:1: {NOT_FOUND}"]


# -- 2. one problem on many pages is listed once ---------------------------------------------


def test_a_layout_error_on_every_page_is_listed_once_naming_the_first_pages(site: Path) -> None:
    base = site / "templates/base.html"
    base.write_text(base.read_text().replace("<title>", "{{ page.nope.deeper }}<title>", 1))
    code, lines = run("check", "--offline", "site")
    assert code == 1
    assert lines == [
        "error: 1 problem found",  # check never writes: it does not say so
        "site/templates/base.html:6:1: 'dict object' has no attribute 'nope' (rendering 7 pages: "
        "site/content/about.md, site/content/articles/autumn-walk.md, "
        "site/content/articles/city-nights.md and 4 more); fix the template",
    ]


def test_the_same_failing_call_on_many_pages_is_listed_once_with_a_count(site: Path) -> None:
    for page in ("articles/autumn-walk.md", "articles/city-nights.md", "gallery.md", "index.md"):
        set_hero(site, page, "99999")
    code, lines = run("build", "site")
    assert code == 1
    assert lines == [
        "error: 1 problem found; nothing was written",
        f"site/templates/article.html:4: {NOT_FOUND} (rendering 4 pages: "
        "site/content/articles/autumn-walk.md, site/content/articles/city-nights.md, "
        "site/content/gallery.md and 1 more)",
    ]


def test_two_pages_are_both_named(site: Path) -> None:
    for page in ("articles/autumn-walk.md", "articles/coastal-town.md"):
        set_hero(site, page, "99999")
    code, lines = run("build", "site")
    assert code == 1
    assert lines[1:] == [
        f"site/templates/article.html:4: {NOT_FOUND} (rendering 2 pages: "
        "site/content/articles/autumn-walk.md, site/content/articles/coastal-town.md)"
    ]


# -- 3. the content's problems are shown when the service or the config stops the build -----

TYPO = "<% media_imag 104 %>\n"
TYPO_MESSAGE = "unknown shortcode 'media_imag': did you mean 'media_image'?"


def test_a_refused_credential_still_lists_the_syntax_problems(site: Path, sandbox: Any) -> None:
    (site / "content/about.md").write_text(f"Text\n\n{TYPO}")
    set_hero(site, "articles/city-nights.md", "'not an id'")
    sandbox.fail(401)
    code, lines = run("build", "site")
    assert code == 3, lines
    assert lines[0].startswith("error: ") and "credentials" in lines[0]
    assert lines[1] == "2 problems found in the content before the build stopped:"
    assert lines[2].startswith(f"site/content/about.md:3:4: {TYPO_MESSAGE}")
    assert lines[3].startswith("site/templates/article.html:4: ")
    assert lines[3].endswith("(rendering site/content/articles/city-nights.md)")
    assert len(lines) == 4
    assert not (site / "_site").exists()


def test_a_missing_credential_still_lists_the_syntax_problems_and_no_secret(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    (site / "content/about.md").write_text(f"Text\n\n{TYPO}")
    monkeypatch.delenv("MEDIASHORTCODES_REFRESH_TOKEN")
    secret = os.environ["MEDIASHORTCODES_CLIENT_SECRET"]
    result = CliRunner().invoke(cli, ["check", "site"], catch_exceptions=False)
    assert result.exit_code == 2, result.output
    assert "MEDIASHORTCODES_REFRESH_TOKEN" in result.output.splitlines()[0]
    assert "1 problem found in the content before the build stopped:" in result.output
    assert f"site/content/about.md:3:4: {TYPO_MESSAGE}" in result.output
    assert secret not in result.output


def test_a_build_without_problems_stopped_by_an_outage_lists_nothing_more(
    site: Path, sandbox: Any
) -> None:
    sandbox.fail(401)
    code, lines = run("build", "site")
    assert code == 3
    assert not any("problem" in line and "found" in line for line in lines)


@pytest.mark.parametrize("command", [("build",), ("check", "--offline")])
def test_a_figure_in_a_heading_is_built_with_a_warning_at_its_place(site: Path, command) -> None:
    page = site / "content" / "about.md"
    page.write_text(page.read_text() + '\n## Our harbour <% media_image 101 caption="Harbour" %>\n')
    line = page.read_text().count("\n")
    code, output = run(*command, "site")
    assert code == 0, output
    assert any(
        text.startswith(
            f"site/content/about.md:{line}:16: warning: an image with a caption is a block"
        )
        for text in output
    ), output
