"""A site's templates run in Jinja's sandbox (issue 29, item 1).

A layout, a partial or an override of a shortcode's template is text anyone who can open
a pull request can write. In a plain Jinja environment ``cycler.__init__.__globals__.os``
reaches Python: it printed the client secret into the pages and ran commands. Now such a
template fails the build at its ``path:line``, runs nothing, prints no secret and leaves
the output folder as it was.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli

from .conftest import small_site

SECRET_VARIABLE = "MEDIASHORTCODES_CLIENT_SECRET"
ESCAPES = {
    "environ": "{{ cycler.__init__.__globals__.os.environ.get('" + SECRET_VARIABLE + "') }}",
    "subclasses": "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "popen": "{{ cycler.__init__.__globals__.os.popen('touch PWNED').read() }}",
    "format": "{{ '{0.__init__.__globals__}'.format(cycler) }}",
    "mutation": "{{ site.pages.clear() }}",
}
LAYOUT = (
    "<title>{{ page.title }}</title>\n{% include 'partials/footer.html' %}\n{{ page.content }}\n"
)


@pytest.fixture
def site(tmp_path: Path, env: Path, sandbox: Any, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two pages with an image, built once: ``_site`` holds the good build."""
    monkeypatch.chdir(tmp_path)
    root = small_site(
        tmp_path / "site",
        sandbox,
        {
            "templates/page.html": LAYOUT,
            "templates/partials/footer.html": "<footer>{{ site.pages | length }} pages</footer>\n",
            "content/index.md": "---\ntitle: Home\n---\nHi <% media_image 101 %>\n",
            "content/a.md": "---\ntitle: A\n---\nA\n",
        },
        player=False,
    )
    code, output = build()
    assert code == 0, output
    return root


def build() -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["build", "site"], catch_exceptions=False)
    return result.exit_code, result.output


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def assert_nothing_ran_or_leaked(tmp_path: Path, output: str, published: dict[str, bytes]) -> None:
    secret = os.environ[SECRET_VARIABLE]
    assert secret not in output
    assert tree(tmp_path / "site/_site") == published  # untouched
    assert not (tmp_path / "PWNED").exists()
    assert not any(secret.encode() in data for data in tree(tmp_path).values())


@pytest.mark.parametrize("escape", list(ESCAPES), ids=list(ESCAPES))
def test_a_layout_reaching_for_python_fails_at_its_line(
    site: Path, tmp_path: Path, escape: str
) -> None:
    published = tree(site / "_site")
    layout = site / "templates/page.html"
    layout.write_text(LAYOUT.replace("{{ page.content }}", ESCAPES[escape]))
    code, output = build()
    assert code == 1, output
    problem = next(line for line in output.splitlines() if "site/templates/page.html:3" in line)
    assert "is refused: templates run in a sandbox" in problem, output
    assert "Traceback" not in output
    assert_nothing_ran_or_leaked(tmp_path, output, published)


def test_a_partial_is_sandboxed_too(site: Path, tmp_path: Path) -> None:
    published = tree(site / "_site")
    (site / "templates/partials/footer.html").write_text("<footer>\n" + ESCAPES["popen"] + "\n")
    code, output = build()
    assert code == 1, output
    assert "site/templates/partials/footer.html:2:" in output
    assert_nothing_ran_or_leaked(tmp_path, output, published)


@pytest.mark.parametrize("escape", ["environ", "popen"])
def test_an_override_of_a_shortcode_template_fails_at_its_line(
    site: Path, tmp_path: Path, escape: str
) -> None:
    published = tree(site / "_site")
    override = '<img src="{{ src }}">\n' + ESCAPES[escape]
    (site / "templates/media_image.html").write_text(override)
    code, output = build()
    assert code == 2, output  # a shortcode template's error is a settings error, as before
    assert "site/templates/media_image.html:2: '__init__' is refused: templates run" in output
    assert_nothing_ran_or_leaked(tmp_path, output, published)


def test_documented_layouts_keep_working(site: Path) -> None:
    """What docs/site.md offers layouts: page and site variables, loops, filters, tests,
    macros, dict methods that read, string methods."""
    (site / "templates/partials/footer.html").write_text(
        "{% macro item(p) %}<li>{{ p.title | upper }} {{ p.url }}</li>{% endmacro %}"
        '<ul>{% for p in site.pages | sort(attribute="url") %}{{ item(p) }}{% endfor %}</ul>'
        '{{ page.front_matter.get("nav", "none") }} {{ page.url.count("/") }}'
        "{{ site.base_url | default('') }}{{ '%s-%d' | format('x', 2) }}"
        "{% set ns = namespace(n=0) %}{% for p in site.pages %}{% set ns.n = ns.n + 1 %}"
        "{% endfor %}{{ ns.n }}{{ range(3) | join(',') }}{{ {'a': 1}.items() | list }}\n"
    )
    code, output = build()
    assert code == 0, output
    html = (site / "_site/a/index.html").read_text()
    assert "<li>HOME /</li><li>A /a/</li></ul>none 2x-220,1,2[(&#39;a&#39;, 1)]" in html, html
