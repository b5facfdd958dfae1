"""The media step of a build that another tool runs (MkDocs, Zensical, Pelican).

The host renders the pages; mediashortcodes does what the built-in builder does around
that, with the same code: every shortcode the pages referenced is resolved in one
concurrent step, the images are published under ``<output>/<media_dir>/``, each page's
markers become HTML, and ``<output>/media-usage.json`` lists which page uses which file.

::

    build = HostedBuild(config)
    build.begin_page("docs/index.md", "index.html")     # then the page renders into
    ...                                                 # build.renderer, leaving markers
    resolved = build.resolve()                          # all at once; raises ContentError
    html = resolved.html(page_html, "index.html")       # markers -> HTML, per page
    resolved.publish(site_dir); resolved.manifest(titles).write_atomic(...)

The MkDocs plugin, ``mediashortcodes finish`` (Zensical) and the Pelican plugin differ
only in who calls these steps and when.
"""

from __future__ import annotations

import gc
import html as htmllib
import logging
import posixpath
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..client.service import embed_urls
from ..config import CONFIG_NAME, Config, from_mapping, read_toml
from ..errors import OUTAGES, ConfigError, ContentError, MediaShortcodesError, Problem
from ..fileio import Confined
from ..media.render import Renderer
from ..usage.manifest import MANIFEST_NAME, Manifest, page_url
from .builder import (
    BuildOptions,
    BuildResult,
    SiteBuilder,
    media_url_prefix,
    publish_media,
    published_images,
    used_file_ids,
)
from .markers import with_markers_replaced

__all__ = ["HostedBuild", "PageEntry", "Resolved", "depth_prefix"]

log = logging.getLogger("mediashortcodes")


@dataclass
class PageEntry:
    """One page of the host's site: where it is written, its source, the places it used."""

    output_file: str  # relative to the output folder, with "/": "blog/post/index.html"
    url: str  # the page's path in the site, as the host links it: "blog/post/" or ""
    source: str  # the source file as problems name it
    used: set[int] = field(default_factory=set)


def depth_prefix(output_file: str, media_dir: str) -> str:
    """The media folder's URL relative to a page written at ``output_file``: it works from
    any host path, with or without directory URLs, and from the file system."""
    depth = output_file.strip("/").count("/")
    return "../" * depth + media_dir.strip("/") + "/"


class HostedBuild:
    """One build of a host's site: pages render into :attr:`renderer`, then :meth:`resolve`.

    ``preview`` (``mkdocs serve``): a service that cannot be reached gives placeholders
    from the cache instead of failing, and content problems are warnings on the page.
    """

    def __init__(
        self,
        config: Config,
        *,
        offline: bool = False,
        refresh: bool = False,
        preview: bool = False,
    ) -> None:
        self.config = config
        self.preview = preview
        options = BuildOptions(offline=offline, refresh=refresh, keep_going=preview)
        self._builder = SiteBuilder(config, options)
        self.renderer = self._builder.deferred
        self.pages: list[PageEntry] = []

    def begin_page(self, source: str, output_file: str, url: str) -> PageEntry:
        """Record the places of the page about to render (``source`` as problems name it)."""
        self.renderer.begin_page(source)
        entry = PageEntry(output_file, url, source, self.renderer.used)
        self.pages.append(entry)
        return entry

    def resolve(self) -> Resolved:
        """Resolve every place of every page at once.

        Raises :class:`ContentError` listing every problem of the site (a malformed
        shortcode, a file the service does not have...), an outage's error, or a setting's.
        """
        try:
            return self._resolve()
        except BaseException:
            self._builder.cache.close()
            raise

    def _resolve(self) -> Resolved:
        started = time.perf_counter()
        found = self.renderer.found_problems()
        result = BuildResult(pages=len(self.pages))
        builder = self._builder
        try:
            resolution, failed = builder.resolve_all(result, outages_fail=not self.preview)
        except OUTAGES as exc:
            if not self.preview:
                raise
            # A preview goes on from the cache: what it lacks shows as a placeholder.
            log.warning("mediashortcodes: %s; showing what the cache holds", exc)
            builder = SiteBuilder(self.config, BuildOptions(offline=True, keep_going=True))
            builder.deferred = self.renderer
            resolution, failed = builder.resolve_all(result, outages_fail=False)
        problems = [*found, *self.renderer.placed(failed)]
        player_url, static_url = embed_urls(self.config)
        templates = self.config.path(self.config.site.templates)
        renderer = Renderer(
            self.config.video,
            player_url=player_url,
            static_url=static_url,
            site_templates=templates if templates.is_dir() else None,
            auto_reload=False,
        )
        resolved = Resolved(self, builder, resolution, renderer, result)
        # Every place rendered once: its problems (a mediaId unfit for a URL...) are known now.
        resolved.html_for(depth_prefix("", self.config.site.media_dir))
        problems += self.renderer.placed(resolved.render_failed)
        listed = _listed(problems)
        if listed and not self.preview:
            raise ContentError(listed)
        resolved.problems = listed
        resolved.warnings = [warning.as_warning() for warning in builder.warnings]
        result.seconds = time.perf_counter() - started
        return resolved


def _listed(problems: Iterable[object]) -> list[Problem]:
    from .template_problems import pages_named

    return sorted(set(pages_named(problems)))  # type: ignore[arg-type]


class Resolved:
    """A resolved build: each page's HTML, the media to publish, the usage manifest."""

    def __init__(
        self,
        build: HostedBuild,
        builder: SiteBuilder,
        resolution: object,
        renderer: Renderer,
        result: BuildResult,
    ) -> None:
        self._build = build
        self._builder = builder
        self._resolution = resolution
        self._renderer = renderer
        self.result = result
        self.problems: list[Problem] = []
        self.warnings: list[str] = []
        self.render_failed: list[tuple[object, str]] = []
        self._by_prefix: dict[str, tuple[list[str], Mapping[int, str]]] = {}

    def html_for(self, prefix: str) -> tuple[list[str], Mapping[int, str]]:
        if prefix not in self._by_prefix:
            html, ids, failed = self._builder.final_html(
                self._resolution,  # type: ignore[arg-type]
                self._renderer,
                prefix,
            )
            gc.unfreeze()  # what rendering froze: a preview's process lives on
            if not self._by_prefix:
                self.render_failed = failed  # type: ignore[assignment]
            self._by_prefix[prefix] = (html, ids)
        return self._by_prefix[prefix]

    def html(self, text: str, output_file: str) -> str:
        """``text`` (of the page written at ``output_file``) with its markers replaced."""
        marker = self._build.renderer.marker
        if "\x02" not in text:
            return text
        prefix = depth_prefix(output_file, self._build.config.site.media_dir)
        html, ids = self.html_for(prefix)
        return with_markers_replaced(text, marker, html, ids)

    def html_at_root(self, text: str) -> str:
        """``text`` with its markers replaced, linking the media root-relative (from the path
        of ``[site] base_url``): for HTML shown at several depths (Pelican's listings)."""
        if "\x02" not in text:
            return text
        html, ids = self.html_for(
            media_url_prefix(self._build.config.site.base_url, self._build.config.site.media_dir)
        )
        return with_markers_replaced(text, self._build.renderer.marker, html, ids)

    def publish(self, output: Path) -> int:
        """Put every image the pages show under ``output/<media_dir>/``; how many. The host
        wrote ``output`` and a link may be in it (a dirty build's copy, a planted one): the
        media folder is proven inside it (``fileio.Confined``: a ConfigError naming a link)."""
        images = published_images(self._resolution)  # type: ignore[arg-type]
        try:
            renderer = self._renderer
            script = renderer.click_script if renderer.click_script_used else None
            if images or script:
                confined = Confined(output, what="the site's output folder")
                media = confined.folder(self._build.config.site.media_dir)
                publish_media(self._builder.cache, images, media, script)
        finally:
            self._builder.cache.close()  # the last use (a read-only cache's downloads go)
        return len(images)

    def manifest(
        self, titles: Mapping[str, str], *, keep: Manifest | None = None, pages: Iterable[str] = ()
    ) -> Manifest:
        """The usage manifest: each page's absolute URL (from ``[site] base_url``), its title
        (``titles`` by output file) and files. ``keep``: an earlier manifest whose entries
        stand for the site's ``pages`` (URLs) that were not rendered this time (a dirty build)."""
        base = self._build.config.site.base_url
        ids = used_file_ids(self._resolution)  # type: ignore[arg-type]
        entries = []
        for page in self._build.pages:
            used = {file_id for i in page.used if (file_id := ids[i]) is not None}
            title = titles.get(page.output_file, "")
            entries.append((page_url(base, page.url), title, used))
        rendered = {url for url, _, _ in entries}
        if keep is not None:
            for url in pages:
                full = page_url(base, url)
                old = keep.pages.get(full)
                if full not in rendered and old is not None:
                    entries.append((full, old.title, old.files))
        return Manifest.from_pages(base, entries)

    def summary(self) -> str:
        return self.result.summary()


def manifest_path(output: Path) -> Path:
    return output / MANIFEST_NAME


def previous_manifest(output: Path) -> Manifest | None:
    """The manifest an earlier build left in ``output``, if it can be read."""
    try:
        return Manifest.load(manifest_path(output))
    except MediaShortcodesError:
        return None


def page_output_url(output_file: str, directory_urls: bool) -> str:
    """A page's path in the site from the file it is written to, as MkDocs links it."""
    if directory_urls and posixpath.basename(output_file) == "index.html":
        return posixpath.dirname(output_file) + ("/" if "/" in output_file else "")
    return output_file


__all__ += ["manifest_path", "page_output_url", "previous_manifest"]


def host_config(
    options: Mapping[str, object],
    root: Path,
    where: str,
    *,
    site_url: str,
    site_url_key: str,
    require_site_url: bool = True,
) -> Config:
    """The config of a host's site: ``options["config"]`` names a ``mediashortcodes.toml``
    (default: the one in ``root``, if any), and any other key is one of its sections given
    inline, whose keys win over the file's. ``[site] base_url`` is the host's ``site_url``
    (``site_url_key`` names that setting in errors: ``site_url``, ``SITEURL``).
    """
    sections = {k: v for k, v in options.items() if k != "config"}
    named = options.get("config")
    file = root / str(named) if named else root / CONFIG_NAME
    if named and not file.is_file():
        raise ConfigError(f"{where}: config: {file} does not exist; create it or fix the path")
    data: dict[str, object] = {}
    text = ""
    source = where
    if file.is_file():
        data, text = read_toml(file)
        source = str(file)
    for name, values in sections.items():
        if values is None:
            continue
        if isinstance(values, Mapping) and isinstance(data.get(name), Mapping):
            data[name] = {**data[name], **values}  # type: ignore[dict-item]
        else:
            data[name] = values
    if sections:
        source = f"{source} and {where}" if file.is_file() else where
    config = from_mapping(data, root, source=source, text=text if not sections else "")
    if site_url:
        return replace(config, site=replace(config.site, base_url=site_url))
    if require_site_url and config.usage.enabled:
        raise ConfigError(
            f"{site_url_key} is not set: the usage manifest lists every page by its public "
            f"address; set {site_url_key} (e.g. https://docs.example.org/), or turn usage off "
            f"with usage: {{enabled: false}} in {where}"
        )
    return config


_TAGS = re.compile(r"<[^>]*>")
_TITLE = re.compile(r"<title>(.*?)</title>", re.IGNORECASE | re.DOTALL)


def page_title(html: str, site_name: str = "") -> str:
    """A built page's title as its theme shows it, without the `` - site name`` that
    themes add: the name the service shows for the page's usage."""
    match = _TITLE.search(html)
    if match is None:
        return ""
    title = " ".join(htmllib.unescape(_TAGS.sub("", match.group(1))).split())
    suffix = f" - {site_name}"
    if site_name and title.endswith(suffix) and title != suffix.strip():
        title = title[: -len(suffix)]
    return title
