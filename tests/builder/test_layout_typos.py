"""A typo in a layout is a warning at the line that printed nothing, naming the pages.

What a newcomer meets: ``{{ page.titel }}`` printed nothing, exit 0, no word. An undefined
value that is *printed* now warns once per template place, while the ways layouts guard
optional front matter (``if``, ``is defined``, ``or``, ``default``, a loop) stay silent. It
stays a warning: the build succeeds and writes the site.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli

from .conftest import small_site

ADVICE = '; fix the name, or add | default("") if the value is optional'


def run(*args: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output.splitlines()


def without_summary(lines: list[str]) -> list[str]:
    return [line for line in lines if not line.startswith(("built ", "ok: "))]


@pytest.fixture
def example(make_site: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example site (7 published pages) as ``site/``, run from its parent."""
    root = make_site()
    monkeypatch.chdir(root.parent)
    return root


def test_a_misspelt_key_in_the_base_layout_warns_once_naming_the_pages(example: Path) -> None:
    base = example / "templates/base.html"
    base.write_text(base.read_text().replace("{{ page.title }} ·", "{{ page.titel }} ·"))
    code, lines = run("build", "site")
    assert code == 0
    assert without_summary(lines) == [
        "site/templates/base.html:6: warning: page.titel is undefined, so it printed nothing "
        "(rendering 6 pages: site/content/about.md, site/content/articles/autumn-walk.md, "
        f"site/content/articles/city-nights.md and 3 more){ADVICE}"  # the home page
    ]  # prints the site's name alone
    assert lines[-1].startswith("built 7 pages, ")
    assert "<title> · Northern Light</title>" in (example / "_site/about/index.html").read_text()
    # check --offline renders the layouts too: the same word, without the service
    code, lines = run("check", "--offline", "site")
    assert (code, len(without_summary(lines))) == (0, 1)
    assert lines[0].startswith("site/templates/base.html:6: warning: page.titel is undefined")


def test_the_unmodified_example_site_prints_no_undefined_value(example: Path) -> None:
    code, lines = run("check", "--offline", "site")
    assert (code, lines) == (0, ["ok: syntax of 7 pages checked, no problems"])


LAYOUT = """{% extends "base.html" %}
{% block main %}
{% if page.subtitle %}<h2>{{ page.subtitle }}</h2>{% endif %}
<p>{{ page.subtitle or "" }}{{ page.subtitle | default("none") }}{{ page.subtitle | d }}</p>
{% if page.subtitle is defined %}yes{% endif %}{% if undefined_var is undefined %}no{% endif %}
{% for tag in page.tags %}{{ tag }}{% endfor %}{% for x in site.nothing %}{{ x }}{% endfor %}
{{ "new" if page.fresh }}{% for item in site.pages %}{{ loop.previtem }}{% endfor %}
{% set note = page.note | default("") %}{{ note }}{{ page.front_matter.get("nope", "") }}
{{ page.content }}
{% endblock %}
"""
BASE = """<title>{{ page.title }}</title>
{% block main %}{% endblock %}
{% include "partials/footer.html" %}
"""


@pytest.fixture
def site(tmp_path: Path, env: Path, sandbox: Any, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Three pages, one with a subtitle, on a layout that guards every optional key."""
    monkeypatch.chdir(tmp_path)
    return small_site(
        tmp_path / "site",
        sandbox,
        {
            "templates/base.html": BASE,
            "templates/page.html": LAYOUT,
            "templates/partials/footer.html": "<footer></footer>\n",
            "content/index.md": "---\ntitle: Home\nsubtitle: Welcome\ntags: [a, b]\n---\nHi\n",
            "content/a.md": "---\ntitle: A\n---\nA\n",
            "content/b.md": "---\ntitle: B\n---\nB\n",
        },
        player=False,
    )


@pytest.mark.parametrize("command", [["build", "site"], ["check", "--offline", "site"]])
def test_guarded_optional_front_matter_stays_silent(site: Path, command: list[str]) -> None:
    code, lines = run(*command)
    assert (code, without_summary(lines)) == (0, [])
    assert len(lines) == 1


def test_typos_in_a_partial_a_macro_and_a_loop_name_their_own_lines(site: Path) -> None:
    (site / "templates/partials/footer.html").write_text(
        '{% from "partials/macros.html" import byline %}<footer>\n'
        "{{ site.bogus }}\n"
        "{{ undefined_var }} {{ undefined_var }}{{ byline(page) }}\n"
        '{% for item in site.pages %}{{ item.titel }}{{ item["slug"] }}{% endfor %}\n'
        "{{ page.front_matter.subtitel }}</footer>\n"
    )
    (site / "templates/partials/macros.html").write_text(
        "{% macro byline(p) %}\nby {{ p.author }}{% endmacro %}\n"
    )
    code, lines = run("check", "--offline", "site")
    assert code == 0
    everywhere = (
        f"(rendering 3 pages: site/content/a.md, site/content/b.md, site/content/index.md){ADVICE}"
    )
    printed = "is undefined, so it printed nothing"
    assert without_summary(lines) == [
        f"site/templates/partials/footer.html:2: warning: site.bogus {printed} {everywhere}",
        f"site/templates/partials/footer.html:3: warning: undefined_var {printed} {everywhere}",
        f"site/templates/partials/macros.html:2: warning: p.author {printed} {everywhere}",
        f"site/templates/partials/footer.html:4: warning: item.titel {printed} {everywhere}",
        f"site/templates/partials/footer.html:4: warning: item.slug {printed} {everywhere}",
        f"site/templates/partials/footer.html:5: warning: page.front_matter.subtitel {printed} "
        f"{everywhere}",
    ]
    assert lines[-1] == "ok: syntax of 3 pages checked, no errors, 6 warnings (listed above)"


def test_an_unguarded_optional_key_warns_for_the_pages_without_it(site: Path) -> None:
    layout = site / "templates/page.html"
    layout.write_text(layout.read_text().replace("{{ page.content }}", "{{ page.subtitle }}"))
    code, lines = run("build", "site")
    assert code == 0
    assert without_summary(lines) == [
        "site/templates/page.html:9: warning: page.subtitle is undefined, so it printed nothing "
        f"(rendering 2 pages: site/content/a.md, site/content/b.md){ADVICE}"
    ]
    # the advice works
    layout.write_text(
        layout.read_text().replace("{{ page.subtitle }}", '{{ page.subtitle | default("") }}')
    )
    code, lines = run("build", "site")
    assert (code, without_summary(lines)) == (0, [])


def test_a_plain_text_layout_without_autoescape_warns_too(site: Path) -> None:
    (site / "templates/plain.txt").write_text("{{ page.title }}\n{{ page.titel }}\n")
    (site / "content/a.md").write_text("---\ntitle: A\ntemplate: plain.txt\n---\nA\n")
    code, lines = run("build", "site")
    assert code == 0
    assert without_summary(lines) == [
        "site/templates/plain.txt:2: warning: page.titel is undefined, so it printed nothing "
        f"(rendering site/content/a.md){ADVICE}"
    ]
    assert (site / "_site/a/index.html").read_text() == "A\n\n"


def test_the_shortcode_templates_stay_strict(example: Path) -> None:
    """An override of a shortcode's template renders in its own environment, where an
    undefined name is an error (docs/templates.md), not this warning."""
    (example / "templates/media_image.html").write_text('<img src="{{ src }}" alt="{{ altt }}">')
    code, lines = run("build", "site")
    assert code != 0
    assert not any("warning:" in line and "altt" in line for line in lines)
    assert any("altt" in line and "undefined" in line for line in lines)


def test_a_name_the_line_does_not_show_is_told_as_well_as_can_be() -> None:
    """Without the line's text (an expression over lines, a loader without files): the
    variable the value belongs to, else Jinja's words; with no recorder, silence."""
    import jinja2

    from mediashortcodes.site.template_problems import (
        PrintedUndefined,
        UndefinedPrints,
        pages_named,
    )

    loader = jinja2.DictLoader({"t.html": "{{ page\n.titel }}{{ site['q'] }}{{ other.nope }}"})
    environment = jinja2.Environment(loader=loader, undefined=PrintedUndefined, autoescape=True)
    prints = UndefinedPrints(environment)
    page: dict[str, Any] = {}
    site: dict[str, Any] = {}
    prints.begin_page("content/p.md", page, site)
    assert environment.get_template("t.html").render(page=page, site=site, other={}) == ""
    printed = "is undefined, so it printed nothing (rendering content/p.md)"
    assert [w.as_warning() for w in pages_named(prints.take())] == [
        f"t.html:2: warning: page.titel {printed}{ADVICE}",
        f"t.html:2: warning: site.q {printed}{ADVICE}",
        f"t.html:2: warning: 'nope' of a dict object {printed}{ADVICE}",
    ]
    assert jinja2.Environment(undefined=PrintedUndefined).from_string("{{ a }}").render() == ""
