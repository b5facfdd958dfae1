"""``report_on_publish``: publishing, unpublishing, moving and deleting pages send their
files' usage to the sandbox with the page's full URL; what cannot be sent waits in the
database for the next publish or ``mediashortcodes_report --pending``."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import TestCase

from mediashortcodes.wagtail.models import PageUsageRecord

from .conftest import service_settings, with_clean_usages
from .mediasite.models import ArticlePage

URL = "http://localhost/"  # Wagtail's own URL of the site's root (no [site] base_url)


@pytest.fixture
def live(sandbox: Any, tmp_path: Path) -> Iterator[Any]:
    value = {**service_settings(sandbox, tmp_path / "state.json"), "report_on_publish": True}
    value["service"] = {**value["service"], "timeout": 2}
    with with_clean_usages(sandbox, value):
        yield sandbox


def committed(action: Any) -> None:
    """Run ``action`` and the on-commit work it queued (each test runs in a transaction)."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        action()


def new_article(pages: dict[str, Any], slug: str = "story") -> ArticlePage:
    page = ArticlePage(
        title="Story",
        slug=slug,
        live=False,
        hero=110,
        intro="<p>&lt;% media_image 109 %&gt;</p>",
        body=[
            ("text", '<p>x</p><embed embedtype="media_image" id="113" alt=""/>'),
            ("image", {"file": 101}),
            ("video", {"file": 201}),
        ],
        stream=[("raw", "<% media_video 202 %>")],
    )
    pages["home"].add_child(instance=page)
    return page


def publish(page: ArticlePage) -> None:
    committed(lambda: page.save_revision().publish())


def test_publishing_reports_every_file_of_the_content_with_the_full_url(
    pages: dict[str, Any], live: Any
) -> None:
    page = new_article(pages)
    publish(page)
    assert live.pages() == {f"{URL}story/": [101, 109, 110, 113, 201, 202]}
    (usage,) = live.usages
    assert usage["web"]["pageName"] == "Story" and usage["removed"] == "false"


def test_a_revision_that_drops_a_file_and_unpublishing_send_removals(
    pages: dict[str, Any], live: Any
) -> None:
    page = new_article(pages)
    publish(page)
    page.hero = None
    page.body = [("video", {"file": 201})]
    publish(page)
    assert live.pages()[f"{URL}story/"] == [109, 201, 202]
    committed(lambda: ArticlePage.objects.get(id=page.id).unpublish())
    assert live.pages().get(f"{URL}story/", []) == []
    assert not PageUsageRecord.objects.exists()  # nothing left to follow


def test_a_new_slug_or_a_move_removes_at_the_old_url_and_adds_at_the_new(
    pages: dict[str, Any], live: Any
) -> None:
    page = new_article(pages)
    publish(page)
    page.slug = "renamed"
    publish(page)
    assert live.pages().get(f"{URL}story/", []) == []
    assert live.pages()[f"{URL}renamed/"] == [101, 109, 110, 113, 201, 202]
    committed(lambda: page.move(pages["city"], pos="last-child"))
    assert live.pages().get(f"{URL}renamed/", []) == []
    assert live.pages()[f"{URL}city/renamed/"] == [101, 109, 110, 113, 201, 202]


def test_deleting_a_page_sends_its_removals(pages: dict[str, Any], live: Any) -> None:
    page = new_article(pages)
    publish(page)
    committed(lambda: ArticlePage.objects.get(id=page.id).delete())
    assert live.pages().get(f"{URL}story/", []) == []


def test_the_service_down_never_blocks_publishing_and_nothing_is_lost(
    pages: dict[str, Any], live: Any
) -> None:
    page = new_article(pages)
    live.fail(503, path_prefix="/1/files/multiple/usages")
    publish(page)  # no exception
    assert ArticlePage.objects.get(id=page.id).live
    assert live.pages() == {}
    assert [r.url for r in PageUsageRecord.objects.all() if r.pending] == [f"{URL}story/"]
    out = io.StringIO()
    with pytest.raises(CommandError) as error:
        call_command("mediashortcodes_report", "--pending", stdout=out, stderr=io.StringIO())
    assert error.value.returncode == 3 and "stays pending" in str(error.value)
    live.clear_failures()
    from mediashortcodes.wagtail import rendering

    rendering.reset()  # the outage cool-down of the renderer that saw the failure
    call_command("mediashortcodes_report", "--pending", stdout=out, stderr=io.StringIO())
    assert "1 usage reports sent" in out.getvalue()
    assert live.pages() == {f"{URL}story/": [101, 109, 110, 113, 201, 202]}
    assert not any(r.pending for r in PageUsageRecord.objects.all())


def test_the_next_publish_sends_what_an_outage_kept(pages: dict[str, Any], live: Any) -> None:
    first = new_article(pages)
    live.fail(503, path_prefix="/1/files/multiple/usages")
    publish(first)
    live.clear_failures()
    from mediashortcodes.wagtail import rendering

    rendering.reset()
    publish(new_article(pages, slug="second"))
    assert set(live.pages()) == {f"{URL}story/", f"{URL}second/"}


def test_without_report_on_publish_nothing_is_sent(pages: dict[str, Any], sandbox: Any) -> None:
    sandbox.clear_usages()
    publish(new_article(pages))
    assert sandbox.usages == [] and not PageUsageRecord.objects.exists()
