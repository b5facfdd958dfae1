"""`mediashortcodes build | check | cache` as a user runs them: messages and exit codes."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def test_build_prints_a_one_line_summary(make_site) -> None:
    site = make_site()
    code, out = run("build", str(site))
    assert code == 0, out
    summary = [line for line in out.splitlines() if line.startswith("built ")]
    assert len(summary) == 1
    assert "7 pages" in summary[0] and "downloads" in summary[0] and "cache hits" in summary[0]


def test_the_summary_counts_in_words_a_reader_expects() -> None:
    from mediashortcodes.site.builder import BuildResult

    result = BuildResult(pages=1, images=2, videos=1, downloads=0, cache_hits=1, requests=1)
    assert result.summary() == (  # what the downloads are: an image's sizes, a video's poster
        "1 page, 2 images, 1 video; image files (each srcset size, each poster): 0 downloads, "
        "1 cache hit, 1 request in 0.00s"
    )


def test_build_with_problems_exits_1_and_lists_them(make_site) -> None:
    site = make_site({"content/index.md": "<% media_image 999 %>\n\n<% media_video x %>\n"})
    code, out = run("build", str(site))
    assert code == 1
    assert "index.md:1:1: file 999" in out
    assert "index.md:3:" in out


def test_missing_credential_exits_2_naming_the_variable(make_site, monkeypatch) -> None:
    site = make_site()
    monkeypatch.delenv("MEDIASHORTCODES_CLIENT_SECRET")
    code, out = run("build", str(site))
    assert code == 2
    assert "MEDIASHORTCODES_CLIENT_SECRET" in out


def test_warm_build_needs_no_credentials(make_site, monkeypatch) -> None:
    site = make_site()
    assert run("build", str(site))[0] == 0
    monkeypatch.delenv("MEDIASHORTCODES_CLIENT_SECRET")
    code, out = run("build", str(site))
    assert code == 0, out
    assert "0 requests" in out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_service_exits_3_and_writes_nothing(make_site) -> None:
    site = make_site()
    config = site / "mediashortcodes.toml"
    text = re.sub(
        r'base_url = "http://127\.0\.0\.1:\d+"',
        f'base_url = "http://127.0.0.1:{free_port()}"',
        config.read_text(),
    )
    config.write_text(text.replace("[service]\n", "[service]\nmax_retries = 1\n", 1))
    code, out = run("build", str(site))
    assert code == 3, out
    assert "could not" in out.lower() or "unreachable" in out.lower() or "refused" in out.lower()
    assert not (site / "_site").exists()


def test_check_lists_problems_and_exits_1(make_site) -> None:
    site = make_site({"content/extra.md": "<% media_image 201 %>\n"})
    code, out = run("check", str(site))
    assert code == 1
    assert "extra.md:1:1: file 201" in out and "use media_video" in out


def test_check_takes_jobs_as_build_and_report_do(make_site) -> None:
    site = make_site({"content/extra.md": "<% media_image 201 %>\n"})
    code, out = run("check", str(site), "-j", "1")
    assert code == 1  # the same check, one request at a time
    assert "extra.md:1:1: file 201" in out and "use media_video" in out


def test_check_offline_checks_syntax_without_the_service(make_site, sandbox) -> None:
    site = make_site({"content/extra.md": "ok <% media_image 999 %>\n"})
    sandbox.reset_stats()
    code, out = run("check", "--offline", str(site))
    assert code == 0, out
    assert sum(sandbox.stats.values()) == 0
    (site / "content" / "bad.md").write_text("<% media_image %>\n")
    code, out = run("check", "--offline", str(site))
    assert code == 1 and "bad.md:1:" in out


def test_cache_info_and_clear(make_site, env: Path) -> None:
    site = make_site()
    run("build", str(site))
    code, out = run("cache", "info", str(site))
    assert code == 0 and "blobs: " in out and str(env) in out
    assert out.splitlines()[0].startswith("service: http://127.0.0.1:")  # which service's
    code, out = run("cache", "clear", str(site))
    assert code == 0
    assert not any(p.is_file() for p in env.rglob("*.jpg"))


def test_cache_info_before_any_build_creates_nothing(make_site, env: Path) -> None:
    site = make_site()
    code, out = run("cache", "info", str(site))
    assert code == 0 and "records: 0" in out and "blobs: 0" in out
    assert not env.exists()


def test_output_option_writes_elsewhere(make_site, tmp_path: Path) -> None:
    site = make_site()
    target = tmp_path / "public"
    code, out = run("build", str(site), "--output", str(target))
    assert code == 0, out
    assert (target / "index.html").exists() and not (site / "_site").exists()


@pytest.mark.parametrize(
    "bad", ['[site\nbase_url = "x"', "[unknown]\nx = 1", '[images]\ngdpr = "maybe"']
)
def test_malformed_config_exits_2_with_the_file_named(tmp_path: Path, bad: str) -> None:
    (tmp_path / "mediashortcodes.toml").write_text(bad)
    code, out = run("build", str(tmp_path))
    assert code == 2
    assert "mediashortcodes.toml" in out


def test_every_page_with_broken_front_matter_is_listed_with_exit_2(make_site) -> None:
    site = make_site(
        {
            "content/a.md": "---\ntitle: [unclosed\n---\nText\n",
            "content/b.md": "---\n- a list\n---\n",
        }
    )
    code, out = run("check", "--offline", str(site))
    assert code == 2
    assert "2 pages cannot be read" in out
    assert "content/a.md:2:1: invalid YAML front matter" in out
    assert "content/b.md:2:1: front matter must be a mapping" in out


@pytest.mark.parametrize("command", ["build", "check"])
def test_a_folder_that_is_no_site_says_so(tmp_path, monkeypatch, command) -> None:
    monkeypatch.chdir(tmp_path)
    code, out = run(command)
    assert code == 2
    assert "the current directory is not a site: it has no mediashortcodes.toml" in out
    assert "pass the site's folder as SITE" in out


def test_the_summary_counts_the_images_and_videos_the_pages_show(make_site) -> None:
    site = make_site()  # its layout shows a logo on every page
    code, out = run("build", str(site))
    assert code == 0, out
    html = [p.read_text() for p in (site / "_site").rglob("*.html")]
    # A click-to-load video's poster is an <img> of the video, not an image shortcode.
    images = sum(page.count("<img ") - page.count("-poster-") for page in html)
    videos = sum(page.count("<iframe") + page.count("new MFPlayer(") for page in html)
    summary = next(line for line in out.splitlines() if line.startswith("built "))
    assert f"{images} images, {videos} videos" in summary
