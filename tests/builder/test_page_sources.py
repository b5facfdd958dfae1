"""What a user sees when page sources are unusual: a BOM, a draft flag that is not a boolean,
two sources for one URL. Small offline sites without shortcodes: no service is needed."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli

LAYOUT = "<title>{{ page.title }}</title>{{ page.content }}"


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MEDIASHORTCODES_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "site"
    (root / "content").mkdir(parents=True)
    (root / "templates").mkdir()
    (root / "mediashortcodes.toml").write_text("[service]\nsandbox = true\n")
    (root / "templates" / "page.html").write_text(LAYOUT)
    return root


def write(site: Path, pages: dict[str, bytes | str]) -> None:
    for name, text in pages.items():
        path = site / "content" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")


def build(site: Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["build", str(site), "--offline"], catch_exceptions=False)
    return result.exit_code, result.output


BOM = b"\xef\xbb\xbf"


def test_a_page_saved_with_a_bom_keeps_its_front_matter(site: Path) -> None:
    write(site, {"index.md": BOM + b"---\ntitle: T\n---\nHi\n"})
    code, out = build(site)
    assert code == 0, out
    html = (site / "_site" / "index.html").read_text(encoding="utf-8")
    assert html == "<title>T</title><p>Hi</p>\n"


def test_a_page_saved_with_a_bom_reports_problems_on_the_editors_lines(site: Path) -> None:
    write(site, {"index.md": BOM + b"---\ntitle: ok\nbad: [unclosed\n---\nHi\n"})
    code, out = build(site)
    assert code == 2
    assert "content/index.md:3:1: invalid YAML front matter" in out


@pytest.mark.parametrize("value", ['"true"', "1", "0", "yes please", ""])
def test_a_draft_flag_that_is_not_a_boolean_fails_naming_its_line(site: Path, value: str) -> None:
    write(site, {"post.md": f"---\ntitle: Secret\ndraft: {value}\n---\nNot yet\n", "index.md": ""})
    code, out = build(site)
    assert code == 2, out
    assert "content/post.md:3:1: draft must be true or false" in out
    assert "write draft: true or draft: false" in out
    assert not (site / "_site").exists()


def test_a_draft_flag_that_is_a_boolean_is_obeyed(site: Path) -> None:
    write(site, {"held.md": "---\ndraft: true\n---\nx\n", "live.md": "---\ndraft: false\n---\ny\n"})
    code, out = build(site)
    assert code == 0, out
    assert not (site / "_site" / "held").exists()
    assert (site / "_site" / "live" / "index.html").exists()


def test_two_sources_for_one_url_fail_the_build_naming_both(site: Path) -> None:
    write(site, {"gallery.md": "---\ntitle: A\n---\na\n", "gallery/index.md": "b\n"})
    code, out = build(site)
    assert code == 2, out
    assert "1 URL(s) given by more than one page" in out
    (clash,) = [line for line in out.splitlines() if "same URL /gallery/ as " in line]
    assert "content/gallery.md" in clash and "content/gallery/index.md" in clash
    assert clash.endswith("; rename or move all but one of them")
    assert not (site / "_site").exists()


def test_every_url_clash_is_listed(site: Path) -> None:
    write(site, {"a.md": "", "a/index.md": "", "b.md": "", "b/index.md": "", "c.md": ""})
    code, out = build(site)
    assert code == 2, out
    assert "2 URL(s) given by more than one page" in out
    assert "same URL /a/ as " in out and "same URL /b/ as " in out
    assert "same URL /c/" not in out


def test_a_draft_does_not_clash_with_the_page_that_is_built(site: Path) -> None:
    write(site, {"gallery.md": "---\ndraft: true\n---\nold\n", "gallery/index.md": "new\n"})
    code, out = build(site)
    assert code == 0, out
    assert (site / "_site" / "gallery" / "index.html").read_text() == (
        "<title>Index</title><p>new</p>\n"
    )
