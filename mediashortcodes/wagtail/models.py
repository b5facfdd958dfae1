"""The usage a live site reports on publishing (``report_on_publish``), kept in the database.

One row per page URL: the files the page uses there now (``wanted``) and those the service
has accepted (``reported``). A row whose two differ is pending: what could not be sent
waits here for the next publish or ``manage.py mediashortcodes_report --pending``.
"""

from __future__ import annotations

from django.db import models

__all__ = ["PageUsageRecord"]


class PageUsageRecord(models.Model):
    url = models.CharField(max_length=1000, unique=True)
    # Not a foreign key: a deleted page's removals are still to be sent.
    page_id = models.IntegerField(null=True, db_index=True)
    title = models.CharField(max_length=255, blank=True)
    wanted = models.JSONField(default=list)
    reported = models.JSONField(default=list)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "page usage record"

    def __str__(self) -> str:
        return self.url

    @property
    def pending(self) -> bool:
        return sorted(self.wanted) != sorted(self.reported)
