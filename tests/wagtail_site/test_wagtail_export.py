"""Static export with ``manage.py build`` and usage reports with
``manage.py mediashortcodes_report``, against the sandbox over real sockets."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test.utils import override_settings

from .conftest import SITE, service_settings, with_clean_usages
from .mediasite.models import ArticlePage

HARBOUR = [109, 110, 120, 201, 202]
CITY = [112, 113, 120]


@pytest.fixture
def build_dir(tmp_path: Path) -> Iterator[Path]:
    with override_settings(BUILD_DIR=str(tmp_path / "build")):
        yield tmp_path / "build"


@pytest.fixture
def public(sandbox: Any, tmp_path: Path) -> Iterator[Any]:
    """``[site] base_url`` set, a fresh usage state, and no usages in the sandbox."""
    value = service_settings(sandbox, tmp_path / "usage-state.json", base_url=SITE)
    with with_clean_usages(sandbox, value):
        yield sandbox


def build() -> None:
    call_command("build", verbosity=0)


def report(*args: str) -> str:
    out = io.StringIO()
    call_command("mediashortcodes_report", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def manifest(build_dir: Path) -> dict[str, Any]:
    return json.loads((build_dir / "media-usage.json").read_text())


def test_build_writes_every_published_page_with_its_images(
    pages: dict[str, Any], build_dir: Path, public: Any
) -> None:
    build()
    written = sorted(str(p.relative_to(build_dir)) for p in build_dir.rglob("index.html"))
    assert written == ["city/index.html", "harbour/index.html", "index.html"]  # not the draft
    html = (build_dir / "harbour" / "index.html").read_text()
    sources = re.findall(r'<img src="([^"]+)"', html)
    assert len(sources) == 3
    for src in sources:
        assert src.startswith("/media/") and not src.startswith("/media/media/")
        assert (build_dir / src.lstrip("/")).is_file()
    assert "Xk7Pq2Lm" in html and "Rt5Vn8Wz" in html
    assert "\x02" not in html and "&lt;%" not in html


def test_build_writes_the_usage_manifest_under_base_url(
    pages: dict[str, Any], build_dir: Path, public: Any
) -> None:
    build()
    assert manifest(build_dir) == {
        "site": SITE,
        "pages": {
            f"{SITE}/": {"title": "Home", "files": [102, 120]},
            f"{SITE}/city/": {"title": "City", "files": CITY},
            f"{SITE}/harbour/": {"title": "Harbour", "files": HARBOUR},
        },
    }


def test_without_base_url_the_manifest_uses_wagtails_full_urls(
    pages: dict[str, Any], build_dir: Path
) -> None:
    build()
    data = manifest(build_dir)
    assert data["site"] == "http://localhost"
    assert sorted(data["pages"]) == [
        "http://localhost/",
        "http://localhost/city/",
        "http://localhost/harbour/",
    ]


def test_a_missing_file_fails_the_export_before_any_page_is_written(
    pages: dict[str, Any], build_dir: Path, public: Any
) -> None:
    pages["home"].add_child(
        instance=ArticlePage(
            title="Gone", slug="gone", intro="<p>&lt;% media_image 999999 %&gt;</p>"
        )
    )
    with pytest.raises(CommandError) as raised:
        build()
    assert raised.value.returncode == 1
    assert "file 999999" in str(raised.value)
    assert re.search(
        r"<html in \S+article_page\.html>:1:4: file 999999: .* \(rendering /gone/\)",
        str(raised.value),
    )
    assert not list(build_dir.rglob("index.html"))
    assert not (build_dir / "media-usage.json").exists()


def test_a_script_embed_shown_twice_on_a_page_gets_an_element_id_for_each(
    pages: dict[str, Any], build_dir: Path, public: Any
) -> None:
    # Two stream blocks with the same video render from one template place: one id, numbered.
    block = ("text", "<p>&lt;% media_video 202 embed=script %&gt;</p>")
    pages["home"].add_child(
        instance=ArticlePage(title="Twice", slug="twice", stream=[block, block])
    )
    build()
    html = (build_dir / "twice" / "index.html").read_text()
    elements = re.findall(r'<div id="(mediashortcodes-video-202-[^"]+)"></div>', html)
    assert len(elements) == 2 and elements[1] == elements[0] + "-2"
    assert re.findall(r'var id = "(mediashortcodes-video-202-[^"]+)"', html) == elements


def test_a_malformed_shortcode_fails_the_export(
    pages: dict[str, Any], build_dir: Path, public: Any
) -> None:
    pages["home"].add_child(
        instance=ArticlePage(
            title="Typo", slug="typo", intro="<p>&lt;% media_image 101 colour=red %&gt;</p>"
        )
    )
    with pytest.raises(CommandError, match=r"colour.* \(rendering /typo/\)"):
        build()


def test_a_service_that_keeps_failing_stops_the_export_with_exit_code_3(
    pages: dict[str, Any], build_dir: Path, sandbox: Any, tmp_path: Path
) -> None:
    cold = service_settings(sandbox, tmp_path / "state.json", cache=tmp_path / "cold-cache")
    sandbox.fail(503)
    with override_settings(MEDIASHORTCODES=cold), pytest.raises(CommandError) as raised:
        build()
    assert raised.value.returncode == 3


def test_report_sends_each_pages_files_to_the_service(
    pages: dict[str, Any], build_dir: Path, public: Any
) -> None:
    build()
    assert "3 pages reported (3 additions, 0 removals), 0 unchanged" in report()
    assert public.pages() == {
        f"{SITE}/": [102, 120],
        f"{SITE}/city/": CITY,
        f"{SITE}/harbour/": HARBOUR,
    }
    (usage,) = [u for u in public.usages if u["web"]["page"] == f"{SITE}/harbour/"]
    assert usage["removed"] == "false"
    assert (usage["contact"], usage["project"], usage["web"]["pageName"]) == (
        "Ann Editor",
        "Website",
        "Harbour",
    )


def test_unpublishing_a_page_reports_its_removals(
    pages: dict[str, Any], build_dir: Path, public: Any
) -> None:
    build()
    report()
    ArticlePage.objects.get(slug="harbour").unpublish()
    build()
    assert f"{SITE}/harbour/" not in manifest(build_dir)["pages"]
    assert "1 page reported (0 additions, 1 removal), 2 unchanged" in report()
    removal = public.usages[-1]
    assert (removal["web"]["page"], removal["id"], removal["removed"]) == (
        f"{SITE}/harbour/",
        HARBOUR,
        "true",
    )
    assert f"{SITE}/harbour/" not in public.pages()
    assert "0 pages reported (0 additions, 0 removals), 2 unchanged" in report()


def test_a_dry_run_prints_the_requests_and_sends_nothing(
    pages: dict[str, Any], build_dir: Path, public: Any
) -> None:
    build()
    out = report("--dry-run")
    assert out.count("POST /1/files/multiple/usages {") == 3
    assert "dry run: 3 pages would be reported" in out
    assert public.usages == []


def test_all_sends_every_page_again(pages: dict[str, Any], build_dir: Path, public: Any) -> None:
    build()
    report()
    assert "3 pages reported (3 additions, 0 removals)" in report("--all")


def test_report_without_an_export_says_to_build_first(build_dir: Path, public: Any) -> None:
    with pytest.raises(CommandError, match=r"run `python manage\.py build` first") as raised:
        report()
    assert raised.value.returncode == 2


# -- what `python manage.py build` shows when the export fails ------------------------------


ManageBuild = Callable[[], tuple[int, str]]


@pytest.fixture
def manage_build(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> ManageBuild:
    """``python manage.py build`` as a shell runs it: its exit code and what it printed."""
    from django.core.management import ManagementUtility

    # run_from_argv closes the connections at the end: the test's transaction needs its own.
    monkeypatch.setattr("django.db.connections.close_all", lambda: None)

    def run() -> tuple[int, str]:
        capsys.readouterr()
        try:
            ManagementUtility(["manage.py", "build", "--verbosity=0"]).execute()
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
        out, err = capsys.readouterr()
        return code, out + err

    return run


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def add_article(pages: dict[str, Any], slug: str, body: str) -> None:
    pages["home"].add_child(instance=ArticlePage(title=slug.title(), slug=slug, intro=body))


def test_a_failed_export_leaves_the_previous_export_whole(
    pages: dict[str, Any],
    build_dir: Path,
    public: Any,
    manage_build: ManageBuild,
) -> None:
    assert manage_build()[0] == 0
    before = snapshot(build_dir)
    assert "harbour/index.html" in before and "media-usage.json" in before
    add_article(pages, "broken", "<p>&lt;% media_image 88888 %&gt;</p>")
    code, output = manage_build()
    assert code == 1
    assert "file 88888" in output
    assert f"{build_dir} still holds the previous export, untouched" in output
    assert snapshot(build_dir) == before
    assert sorted(p.name for p in build_dir.parent.iterdir()) == ["build"]  # no staging left


def test_a_failed_first_export_says_nothing_was_written(
    pages: dict[str, Any],
    build_dir: Path,
    public: Any,
    manage_build: ManageBuild,
) -> None:
    add_article(pages, "broken", "<p>&lt;% media_image 88888 %&gt;</p>")
    code, output = manage_build()
    assert code == 1
    assert f"nothing was written to {build_dir}" in output
    assert snapshot(build_dir) == {}


def test_a_successful_export_replaces_the_previous_one(
    pages: dict[str, Any], build_dir: Path, public: Any
) -> None:
    build()
    (build_dir / "stale.html").write_text("from an older export")
    ArticlePage.objects.get(slug="harbour").unpublish()
    build()
    assert not (build_dir / "stale.html").exists()
    assert not (build_dir / "harbour").exists()
    assert (build_dir / "city" / "index.html").is_file()
    assert sorted(p.name for p in build_dir.parent.iterdir()) == ["build"]


def test_keep_build_dir_builds_on_top_of_the_previous_export(
    pages: dict[str, Any], build_dir: Path, public: Any
) -> None:
    build()
    (build_dir / "extra.html").write_text("kept")
    call_command("build", "--keep-build-dir", verbosity=0)
    assert (build_dir / "extra.html").read_text() == "kept"
    assert (build_dir / "city" / "index.html").is_file()


def test_django_bakerys_own_build_says_the_previous_export_is_gone(
    pages: dict[str, Any], build_dir: Path, public: Any
) -> None:
    # INSTALLED_APPS with "bakery" before "mediashortcodes.wagtail" runs django-bakery's own
    # command, which empties BUILD_DIR first: the message must not claim the export is kept.
    from bakery.management.commands.build import Command as BakeryBuild

    build()
    add_article(pages, "broken", "<p>&lt;% media_image 88888 %&gt;</p>")
    with pytest.raises(CommandError) as raised:
        call_command(BakeryBuild(), verbosity=0)
    assert raised.value.returncode == 1
    assert "django-bakery emptied BUILD_DIR before the export" in str(raised.value)
    assert "nothing was written" not in str(raised.value)
    assert not (build_dir / "media-usage.json").exists()


def test_a_problem_on_several_pages_is_listed_once_naming_each_page(
    pages: dict[str, Any],
    build_dir: Path,
    public: Any,
    manage_build: ManageBuild,
) -> None:
    for slug in ("dup1", "dup2"):
        add_article(pages, slug, "<p>&lt;% media_image 88888 %&gt;</p>")
    code, output = manage_build()
    assert code == 1
    lines = [line for line in output.splitlines() if "file 88888" in line]
    assert len(lines) == 1, output
    assert re.search(
        r"article_page\.html>:1:4: file 88888: .* \(rendering 2 pages: /dup1/, /dup2/\)$", lines[0]
    )


def test_a_problem_on_many_pages_names_three_and_counts_the_rest(
    pages: dict[str, Any], build_dir: Path, public: Any
) -> None:
    for slug in ("dup1", "dup2", "dup3", "dup4", "dup5"):
        add_article(pages, slug, "<p>&lt;% media_image 101 colour=red %&gt;</p>")
    with pytest.raises(CommandError) as raised:
        build()
    (line,) = [line for line in str(raised.value).splitlines() if "colour" in line]
    assert line.endswith("(rendering 5 pages: /dup1/, /dup2/, /dup3/ and 2 more)")


def test_one_run_lists_the_syntax_problems_and_the_missing_files(
    pages: dict[str, Any],
    build_dir: Path,
    public: Any,
    manage_build: ManageBuild,
) -> None:
    add_article(pages, "typo", "<p>&lt;% media_image 101 colour=red %&gt;</p>")
    add_article(pages, "gone", "<p>&lt;% media_image 88888 %&gt;</p>")
    code, output = manage_build()
    assert code == 1
    assert "2 problems found" in output
    assert re.search(r"colour.* \(rendering /typo/\)", output)
    assert re.search(r"file 88888: .* \(rendering /gone/\)", output)


def test_an_outage_still_lists_the_syntax_problems_found(
    pages: dict[str, Any], build_dir: Path, sandbox: Any, tmp_path: Path
) -> None:
    add_article(pages, "typo", "<p>&lt;% media_image 101 colour=red %&gt;</p>")
    cold = service_settings(sandbox, tmp_path / "state.json", cache=tmp_path / "cold-cache")
    sandbox.fail(503)
    with override_settings(MEDIASHORTCODES=cold), pytest.raises(CommandError) as raised:
        build()
    assert raised.value.returncode == 3
    assert "problem found in the content before the build stopped" in str(raised.value)
    assert re.search(r"colour.* \(rendering /typo/\)", str(raised.value))


def test_the_staging_folder_of_a_killed_export_is_removed(
    pages: dict[str, Any], build_dir: Path, public: Any
) -> None:
    leftover = build_dir.parent / ".build.staging-2147483646"  # no such process
    (leftover / "harbour").mkdir(parents=True)
    build()
    assert not leftover.exists()
    assert (build_dir / "harbour" / "index.html").is_file()
