"""What a user sees when page sources are unusual: a BOM, a draft flag that is not a boolean,
two sources for one URL. Small offline sites without shortcodes: no service is needed."""

from __future__ import annotations

import json
import subprocess
import sys
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


@pytest.mark.parametrize("value", ["notadate", "03/10/2026", "2026", '"2026-13-01"', "[2026]"])
def test_a_date_that_is_not_a_date_fails_naming_its_line(site: Path, value: str) -> None:
    write(site, {"post.md": f"---\ntitle: Post\ndate: {value}\n---\nText\n", "index.md": ""})
    code, out = build(site)
    assert code == 2, out
    assert "content/post.md:3:1: date must be a date such as 2026-10-03" in out
    assert not (site / "_site").exists()


def test_a_date_as_yaml_or_iso_text_is_printed_as_written(site: Path) -> None:
    (site / "templates" / "page.html").write_text("{{ page.date }}")
    dates = {"a.md": "2026-10-03", "b.md": "2026-10-03 14:30:00", "c.md": '"2026-10-03T14:30"'}
    write(site, {name: f"---\ndate: {date}\n---\n" for name, date in dates.items()})
    write(site, {"d.md": "---\ndate:\n---\n"})
    code, out = build(site)
    assert code == 0, out
    printed = [(site / "_site" / n / "index.html").read_text() for n in ("a", "b", "c", "d")]
    assert printed == ["2026-10-03", "2026-10-03 14:30:00", "2026-10-03T14:30", "None"]


def test_a_draft_flag_that_is_a_boolean_is_obeyed(site: Path) -> None:
    write(site, {"held.md": "---\ndraft: true\n---\nx\n", "live.md": "---\ndraft: false\n---\ny\n"})
    code, out = build(site)
    assert code == 0, out
    assert not (site / "_site" / "held").exists()
    assert (site / "_site" / "live" / "index.html").exists()


def _alias_bomb(depth: int) -> str:
    """Front matter whose ``title`` is 9 ** depth "lol"s once expanded (9 ** 9: gigabytes)."""
    lines = ["---", "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, depth)]
    return "\n".join([*lines, f"title: *a{depth - 1}", "---", "Hi", ""])


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_AS is POSIX")
def test_a_yaml_alias_bomb_in_front_matter_is_refused_at_its_line(site: Path) -> None:
    write(site, {"index.md": "Home\n", "bomb.md": _alias_bomb(9)})
    # In a process of its own with 1 GiB of address space: were the bomb read, it would stop
    # there with a MemoryError instead of eating the machine.
    limit = "import resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))"
    run = f"{limit}; from mediashortcodes.cli import cli; cli()"
    args = [sys.executable, "-c", run, "build", str(site), "--offline"]
    result = subprocess.run(args, capture_output=True, text=True, timeout=300, cwd=site)
    assert result.returncode == 2, result.stderr
    assert "content/bomb.md:2:1: YAML anchors and aliases" in result.stderr
    assert "MemoryError" not in result.stderr
    assert not (site / "_site").exists()


# Fences as editors leave them: trailing spaces or tabs, Windows or old Mac line endings, a BOM.
DRAFT_FENCES = {
    "trailing-space": b"--- \ndraft: true\n--- \n",
    "trailing-tab": b"---\t\ndraft: true\n---\t\n",
    "crlf": b"---\r\ndraft: true\r\n---\r\n",
    "crlf-trailing-spaces": b"---  \r\ndraft: true\r\n---  \r\n",
    "cr": b"---\rdraft: true\r---\r",
    "bom-trailing-space": BOM + b"--- \r\ndraft: true\r\n...\t\r\n",
}


def test_no_page_marked_draft_is_published_whatever_its_fences_look_like(site: Path) -> None:
    drafts = {f"{name}.md": fences + b"# Secret plans\n" for name, fences in DRAFT_FENCES.items()}
    write(site, {"index.md": "---\ntitle: Home\n---\nHi\n", **drafts})
    code, out = build(site)
    assert code == 0, out
    written = sorted(p.relative_to(site / "_site").as_posix() for p in (site / "_site").rglob("*"))
    assert written == ["index.html", "media-usage.json"]
    manifest = json.loads((site / "_site" / "media-usage.json").read_text())
    assert not any("secret" in url for url in manifest["pages"])


def test_two_sources_for_one_url_fail_the_build_naming_both(site: Path) -> None:
    write(site, {"gallery.md": "---\ntitle: A\n---\na\n", "gallery/index.md": "b\n"})
    code, out = build(site)
    assert code == 2, out
    assert "1 URL given by more than one page" in out
    (clash,) = [line for line in out.splitlines() if "same URL /gallery/ as " in line]
    assert "content/gallery.md" in clash and "content/gallery/index.md" in clash
    assert clash.endswith("; rename or move all but one of them")
    assert not (site / "_site").exists()


def test_every_url_clash_is_listed(site: Path) -> None:
    write(site, {"a.md": "", "a/index.md": "", "b.md": "", "b/index.md": "", "c.md": ""})
    code, out = build(site)
    assert code == 2, out
    assert "2 URLs given by more than one page" in out
    assert "same URL /a/ as " in out and "same URL /b/ as " in out
    assert "same URL /c/" not in out


def test_a_draft_does_not_clash_with_the_page_that_is_built(site: Path) -> None:
    write(site, {"gallery.md": "---\ndraft: true\n---\nold\n", "gallery/index.md": "new\n"})
    code, out = build(site)
    assert code == 0, out
    assert (site / "_site" / "gallery" / "index.html").read_text() == (
        "<title>Index</title><p>new</p>\n"
    )


def test_a_page_name_with_spaces_accents_or_url_characters_gets_a_link_that_reaches_it(
    tmp_path: Path,
) -> None:
    # The file is written under its own name (a web server decodes the request); the link
    # in site.pages and the URL told to the service are percent-encoded as a browser sends.
    site = tmp_path / "site"
    (site / "templates").mkdir(parents=True)
    (site / "templates" / "page.html").write_text(
        '{% for p in site.pages %}<a href="{{ p.url }}">{{ p.title }}</a>{% endfor %}'
    )
    for name in ("café/über uns.md", "what?.md", "c#sharp.md", "100%.md"):
        (site / "content" / name).parent.mkdir(parents=True, exist_ok=True)
        (site / "content" / name).write_text(f"---\ntitle: {name[:-3]}\n---\nHi\n")
    (site / "mediashortcodes.toml").write_text('[site]\nbase_url = "https://www.example.org"\n')
    result = CliRunner().invoke(cli, ["build", str(site), "--offline"])
    assert result.exit_code == 0, result.output
    out = site / "_site"
    assert (out / "café" / "über uns" / "index.html").is_file()
    html = (out / "what?" / "index.html").read_text()
    for href in ("/caf%C3%A9/%C3%BCber%20uns/", "/what%3F/", "/c%23sharp/", "/100%25/"):
        assert f'href="{href}"' in html
    manifest = json.loads((out / "media-usage.json").read_text())
    assert "https://www.example.org/caf%C3%A9/%C3%BCber%20uns/" in manifest["pages"]
