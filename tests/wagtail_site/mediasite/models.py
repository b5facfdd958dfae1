"""Pages of the test site: shortcodes in rich text, in StreamField text, and ids in fields;
``ArticlePage.hero`` and ``ArticlePage.body`` hold the editors' field and blocks."""

from __future__ import annotations

from django.db import models
from wagtail import blocks
from wagtail.admin.panels import FieldPanel
from wagtail.fields import RichTextField, StreamField
from wagtail.models import Page

from mediashortcodes.wagtail.blocks import MediaImageBlock, MediaVideoBlock
from mediashortcodes.wagtail.fields import MediaFileField


class HomePage(Page):
    body = RichTextField(blank=True)


class ArticlePage(Page):
    hero = MediaFileField(kind="image", null=True, blank=True)
    body = StreamField(
        [
            ("text", blocks.RichTextBlock(features=["bold", "italic", "link", "media"])),
            ("image", MediaImageBlock()),
            ("video", MediaVideoBlock()),
        ],
        blank=True,
    )
    hero_id = models.IntegerField(null=True, blank=True)
    video_id = models.IntegerField(null=True, blank=True)
    intro = RichTextField(blank=True)
    stream = StreamField(
        [("text", blocks.RichTextBlock()), ("raw", blocks.RawHTMLBlock())], blank=True
    )

    content_panels = [  # noqa: RUF012 (Wagtail reads a class attribute)
        *Page.content_panels,
        FieldPanel("hero"),
        FieldPanel("body"),
        FieldPanel("intro"),
    ]
