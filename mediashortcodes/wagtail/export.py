"""Static export with django-bakery: ``BAKERY_VIEWS = ["mediashortcodes.wagtail.BakeryPagesView"]``.

The one pipeline of every build (site/pipeline.py): render every live, public page through
Django's full request handling into the pipeline's renderer, which records each shortcode
and leaves a marker; resolve all of them at once through the cache; stop with every problem
listed (as the builder lists them) before a page is written; then copy the images into
``BUILD_DIR/<media_dir>/``, write the pages with the markers replaced, and write
``BUILD_DIR/media-usage.json``.

``manage.py build`` (this app's command, see ``management/commands/build.py``) runs the
views with ``BUILD_DIR`` pointing at a staging folder that replaces the old export only
when everything succeeded; django-bakery's own command empties ``BUILD_DIR`` first, and the
message of a failed export says so.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, BinaryIO
from urllib.parse import urlsplit

from bakery.filesystem import join_path, object_metadata
from bakery.views import BuildableDetailView
from django.conf import settings as django_settings
from django.core.handlers.base import BaseHandler
from django.core.management.base import CommandError
from django.http import HttpResponseBase
from django.test.client import RequestFactory
from django.utils.html import escape
from wagtail.models import Page, Site

from ..errors import ContentError, MediaShortcodesError, exit_code_for, message_for
from ..site.markers import DeferredRenderer
from ..site.pipeline import Pipeline, media_url_prefix
from ..usage.manifest import MANIFEST_NAME, Manifest
from .rendering import rendering_with
from .settings import IntegrationSettings, read_settings

__all__ = ["STAGED", "BakeryPagesView"]

log = logging.getLogger("mediashortcodes")

#: True while this app's ``build`` command runs the views into a staging folder: a failed
#: export then leaves the previous one whole. Otherwise django-bakery has emptied BUILD_DIR.
STAGED: ContextVar[bool] = ContextVar("mediashortcodes_export_staged", default=False)
_EMPTIED = (
    "django-bakery emptied BUILD_DIR before the export began, so the previous export is gone "
    "(unless --keep-build-dir was given); to keep it whole when an export fails, run this "
    "app's build command: list 'mediashortcodes.wagtail' before 'bakery' in INSTALLED_APPS "
    "and keep BAKERY_FILESYSTEM on the local disk"
)

_REDIRECT = (
    '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
    '<meta http-equiv="refresh" content="0;url={url}"><link rel="canonical" href="{url}">'
    '</head><body><a href="{url}">{url}</a></body></html>\n'
)


@dataclass
class _Rendered:
    page: Page
    root_url: str
    path: str
    content: bytes
    charset: str
    used: set[int]  # indexes into the deferred renderer's shortcodes


class BakeryPagesView(BuildableDetailView):  # type: ignore[misc]
    """Every live, public Wagtail page as ``<path>/index.html``, with its media and the
    usage manifest. ``BAKERY_MULTISITE = True`` puts each site under its host name."""

    def get_queryset(self) -> Any:
        return Page.objects.live().public().specific().order_by("path")

    def get_url(self, obj: Page) -> str:
        parts = obj.get_url_parts()
        return "" if parts is None else parts[2]

    def build_queryset(self) -> None:
        try:
            self._bake(read_settings())
        except MediaShortcodesError as exc:
            raise CommandError(_truthful(message_for(exc)), returncode=exit_code_for(exc)) from None
        except CommandError as exc:
            raise CommandError(_truthful(str(exc)), returncode=exc.returncode) from None

    # -- the steps --------------------------------------------------------------------------

    def _bake(self, settings: IntegrationSettings) -> None:
        pipeline = Pipeline(settings.config)
        try:
            rendered = self._render_all(pipeline.renderer)
            site = settings.config.site
            resolved = pipeline.resolve(media_url_prefix(site.base_url, site.media_dir))
            for warning in resolved.warnings:
                log.warning("%s", warning)
            if resolved.problems:
                raise ContentError(resolved.problems)
            media_dir = site.media_dir.strip("/")
            for name, stored in sorted(resolved.media.items()):
                with resolved.cache.open_blob(stored) as image:  # the checked file, never a link
                    self._copy(image, join_path(media_dir, name))
            if resolved.click_script is not None:  # a click-to-load video's script, once
                name, data = resolved.click_script
                self.write_file(self.get_output_path(join_path(media_dir, name)), data)
        finally:
            pipeline.close()
        for page in rendered:
            self._write_page(page, resolved.html)
        manifest = Manifest.from_pages(
            self._site_url(settings, rendered),
            [
                (
                    settings.page_url(page.root_url, page.path),
                    page.page.title,
                    resolved.files_used(page.used),
                )
                for page in rendered
            ],
        )
        self.write_file(self.get_output_path(MANIFEST_NAME), manifest.to_json().encode())

    def _render_all(self, deferred: DeferredRenderer) -> list[_Rendered]:
        handler = BaseHandler()
        handler.load_middleware()
        rendered: list[_Rendered] = []
        errors: list[str] = []
        for page in self.get_queryset():
            parts = page.get_url_parts()
            if parts is None:  # not routable: the tree's root, or a page outside every site
                continue
            _site_id, root_url, path = parts
            # Named: a problem's place is in a template or the page's rich text, never the
            # page's path, so each is kept with the pages it is on (DeferredRenderer.on_pages).
            deferred.begin_page(path)
            with rendering_with(deferred):
                response = handler.get_response(self._request(root_url, path))
            content = self._content(page, path, response, errors)
            if content is not None:
                charset = getattr(response, "charset", None) or "utf-8"
                used = set(deferred.used)
                rendered.append(_Rendered(page, root_url, path, content, charset, used))
        if errors:
            raise CommandError(
                "the export stopped; nothing was written:\n" + "\n".join(errors), returncode=1
            )
        return rendered

    def _request(self, root_url: str, path: str) -> Any:
        url = urlsplit(root_url)
        secure = url.scheme == "https"
        factory = RequestFactory(
            SERVER_NAME=url.hostname or "localhost",
            SERVER_PORT=str(url.port or (443 if secure else 80)),
        )
        self.request = factory.get(path, secure=secure, headers={"X-Bakery": "true"})
        return self.request

    @staticmethod
    def _content(
        page: Page, path: str, response: HttpResponseBase, errors: list[str]
    ) -> bytes | None:
        status = response.status_code
        if status in (301, 302, 303, 307, 308):
            target = escape(response["Location"])
            return _REDIRECT.format(url=target).encode()
        if status != 200:
            errors.append(
                f"page {page.id} ({page.title!r}, {path}) answered HTTP {status}; "
                "check it in runserver (is its host in ALLOWED_HOSTS?)"
            )
            return None
        if response.has_header("Content-Encoding"):
            errors.append(
                f"page {page.id} ({path}) came back {response['Content-Encoding']}-encoded; "
                "leave compression to BAKERY_GZIP (remove GZipMiddleware for the export)"
            )
            return None
        return response.content  # type: ignore[no-any-return, attr-defined]

    def _write_page(self, page: _Rendered, replace_markers: Callable[[str], str]) -> None:
        content = page.content
        if page.used:
            text = replace_markers(content.decode(page.charset))
            content = text.encode(page.charset, "xmlcharrefreplace")
        relative = page.path.lstrip("/")
        if getattr(django_settings, "BAKERY_MULTISITE", False):
            relative = join_path(urlsplit(page.root_url).hostname or "", relative)
        target = self.get_output_path(join_path(relative, "index.html"))
        self._prep_output_directory(target)
        self.build_file(target, content)

    def _copy(self, data: BinaryIO, relative: str) -> None:
        target = self.get_output_path(relative)
        self._prep_output_directory(target)
        with self.fs.open(target, "wb", metadata=object_metadata(target)) as out:
            shutil.copyfileobj(data, out)

    @staticmethod
    def _site_url(settings: IntegrationSettings, rendered: Iterable[_Rendered]) -> str:
        if settings.base_url_set:
            return settings.config.site.base_url
        default = Site.objects.filter(is_default_site=True).first()
        if default is not None:
            return str(default.root_url)
        return next((page.root_url for page in rendered), "")


def _truthful(message: str) -> str:
    """The message of a failed export, true about what BUILD_DIR holds now."""
    if STAGED.get():
        return message  # the build command says what is left
    return message.replace("; nothing was written", "") + "\n" + _EMPTIED
