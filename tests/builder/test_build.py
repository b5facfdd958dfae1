"""The built-in builder against the sandbox over real sockets."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from mediashortcodes import config as config_mod
from mediashortcodes.errors import ConfigError, ContentError
from mediashortcodes.site.builder import BuildOptions, build_site


def tree(root: Path) -> dict[str, bytes]:
    """Every file under root, by relative path."""
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def build(site: Path, **options: Any):  # type: ignore[no-untyped-def]
    return build_site(config_mod.load(site), BuildOptions(**options))


def test_example_site_builds_every_page_with_its_media(make_site, sandbox) -> None:
    site = make_site()
    result = build(site)
    out = site / "_site"
    assert (out / "index.html").exists()
    assert (out / "articles" / "autumn-walk" / "index.html").exists()
    assert (out / "style.css").exists(), "static files are copied"
    assert not (out / "drafts").exists(), "draft pages are not published"
    assert result.pages == 7
    html = (out / "articles" / "autumn-walk" / "index.html").read_text()
    for src in re.findall(r'<img src="(/media/[^"]+)"', html):
        assert (out / src.lstrip("/")).is_file(), src
    assert "<% media" not in html
    assert 'src="http://player.test/ovp/11/Ge2Uo7Nr"' in html


def test_each_distinct_variant_is_downloaded_once(make_site, sandbox) -> None:
    result = build(make_site())
    # Every published file but the click-to-load script; a poster needs no download info.
    media = sorted(p for p in (Path(result.output) / "media").iterdir() if p.suffix != ".js")
    posters = [p for p in media if "-poster-" in p.name]
    assert result.downloads == len(media)
    assert sandbox.stats["download"] == sandbox.stats["download_info"] == len(media) - len(posters)
    assert sandbox.stats["preview"] == len(posters)


def test_the_example_publishes_each_image_once_however_many_pages_show_it(
    make_site, sandbox
) -> None:
    # The articles' heroes and the gallery show the same originals: one file each, linked
    # from both pages, with the candidates each page's widths ask for.
    result = build(make_site())
    out = Path(result.output)
    media = sorted((out / "media").iterdir())
    assert len({p.read_bytes() for p in media}) == len(media)
    gallery = (out / "gallery" / "index.html").read_text()
    for page in ("autumn-walk", "city-nights", "coastal-town"):
        html = (out / "articles" / page / "index.html").read_text()
        (hero,) = re.findall(r'<div class="hero"><img src="(/media/[^"]+)"', html)
        assert f'src="{hero}"' in gallery, hero
        (srcset,) = re.findall(r'<div class="hero"><img [^>]*srcset="([^"]+)"', html)
        assert [c.split()[1] for c in srcset.split(", ")][:3] == ["480w", "960w", "1440w"]


def test_warm_rebuild_makes_no_request_and_writes_identical_bytes(make_site, sandbox) -> None:
    site = make_site()
    build(site)
    first = tree(site / "_site")
    sandbox.reset_stats()
    result = build(site)
    assert result.requests == 0
    assert sum(sandbox.stats.values()) == 0, "not even a token request"
    assert tree(site / "_site") == first


def test_manifest_counts_layout_partial_and_render_time_files(make_site) -> None:
    site = make_site()
    build(site)
    manifest = json.loads((site / "_site" / "media-usage.json").read_text())
    assert manifest["site"] == "https://www.example.org"
    pages = manifest["pages"]
    assert set(pages) >= {"https://www.example.org/", "https://www.example.org/videos/"}
    for page in pages.values():
        assert {119, 120} <= set(page["files"]), "layout logo and footer partial"
        assert page["files"] == sorted(page["files"])
    walk = pages["https://www.example.org/articles/autumn-walk/"]
    assert walk["title"] == "An autumn walk in the forest"
    assert {107, 104, 106, 108, 205} <= set(walk["files"]), "hero via media_image() and a video"


BROKEN_PAGE = """---
title: Broken
---
Fine: <% media_image 101 %>

<% media_image 999 %>

<% media_image 201 %>
<% media_video 101 %>

<% media_image 102 "no-such-format" %>
<% media_picture 3 %>
<% media_image 103 colour=red %>
<% media_image 301 %>
"""


def test_broken_site_lists_every_problem_and_writes_nothing(make_site) -> None:
    site = make_site({"content/broken.md": BROKEN_PAGE})
    with pytest.raises(ContentError) as caught:
        build(site)
    report = str(caught.value)
    lines = [str(p) for p in caught.value.problems]
    path = "content/broken.md"
    expected = [(12, "media_picture"), (13, "colour")]
    for line, word in expected:
        assert any(f"{path}:{line}:" in p and word in p for p in lines), (line, word, report)
    assert not (site / "_site").exists()


def test_service_problems_are_listed_with_positions(make_site) -> None:
    page = "\n".join(BROKEN_PAGE.splitlines()[:11]) + "\n<% media_image 301 %>\n"
    site = make_site({"content/broken.md": page})
    with pytest.raises(ContentError) as caught:
        build(site)
    lines = [str(p) for p in caught.value.problems]
    path = "content/broken.md"
    for line, words in [
        (6, "file 999: it does not exist"),
        (8, "is a video; use media_video"),
        (9, "not a video"),
        (11, "unknown format 'no-such-format'"),
        (12, "file 301: it does not exist or is not visible"),
    ]:
        assert any(p.endswith(words) or words in p for p in lines if f"{path}:{line}:" in p), (
            line,
            words,
            lines,
        )
    assert len(lines) == 5
    assert not (site / "_site").exists()


def test_failed_build_leaves_previous_output_untouched(make_site) -> None:
    site = make_site()
    build(site)
    before = tree(site / "_site")
    (site / "content" / "index.md").write_text("<% media_image 999 %>\n")
    with pytest.raises(ContentError):
        build(site)
    assert tree(site / "_site") == before
    assert [p.name for p in site.iterdir() if p.name.startswith(".")] == [], "no staging left"


def test_offline_build_uses_the_cache_and_fails_clearly_on_a_miss(make_site, sandbox) -> None:
    site = make_site()
    build(site)
    sandbox.reset_stats()
    assert build(site, offline=True).requests == 0
    (site / "content" / "new.md").write_text("<% media_image 102 small %>\n")
    with pytest.raises(ContentError, match=r"content/new\.md:1:1: .*without --offline"):
        build(site, offline=True)
    assert sum(sandbox.stats.values()) == 0


def test_keep_going_renders_a_visible_placeholder_and_lists_the_problem(make_site) -> None:
    site = make_site({"content/index.md": "Hello <% media_image 999 %>\n"})
    result = build(site, keep_going=True)
    assert [p.line for p in result.problems] == [1]
    html = (site / "_site" / "index.html").read_text()
    assert "999" in html and "<% media" not in html


def test_keep_going_through_a_download_outage_keeps_the_usage_of_the_files_not_fetched(
    make_site, sandbox
) -> None:
    # The service has these files; only their downloads fail. Leaving them out of the
    # manifest would make the next report remove every usage of the site's images.
    site = make_site({"content/index.md": "<% media_image 101 %>\n\n<% media_image 999 %>\n"})
    toml = site / "mediashortcodes.toml"
    toml.write_text(toml.read_text().replace("[service]\n", "[service]\nmax_retries = 0\n", 1))
    sandbox.fault("truncate", path_prefix="/dn/")
    result = build(site, keep_going=True)
    manifest = json.loads((site / "_site" / "media-usage.json").read_text())
    home = manifest["pages"]["https://www.example.org/"]
    assert 101 in home["files"] and 999 not in home["files"]  # 999 does not exist: no usage
    assert "placeholder" in result.summary() and result.images == 0


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("content/index.md", "Hello <% media_imge 101 %>\n", r"content/index\.md:1:10: unknown"),
        ("templates/page.html", "{{ page.content + 1 }}\n", r"templates/page\.html:1:1: "),
    ],
)
def test_keep_going_still_fails_on_what_the_author_wrote_wrong(make_site, name, text, where):
    site = make_site({name: text, "content/about.md": "<% media_image 999 %>\n"})
    with pytest.raises(ContentError, match=where) as raised:
        build(site, keep_going=True)
    assert "about.md:1:1: file 999" in str(raised.value)  # listed too, with everything else
    assert not (site / "_site").exists()


def test_gdpr_warn_lists_the_file_and_still_publishes(make_site) -> None:
    page = {"content/portrait.md": "<% media_image 117 small %>\n"}
    site = make_site(page)
    result = build(site)
    assert any("117" in w.message and "EXPIRED" in w.message for w in result.warnings)
    assert (site / "_site" / "portrait" / "index.html").exists()


def test_gdpr_fail_policy_fails_the_build(make_site) -> None:
    site = make_site({"content/portrait.md": "<% media_image 117 small %>\n"})
    config = site / "mediashortcodes.toml"
    config.write_text(config.read_text().replace('gdpr = "warn"', 'gdpr = "fail"'))
    with pytest.raises(ContentError, match=r"content/portrait\.md:1:1: file 117 .*EXPIRED"):
        build(site)


def test_check_verifies_without_writing_or_downloading(make_site, sandbox) -> None:
    site = make_site()
    sandbox.reset_stats()
    result = build(site, check_only=True)
    assert result.pages == 7
    assert not (site / "_site").exists()
    assert sandbox.stats.get("download", 0) == 0
    assert sandbox.stats.get("download_info", 0) == 0


def test_an_unknown_default_format_names_the_setting(make_site) -> None:
    site = make_site({"content/plain.md": "<% media_image 102 %>\n"})
    config = site / "mediashortcodes.toml"
    config.write_text(config.read_text().replace('"original"', '"huge"'))
    with pytest.raises(ConfigError, match=r"\[images\] default_format: unknown format 'huge'"):
        build(site)


def test_an_image_without_alt_text_anywhere_is_warned_about_at_its_place(make_site) -> None:
    page = 'Moss: <% media_image 105 small %>\n\n<% media_image 105 thumb alt="" %>\n'
    site = make_site({"content/moss.md": page})
    result = build(site)
    about_moss = [w.as_warning() for w in result.warnings if "file 105" in w.message]
    assert len(about_moss) == 1, result.warnings
    assert "moss.md:1:7: warning:" in about_moss[0] and 'alt=""' in about_moss[0]


def test_text_that_looks_like_a_marker_is_published_as_written(make_site) -> None:
    # The builder leaves a marker per shortcode until the end; an author's text shaped
    # like one (private-use or control characters around digits) must stay text.
    lookalikes = "a \ue0000\ue001 b \x020\x03 c \x02deadbeef:0\x03 d"
    site = make_site(
        {
            "content/lookalike.md": f"# Look-alikes\n\n{lookalikes}\n\n"
            '<% media_image 101 alt="A shortcode" %>\n'
        }
    )
    build(site)
    html = (site / "_site" / "lookalike" / "index.html").read_text()
    assert f"<p>{lookalikes}</p>" in html
    assert html.count('alt="A shortcode"') == 1
