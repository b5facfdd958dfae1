"""Usage on a live site: ``MEDIASHORTCODES = {..., "report_on_publish": True}``.

Publishing a page records the files its content uses (``MediaFileField`` values, blocks,
rich-text embeds, shortcodes in text) under its full URL, found in the content without
rendering; unpublishing or deleting it, or a move or a new slug (the old URL), records that
the page's URL uses none. The changes are sent once the publish is committed, through the
live renderer's client (its token and outage cool-down) and the usage module's requests;
whatever could not be sent stays pending in ``PageUsageRecord`` for the next publish or
``manage.py mediashortcodes_report --pending``. Reporting never fails a publish.

Files that templates place (a layout's logo) are not in the content: the static export's
report counts those (docs/wagtail.md says which report to use).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.db import models, transaction
from django.db.models.signals import post_delete
from wagtail import blocks
from wagtail.fields import RichTextField, StreamField
from wagtail.models import Page
from wagtail.signals import page_published, page_slug_changed, page_unpublished, post_page_move

from ..errors import MediaShortcodesError, ServiceUnreachableError
from ..language import htmltext
from ..usage.manifest import Manifest, PageUsage, diff
from ..usage.reporting import page_usages
from .blocks import MediaFileBlock
from .fields import MediaFileField
from .models import PageUsageRecord
from .rendering import live_renderer
from .richtext import iter_embeds
from .settings import read_settings

__all__ = ["SendResult", "connect", "files_of", "record_page", "send_pending"]

log = logging.getLogger("mediashortcodes")


# -- what a page uses, from its content -------------------------------------------------------


def files_of(page: Page) -> tuple[int, ...]:
    """Every file id the page's content uses, sorted (nothing is rendered or fetched)."""
    found: set[int] = set()
    for model_field in page._meta.concrete_fields:
        value = model_field.value_from_object(page)
        if value is None or value == "":
            continue
        if isinstance(model_field, MediaFileField):
            found.add(int(value))
        elif isinstance(model_field, StreamField):
            found.update(_in_blocks(model_field.stream_block, value))
        elif isinstance(model_field, (RichTextField, models.TextField, models.CharField)):
            found.update(_in_html(str(value)))
    return tuple(sorted(found))


def _in_blocks(block: blocks.Block, value: Any) -> Iterator[int]:
    if value is None:
        return
    if isinstance(block, MediaFileBlock):
        yield int(value)
    elif isinstance(block, blocks.StreamBlock):
        for child in value:
            yield from _in_blocks(child.block, child.value)
    elif isinstance(block, blocks.StructBlock):
        for name, child_block in block.child_blocks.items():
            yield from _in_blocks(child_block, value.get(name))
    elif isinstance(block, blocks.ListBlock):
        for item in value:
            yield from _in_blocks(block.child_block, item)
    elif isinstance(block, blocks.RichTextBlock):
        yield from _in_html(value.source)
    elif isinstance(value, str):
        yield from _in_html(value)


def _in_html(html: str) -> Iterator[int]:
    """Ids of the media embeds and of the valid shortcodes (raw or HTML-escaped) in ``html``."""
    if "media_" not in html:
        return
    for attrs in iter_embeds(html):
        if str(attrs.get("id", "")).isdigit():
            yield int(attrs["id"])
    for found in htmltext.find_in_html(html, "<content>", escaped=True):
        if found.shortcode is not None:
            yield found.shortcode.file_id


# -- recording ---------------------------------------------------------------------------------


def record_page(page: Page) -> None:
    """The page's URL uses its content's files now; its other URLs use none."""
    settings = read_settings()
    parts = page.get_url_parts()
    url = None if parts is None else settings.page_url(parts[1], parts[2])
    _release(page.id, keep=url)
    if url is not None:
        record, _ = PageUsageRecord.objects.get_or_create(url=url)
        record.page_id, record.title, record.wanted = page.id, page.title, list(files_of(page))
        record.save()


def _release(page_id: int, keep: str | None = None) -> None:
    """The page's URLs (but ``keep``) use no file now."""
    PageUsageRecord.objects.filter(page_id=page_id).exclude(url=keep or "").update(wanted=[])


# -- sending -----------------------------------------------------------------------------------


@dataclass
class SendResult:
    sent: list[str] = field(default_factory=list)  # "POST ... page: +ids -ids" lines
    failed: list[str] = field(default_factory=list)
    unreachable: ServiceUnreachableError | None = None


def send_pending() -> SendResult:
    """Send every pending record's additions and removals; what fails stays pending."""
    settings = read_settings()
    config = settings.config
    result = SendResult()
    records = [r for r in PageUsageRecord.objects.order_by("url") if r.pending]
    if not records or not config.usage.enabled:
        return result
    sent = Manifest("", {r.url: PageUsage(r.title, tuple(r.reported)) for r in records})
    wanted = Manifest("", {r.url: PageUsage(r.title, tuple(r.wanted)) for r in records})
    date = dt.date.today().isoformat()
    for change in diff(sent, wanted):
        for usage in page_usages(config, change, date):
            try:
                live_renderer().call(
                    lambda client, u=usage: client.report_usage(
                        u, removed_as_bool=config.usage.removed_as_bool
                    )
                )
            except ServiceUnreachableError as exc:
                result.unreachable = exc
                return result
            except MediaShortcodesError as exc:
                result.failed.append(f"{change.url}: {exc}")
                break
            _accepted(change.url, usage.ids, usage.removed)
            sign = "-" if usage.removed else "+"
            result.sent.append(f"{change.url}: {sign}{','.join(map(str, usage.ids))}")
    PageUsageRecord.objects.filter(wanted=[], reported=[]).delete()
    return result


def _accepted(url: str, ids: Iterable[int], removed: bool) -> None:
    with transaction.atomic():
        record = PageUsageRecord.objects.select_for_update().get(url=url)
        held = set(record.reported)
        record.reported = sorted(held - set(ids) if removed else held | set(ids))
        record.save(update_fields=["reported", "updated"])


def _send_quietly() -> None:
    """After a publish: send, and say what is kept for later; never raise."""
    try:
        result = send_pending()
    except Exception:  # a publish must never fail because of reporting
        log.exception("usage report on publish failed; the changes are kept")
        return
    problem = result.unreachable or "; ".join(result.failed)
    if problem:
        log.warning(
            "usage not sent (%s); kept in the database and sent by the next publish or "
            "`python manage.py mediashortcodes_report --pending`",
            problem,
        )


# -- signals -----------------------------------------------------------------------------------


def _enabled() -> bool:
    try:
        return read_settings().report_on_publish
    except MediaShortcodesError as exc:
        log.warning("usage on publish: %s", exc)
        return False


def _then_send(change: Any) -> Any:
    def receiver(instance: Any, **kwargs: Any) -> None:
        if not isinstance(instance, Page) or not _enabled():
            return
        change(instance, **kwargs)
        transaction.on_commit(_send_quietly)

    return receiver


def _published(page: Page, **kwargs: Any) -> None:
    record_page(page.specific)


def _moved(page: Page, **kwargs: Any) -> None:
    # Every live page of the subtree has a new URL.
    for each in Page.objects.descendant_of(page, inclusive=True).live().specific():
        record_page(each)


def _gone(page: Page, **kwargs: Any) -> None:
    ids = [page.id]
    if kwargs.get("signal") is page_unpublished:
        ids = list(Page.objects.descendant_of(page, inclusive=True).values_list("id", flat=True))
    PageUsageRecord.objects.filter(page_id__in=ids).update(wanted=[])


_RECEIVERS = {
    page_published: _then_send(_published),
    page_slug_changed: _then_send(_moved),
    post_page_move: _then_send(_moved),
    page_unpublished: _then_send(_gone),
    post_delete: _then_send(_gone),
}


def connect() -> None:
    for signal, receiver in _RECEIVERS.items():
        signal.connect(receiver, dispatch_uid=f"mediashortcodes.{id(signal)}")
