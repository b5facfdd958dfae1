"""The Wagtail integration's documented import path (docs/wagtail.md, BAKERY_VIEWS)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.wagtail


def test_the_export_view_keeps_its_documented_path() -> None:
    from mediashortcodes.wagtail import BakeryPagesView

    assert BakeryPagesView.__module__ == "mediashortcodes.wagtail.export"
