"""Every problem at once, each once, each where it is: front matter, templates and shortcodes
in one run, warnings beside the errors, a layout's warning once for all its pages, an
--offline miss in the author's words."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli


@pytest.fixture
def site(make_site: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example site as ``site/``, run from its parent so problems read ``site/...``."""
    root = make_site()
    monkeypatch.chdir(root.parent)
    return root


def run(*args: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output.splitlines()


def write(site: Path, name: str, text: str) -> None:
    (site / name).parent.mkdir(parents=True, exist_ok=True)
    (site / name).write_text(text)


def in_layout(site: Path, text: str) -> None:
    """Put ``text`` into the layout every page of the example site uses."""
    base = site / "templates" / "base.html"
    base.write_text(base.read_text().replace("<main>", f"<main>{text}", 1))


@pytest.mark.parametrize("command", ["build", "check"])
def test_front_matter_templates_and_shortcodes_are_all_listed_in_one_run(
    site: Path, command: str
) -> None:
    write(site, "content/a.md", "---\ntitle: [unclosed\n---\nA\n")
    write(site, "content/b.md", "---\ndraft: 1\n---\nB\n")
    write(site, "content/c.md", "---\ntemplate: nope.html\n---\nC\n")
    write(site, "content/d.md", "D <% media_image 101 bogus=1 %>\n")
    write(site, "content/e.md", "E <% media_image 99999 %>\n")
    code, lines = run(command, "site")
    assert code == 2, lines  # a page that cannot be read is a settings problem, as before
    text = "\n".join(lines)
    assert "site/content/a.md:2:1: invalid YAML front matter" in text
    assert "site/content/b.md:2:1: draft must be true or false" in text
    assert "site/content/c.md:2:1: template 'nope.html' not found" in text
    assert "site/content/d.md:1:22: unknown key 'bogus'" in text
    assert "site/content/e.md:1:3: file 99999" in text
    assert not (site / "_site").exists()


def test_warnings_are_listed_with_the_errors_after_them(site: Path) -> None:
    write(site, "content/portrait.md", "<% media_image 117 %>\n\n<% media_image 99999 %>\n")
    code, lines = run("build", "site")
    assert code == 1
    errors = [i for i, line in enumerate(lines) if "portrait.md:3:1: file 99999" in line]
    warnings = [i for i, line in enumerate(lines) if "portrait.md:1:1: warning: file 117" in line]
    assert len(errors) == len(warnings) == 1, lines
    assert errors[0] < warnings[0]  # the errors first


def test_a_layout_warning_is_one_line_for_all_its_pages_on_every_build(site: Path) -> None:
    in_layout(site, "{{ media_image(105) }}")  # 105 has no alt text in the service
    for _build in ("cold", "warm"):
        code, lines = run("build", "site")
        assert code == 0, lines
        about = [line for line in lines if "file 105" in line]
        assert about == [
            "site/templates/base.html:18: warning: file 105 ('Moss close-up') has no alt text "
            'in the service; write alt="..." in the shortcode (or alt="" if the image is '
            "decorative; [images] warn_missing_alt = false silences this warning) (rendering "
            "7 pages: site/content/about.md, site/content/articles/autumn-walk.md, "
            "site/content/articles/city-nights.md and 4 more)"
        ]


def test_missing_alt_text_warnings_can_be_silenced(site: Path) -> None:
    in_layout(site, "{{ media_image(105) }}")
    toml = site / "mediashortcodes.toml"
    toml.write_text(
        toml.read_text().replace('gdpr = "warn"', 'gdpr = "warn"\nwarn_missing_alt = false')
    )
    code, lines = run("build", "site")
    assert code == 0, lines
    assert not [line for line in lines if "alt text" in line]


def test_an_offline_miss_names_the_format_as_the_author_wrote_it(site: Path) -> None:
    assert run("build", "site")[0] == 0  # the format list and the site's variants cached
    write(site, "content/new.md", "New.\n\n<% media_image 103 Thumb %>\n")
    code, lines = run("build", "site", "--offline")
    assert code == 1
    assert lines[1:] == [
        "site/content/new.md:3:1: file 103 ('Waterfall') in format 'Thumb' is not in the "
        "cache; build once without --offline"
    ]


def test_check_says_it_found_warnings_and_never_that_nothing_was_written(site: Path) -> None:
    write(site, "content/portrait.md", "<% media_image 117 %>\n")
    code, lines = run("check", "site")
    assert code == 0
    assert lines[-1] == "ok: shortcodes of 8 pages checked, no errors, 1 warning (listed above)"
    write(site, "content/bad.md", "<% media_image 99999 %>\n")
    code, lines = run("check", "site")
    assert code == 1
    assert lines[0] == "error: 1 problem found"
