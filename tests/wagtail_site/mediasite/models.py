"""Pages of the test site: shortcodes in rich text, in StreamField text, and ids in fields."""

from __future__ import annotations

from django.db import models
from wagtail import blocks
from wagtail.fields import RichTextField, StreamField
from wagtail.models import Page


class HomePage(Page):
    body = RichTextField(blank=True)


class ArticlePage(Page):
    hero_id = models.IntegerField(null=True, blank=True)
    video_id = models.IntegerField(null=True, blank=True)
    body = RichTextField(blank=True)
    stream = StreamField(
        [("text", blocks.RichTextBlock()), ("raw", blocks.RawHTMLBlock())], blank=True
    )
