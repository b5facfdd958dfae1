"""The test Wagtail project (``mediasite/`` beside this file) on SQLite, set up once.

This folder is a package (not ``tests/wagtail``, which would hide the real ``wagtail``), so
this conftest never takes the name ``conftest`` that other test modules import from.

Django is configured when this folder is collected, in a temporary folder removed at the
end of the session; the database is migrated and filled with pages once per session, and
every test runs in a transaction that is rolled back. The service is the session's sandbox
on 127.0.0.1, reached through ``MEDIASHORTCODES`` and the credential variables.

Without the ``[wagtail]`` extra these tests are not collected.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

PROJECT = Path(__file__).resolve().parent
SITE = "https://www.example.org"

WORK: Path | None = None
if find_spec("bakery") is None or find_spec("wagtail.models") is None:
    collect_ignore_glob = ["*"]  # the [wagtail] extra is not installed
else:
    import django
    from django.conf import settings

    from .mediasite import settings as project_settings

    WORK = Path(tempfile.mkdtemp(prefix="mediashortcodes-wagtail-"))
    settings.configure(
        **{
            name: getattr(project_settings, name)
            for name in dir(project_settings)
            if name.isupper()
        },
        DATABASES={
            "default": {"ENGINE": "django.db.backends.sqlite3", "NAME": str(WORK / "db.sqlite3")}
        },
        MEDIA_ROOT=str(WORK / "media"),
        STATIC_ROOT=str(WORK / "static"),
        BUILD_DIR=str(WORK / "build"),
    )
    django.setup()


def pytest_unconfigure(config: pytest.Config) -> None:
    if WORK is None:
        return
    from django.db import connections

    from mediashortcodes.wagtail import rendering

    rendering.reset()
    connections.close_all()
    shutil.rmtree(WORK, ignore_errors=True)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if PROJECT in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.wagtail)


def service_settings(
    sandbox: Any, state: Path, cache: Path | None = None, **site: str
) -> dict[str, Any]:
    """MEDIASHORTCODES pointing at the sandbox (credentials come from the environment)."""
    assert WORK is not None
    cache = cache or WORK / "cache"
    return {
        "service": {
            "base_url": sandbox.base_url,
            "player_url": sandbox.player_url,
            "static_url": sandbox.static_url,
            "download_url": sandbox.download_url,
            "allow_http_downloads": True,
            "max_retries": 0,
        },
        "site": site,
        "usage": {"contact": "Ann Editor", "project": "Website", "state": str(state)},
        "cache": {"dir": str(cache)},
    }


@contextmanager
def with_clean_usages(sandbox: Any, value: dict[str, Any]) -> Iterator[Any]:
    """MEDIASHORTCODES set to ``value``, the sandbox's usages empty before and after."""
    from django.test.utils import override_settings

    sandbox.clear_usages()
    try:
        with override_settings(MEDIASHORTCODES=value):
            yield sandbox
    finally:
        sandbox.clear_usages()


@pytest.fixture(scope="session")
def pages(sandbox_server: Any) -> Iterator[dict[str, Any]]:
    """The site: migrated once, its pages created once, the sandbox as its service."""
    from django.core.management import call_command
    from django.test.utils import override_settings
    from wagtail.models import Page, Site

    from mediashortcodes.config import ENV_CLIENT_ID, ENV_CLIENT_SECRET, ENV_REFRESH_TOKEN

    from .mediasite.models import ArticlePage, HomePage

    call_command("migrate", verbosity=0)
    root = Page.get_first_root_node()
    home = root.add_child(
        instance=HomePage(
            title="Home", slug="mediasite", body="<p>Welcome &lt;% media_image 102 thumb %&gt;</p>"
        )
    )
    site = Site.objects.get(is_default_site=True)
    welcome = site.root_page
    site.root_page = home
    site.save()
    welcome.delete()
    harbour = home.add_child(
        instance=ArticlePage(
            title="Harbour",
            slug="harbour",
            hero_id=110,
            video_id=201,
            intro="<p>&lt;% media_image 109 alt=&quot;A lighthouse&quot; %&gt;</p>",
            stream=[("text", "<p>&lt;% media_video 202 embed=script %&gt;</p>")],
        )
    )
    city = home.add_child(
        instance=ArticlePage(
            title="City", slug="city", hero_id=112, stream=[("raw", "<% media_image 113 thumb %>")]
        )
    )
    draft = home.add_child(
        instance=ArticlePage(
            title="Draft", slug="draft", live=False, intro="<p>&lt;% media_image 999999 %&gt;</p>"
        )
    )
    with pytest.MonkeyPatch.context() as patch:
        for name in list(os.environ):
            if name.startswith("MEDIASHORTCODES_"):
                patch.delenv(name)
        credentials = sandbox_server.env()
        for name in (ENV_CLIENT_ID, ENV_CLIENT_SECRET, ENV_REFRESH_TOKEN):
            patch.setenv(name, credentials[name])
        state = WORK / "usage-state.json" if WORK else Path("unused")
        with override_settings(MEDIASHORTCODES=service_settings(sandbox_server, state)):
            yield {"home": home, "harbour": harbour, "city": city, "draft": draft}


@pytest.fixture(autouse=True)
def _rollback(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each test's changes to the database are undone after it."""
    from django.db import transaction

    request.getfixturevalue("pages")
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


@pytest.fixture(autouse=True)
def _fresh_live_renderer() -> Iterator[None]:
    """Each test starts without the previous one's live renderer: an outage cool-down that
    a test caused must not turn the next test's service calls into placeholders."""
    from mediashortcodes.wagtail import rendering

    rendering.reset()
    yield
    rendering.reset()
