"""A broken layout is a listed problem at the template line to fix, never a traceback.

Run through ``check --offline``: the pages and their layouts render, no service is needed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli

BASE = """<!doctype html>
<title>{{ page.title }}</title>
{% block main %}{% endblock %}
{% include "footer.html" %}
"""
PAGE = """{% extends "base.html" %}
{% block main %}
{{ page.content }}
{% endblock %}
"""


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MEDIASHORTCODES_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "site"
    (root / "content").mkdir(parents=True)
    (root / "templates").mkdir()
    (root / "mediashortcodes.toml").write_text("[service]\nsandbox = true\n")
    write(root, "templates/base.html", BASE)
    write(root, "templates/page.html", PAGE)
    write(root, "templates/footer.html", "<footer></footer>\n")
    write(root, "content/index.md", "---\ntitle: Home\n---\nHello\n")
    write(root, "content/about.md", "---\ntitle: About\ntemplate: wide.html\n---\nUs\n")
    write(root, "templates/wide.html", PAGE)
    return root


def write(root: Path, name: str, text: str) -> None:
    (root / name).write_text(text, encoding="utf-8")


def check(site: Path) -> tuple[int, list[str]]:
    result = CliRunner().invoke(cli, ["check", "--offline", "site"], catch_exceptions=False)
    return result.exit_code, result.output.splitlines()


def test_the_fixture_site_checks_cleanly(site: Path) -> None:
    assert check(site) == (0, ["ok: syntax of 2 pages checked, no problems"])
    (site / "content/about.md").unlink()
    assert check(site) == (0, ["ok: syntax of 1 page checked, no problems"])


def test_a_missing_page_template_points_at_the_template_key(site: Path) -> None:
    (site / "templates/wide.html").unlink()
    code, lines = check(site)
    assert code == 1
    assert (
        "site/content/about.md:3:1: template 'wide.html' not found in site/templates; "
        "create it or fix the page's template: key"
    ) in lines


def test_a_missing_partial_points_at_the_include_not_at_the_pages(site: Path) -> None:
    (site / "templates/footer.html").unlink()
    code, lines = check(site)
    assert code == 1
    assert lines[1:] == [
        "site/templates/base.html:4:1: template 'footer.html' not found in site/templates; "
        "create it or fix the name here"
    ]


def test_an_undefined_attribute_names_the_template_line_and_the_page(site: Path) -> None:
    write(site, "templates/footer.html", "<footer>\n{{ page.hero.id }}\n</footer>\n")
    write(site, "content/index.md", "---\ntitle: Home\nhero: {id: 7}\n---\nHello\n")
    code, lines = check(site)
    assert code == 1
    assert lines[1:] == [
        "site/templates/footer.html:2:1: 'dict object' has no attribute 'hero' "
        "(rendering site/content/about.md); fix the template"
    ]


def test_the_same_error_on_every_page_is_listed_once_naming_them(site: Path) -> None:
    write(site, "templates/footer.html", "<footer>\n{{ page.missing.deeper }}\n</footer>\n")
    code, lines = check(site)
    assert code == 1
    assert lines[1:] == [
        "site/templates/footer.html:2:1: 'dict object' has no attribute 'missing' "
        "(rendering 2 pages: site/content/about.md, site/content/index.md); fix the template"
    ]


def test_a_python_error_in_a_layout_is_a_problem_not_a_traceback(site: Path) -> None:
    write(site, "templates/base.html", BASE.replace("{{ page.title }}", "{{ page.title + 1 }}"))
    code, lines = check(site)
    assert code == 1
    assert any(
        line.startswith("site/templates/base.html:2:1: TypeError: ")
        and line.endswith(
            "(rendering 2 pages: site/content/about.md, site/content/index.md); fix the template"
        )
        for line in lines
    )


def test_a_syntax_error_is_listed_once_at_its_line(site: Path) -> None:
    write(site, "templates/page.html", PAGE.replace("{{ page.content }}", "{{ page.content }"))
    code, lines = check(site)
    assert code == 1
    assert [line for line in lines if "page.html" in line] == [
        "site/templates/page.html:3:1: unexpected '}'; fix the template's syntax"
    ]


def test_a_template_named_without_its_extension_gets_a_suggestion(site: Path) -> None:
    write(site, "content/about.md", "---\ntitle: About\ntemplate: wide\n---\nUs\n")
    code, lines = check(site)
    assert code == 1
    assert (
        "site/content/about.md:3:1: template 'wide' not found in site/templates "
        "(did you mean 'wide.html'?); create it or fix the page's template: key"
    ) in lines


def test_a_template_function_call_is_located_by_its_line_without_an_unknown_column(
    site: Path,
) -> None:
    # media_image() called in a layout has a line but no column: "base.html:2", not ":2:0".
    write(site, "templates/base.html", BASE.replace("<title>", "{{ media_image(7) }}<title>"))
    result = CliRunner().invoke(cli, ["build", "--offline", "site"], catch_exceptions=False)
    assert result.exit_code == 1
    assert (
        "site/templates/base.html:2: file 7: it is not in the cache; build once without --offline"
        " (rendering 2 pages: site/content/about.md, site/content/index.md)"
        in result.output.splitlines()
    )
