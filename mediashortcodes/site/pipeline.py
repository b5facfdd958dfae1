"""The one pipeline of every build: pages -> markers -> resolve all -> final HTML -> publish
media -> manifest. Every host renders its pages into :attr:`Pipeline.renderer`; the
:class:`Resolved` that :meth:`Pipeline.resolve` returns does the rest."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..client.service import embed_urls
from ..config import Config, require_embed_urls, require_service_urls
from ..errors import OUTAGES, ContentError, MediaShortcodesError, Problem, counted, shown
from ..fileio import Confined, write_atomic
from ..language import VIDEO, Shortcode
from ..media.assets import publish
from ..media.cache import MediaCache, Stored, cache_for
from ..media.render import Renderer
from ..media.resolve_step import resolve_site
from ..media.resolver import Failure, ImageOutcome, Resolution, VideoOutcome, published_files
from ..usage.manifest import Manifest, page_url
from .markers import HEAD, DeferredRenderer, with_markers_replaced
from .pages import display_path
from .template_problems import pages_named

log = logging.getLogger("mediashortcodes")

SERVICE = "service"  # a warning's code: the service down, older cached metadata used
CACHE = "cache"  # the cache held damaged entries, or its shared tier failed
MEDIA = "media"  # a place's problem: its file cannot be shown


@dataclass(frozen=True)
class BuildOptions:
    output: Path | None = None
    offline: bool = False
    refresh: bool = False
    keep_going: bool = False
    jobs: int | None = None
    check_only: bool = False  # verify against the service, write nothing
    syntax_only: bool = False  # check --offline: parse only
    cache_read_only: bool = False  # read the cache, never write it (also [cache] read_only)
    cache_write: bool = False  # write the shared tier (also [cache] remote_write)
    workers: int | None = None  # processes rendering and writing pages; None: one per CPU
    memo: bool = True  # reuse unchanged pages (also [build] memo); --no-memo: False


@dataclass
class BuildResult:
    pages: int = 0
    images: int = 0
    videos: int = 0
    downloads: int = 0
    cache_hits: int = 0
    remote_hits: int = 0  # variants the shared cache gave
    encodes: int = 0  # AVIF and WebP files and placeholders made (media/encode.py)
    requests: int = 0
    seconds: float = 0.0
    output: Path | None = None
    manifest: Manifest | None = None
    problems: list[Problem] = field(default_factory=list)  # listed but not fatal (--keep-going)
    warnings: list[Problem] = field(default_factory=list)
    sources: list[Any] = field(default_factory=list)  # every page (PageSource), as listed
    srcset: list[str] = field(default_factory=list)  # `check`: the srcset each image asks for

    def summary(self) -> str:
        where = f" -> {shown(display_path(self.output))}" if self.output else ""
        stand_ins = f", {counted(len(self.problems), 'placeholder')}" if self.problems else ""
        shared = f"{self.remote_hits} from the shared cache, " if self.remote_hits else ""
        shared += f"{counted(self.encodes, 'encoding')} made, " if self.encodes else ""
        return (
            f"{counted(self.pages, 'page')}, {counted(self.images, 'image')}, "
            f"{counted(self.videos, 'video')}{stand_ins}; image files (each srcset size, each "
            f"poster): {counted(self.downloads, 'download')}, "
            f"{counted(self.cache_hits, 'cache hit')}, {shared}{counted(self.requests, 'request')} "
            f"in {self.seconds:.2f}s{where}"
        )


@dataclass
class PageEntry:
    """A host's page."""

    output_file: str  # relative to the output folder, with "/": "blog/post/index.html"
    url: str  # the page's path in the site, as the host links it: "blog/post/" or ""
    source: str  # the source file as problems name it
    used: set[int] = field(default_factory=set)


def media_url_prefix(base_url: str, media_dir: str) -> str:
    """Root-relative URL of the media directory (base_url may have a path)."""
    base_path = urlsplit(base_url).path.rstrip("/")
    return f"{base_path}/{media_dir.strip('/')}/"


def depth_prefix(output_file: str, media_dir: str) -> str:
    """The media folder's URL relative to the page at ``output_file`` (works from any host
    path and from the file system)."""
    depth = output_file.strip("/").count("/")
    return "../" * depth + media_dir.strip("/") + "/"


def open_cache(config: Config, options: BuildOptions) -> MediaCache:
    """The cache a build with ``options`` uses, its shared tier included."""
    return cache_for(
        config,
        read_only=options.cache_read_only,
        shared=True,
        shared_write=options.cache_write,
        jobs=options.jobs or config.build.jobs,
    )


class Pipeline:
    """One build. ``preview`` (``mkdocs serve``): an unreachable service gives placeholders
    from the cache instead of failing."""

    def __init__(
        self,
        config: Config,
        options: BuildOptions | None = None,
        *,
        preview: bool = False,
        cache: MediaCache | None = None,
    ) -> None:
        """``cache``: one the command opened early (with a head start), else its own."""
        self.config = config
        self.options = options or BuildOptions()
        self.preview = preview
        self.renderer = DeferredRenderer()
        self.pages: list[PageEntry] = []  # a host's pages (begin_page)
        self.warnings: list[Problem] = []  # the resolve step's
        self.cache = cache or open_cache(config, self.options)

    def close(self) -> None:
        self.cache.close()  # its head start ends; a read-only cache's downloads go

    def begin_page(self, source: str, output_file: str, url: str) -> PageEntry:
        """A host's page about to render (``source`` as problems name it)."""
        self.renderer.begin_page(source)
        entry = PageEntry(output_file, url, source, self.renderer.used)
        self.pages.append(entry)
        return entry

    def resolve(
        self,
        prefix: str,
        *,
        stop_on: Iterable[Problem] = (),
        snapshot: bool = True,
        progress: Callable[[int, int], Any] | None = None,
        result: BuildResult | None = None,
    ) -> Resolved:
        """Resolve every place at once and render its HTML linking media at ``prefix``.
        Raises a setting's error or an outage with the content's problems and ``stop_on``
        listed; raising for the content's problems is the caller's."""
        started = time.perf_counter()
        found = self.renderer.found_problems()
        result = BuildResult(pages=len(self.pages)) if result is None else result
        try:
            try:
                resolution = self._resolve_all(result, self.options.offline, snapshot, progress)
            except OUTAGES as exc:
                if not self.preview:
                    raise
                log.warning("mediashortcodes: %s; showing what the cache holds", exc)
                self.cache.close()
                self.cache = open_cache(self.config, self.options)
                resolution = self._resolve_all(result, True, snapshot, progress)
        except MediaShortcodesError as exc:  # what stops the work keeps its exit code
            if (stops := [*stop_on, *found]) and not isinstance(exc, ContentError):
                exc.content_problems = tuple(sorted(set(pages_named(stops))))
            raise
        resolved = Resolved(self, resolution, result)
        resolved.html_for(prefix)  # every place rendered once: its problems are known now
        failed = [(sc, f.message, MEDIA) for sc, f in resolution.pairs() if isinstance(f, Failure)]
        problems = [*found, *self.renderer.placed(failed + resolved.render_failed)]
        resolved.found = bool(found)
        resolved.problems = sorted(set(pages_named(problems)))
        result.warnings = self.warnings
        result.seconds = time.perf_counter() - started
        return resolved

    def _resolve_all(
        self,
        result: BuildResult,
        offline: bool,
        snapshot: bool,
        progress: Callable[[int, int], Any] | None,
    ) -> Resolution:
        """The media layer's resolve step; its warnings are kept even when it raises."""
        options, shortcodes = self.options, self.renderer.shortcodes
        # Before any fetch: the service URL names the cache (even --offline).
        if shortcodes:
            require_service_urls(self.config)
        first_video = next((sc for sc in shortcodes if sc.name == VIDEO), None)
        if first_video is not None:
            require_embed_urls(self.config, str(first_video.location))
        try:
            # `check` uses no variant, an update some pages' only: either would shrink it.
            if snapshot and not options.check_only:
                self.cache.open_snapshot(str(self.config.root), read=not options.refresh)
            resolution, result.requests, warnings = resolve_site(
                self.config,
                self.cache,
                shortcodes,
                jobs=options.jobs or self.config.build.jobs,
                refresh=options.refresh,
                offline=offline,
                verify_only=options.check_only,
                progress=progress,
            )
            self.warnings += [Problem("", 0, 0, m, SERVICE) for m in warnings]
            self.cache.save_snapshot()
        finally:
            self.warnings += [
                Problem("", 0, 0, w.removeprefix("warning: "), CACHE) for w in self.cache.warnings()
            ]
        result.downloads, result.cache_hits = resolution.downloads, resolution.cache_hits
        result.remote_hits, result.encodes = resolution.remote_hits, resolution.encodes
        # One warning per place and message, naming the pages of a place outside them.
        self.warnings += sorted(set(pages_named(self.renderer.placed(resolution.warnings))))
        # Each place: an image (True), a video (False), or failed (None), once per page.
        kinds = [
            None if isinstance(outcome, Failure) else sc.name != "media_video"
            for sc, outcome in resolution.pairs()
        ]
        shown = [kinds[i] for _page, used in self.renderer.page_uses for i in used]
        result.images, result.videos = shown.count(True), shown.count(False)
        if not self.preview:
            for _sc, outcome in resolution.pairs():
                if isinstance(outcome, Failure) and isinstance(outcome.cause, OUTAGES):
                    raise outcome.cause
        return resolution


class Resolved:
    """A resolved build: each place's HTML, the media to publish, each page's files."""

    def __init__(self, pipeline: Pipeline, resolution: Resolution, result: BuildResult) -> None:
        self.config = pipeline.config
        self.cache = pipeline.cache
        self.resolution = resolution
        self.result = result
        self.marker = pipeline.renderer.marker
        self.pages = pipeline.pages
        self.found = False  # problems found while rendering
        self.problems: list[Problem] = []
        self.render_failed: list[tuple[Shortcode, str, str]] = []
        player_url, static_url = embed_urls(self.config)
        templates = self.config.path(self.config.site.templates)
        self._renderer = Renderer(
            self.config.video,
            player_url=player_url,
            static_url=static_url,
            site_templates=templates if templates.is_dir() else None,
            auto_reload=False,  # nothing changes mid-build: no stat per rendering
        )
        self._by_prefix: dict[str, tuple[list[str], dict[int, str]]] = {}
        self._file_ids: list[int | None] | None = None

    @property
    def warnings(self) -> list[str]:
        return [warning.as_warning() for warning in self.result.warnings]

    def html_for(self, prefix: str) -> tuple[list[str], dict[int, str]]:
        """Each place's HTML linking media at ``prefix``, and its script embeds' element ids."""
        if prefix not in self._by_prefix:
            self._by_prefix[prefix] = self._final_html(prefix)
        return self._by_prefix[prefix]

    def _final_html(self, prefix: str) -> tuple[list[str], dict[int, str]]:
        """Sets :attr:`render_failed` (the places whose HTML cannot be written)."""
        renderer = self._renderer
        html: list[str] = []
        element_ids: dict[int, str] = {}
        failed: list[tuple[Shortcode, str, str]] = []
        done: dict[str, str] = {}  # a site repeats shortcodes: each rendered once if it can
        for sc, outcome in self.resolution.pairs():
            if isinstance(outcome, (ImageOutcome, VideoOutcome)):
                if sc.source in done:
                    html.append(done[sc.source])
                    continue
                try:
                    if isinstance(outcome, VideoOutcome):
                        text = renderer.video(sc, outcome.resolved(prefix))
                    else:
                        image = outcome.resolved(prefix)
                        text = renderer.image(sc, image)
                        if sc.priority:  # preloaded from the head
                            text = HEAD.join(("", renderer.preload(image), text))
                except ValueError as exc:  # e.g. a mediaId that cannot go into a URL or script
                    message = str(exc)
                    failed.append((sc, message, MEDIA))
                else:
                    if renderer.same_everywhere(sc):  # never a script embed: it has an id
                        done[sc.source] = text
                    elif element := renderer.element_id(sc):
                        element_ids[len(html)] = element
                    html.append(text)
                    continue
            else:
                message = outcome.message if isinstance(outcome, Failure) else "not resolved"
            html.append(renderer.placeholder(sc, message))
        self.render_failed = failed
        return html, element_ids

    def html(self, text: str, output_file: str | None = None) -> str:
        """``text`` with its markers replaced, linking the media relative to the page at
        ``output_file``, else root-relative."""
        if "\x02" not in text:
            return text
        site = self.config.site
        if output_file is None:
            prefix = media_url_prefix(site.base_url, site.media_dir)
        else:
            prefix = depth_prefix(output_file, site.media_dir)
        html, ids = self.html_for(prefix)
        return with_markers_replaced(text, self.marker, html, ids)

    @property
    def media(self) -> dict[str, Stored]:
        """Each file the pages show, by its name."""
        return published_files(self.resolution)

    @property
    def click_script(self) -> tuple[str, bytes] | None:
        """The click-to-load script (name, bytes), when a page uses it."""
        renderer = self._renderer
        return renderer.click_script if renderer.click_script_used else None

    def media_outputs(self) -> list[str]:
        """Every media path this build publishes, relative to the output."""
        media_dir = self.config.site.media_dir.replace("\\", "/").strip("/")
        script = [self.click_script[0]] if self.click_script else []
        return [f"{media_dir}/{name}" for name in [*script, *self.media]]

    def publish(self, output: Path | Confined, *, close: bool = True) -> None:
        """Put every file the pages show under ``output/<media_dir>/``."""
        images, script = self.media, self.click_script
        try:
            if images or script:  # no media folder for a site without media
                if not isinstance(output, Confined):
                    output = Confined(output, what="the site's output folder")
                media = output.folder(self.config.site.media_dir)
                for name, stored in images.items():  # once per variant, not per shortcode
                    publish(self.cache, stored, media / name)
                if script is not None:
                    write_atomic(media / script[0], script[1])
        finally:
            if close:
                self.cache.close()

    def files_used(self, used: Iterable[int]) -> set[int]:
        """The file ids the places ``used`` count for in the usage manifest: a failure with a
        cause (a fetch failed) still uses its file; one without (no such id) does not."""
        if self._file_ids is None:
            self._file_ids = [
                None if isinstance(outcome, Failure) and outcome.cause is None else sc.file_id
                for sc, outcome in self.resolution.pairs()
            ]
        ids = self._file_ids
        return {file_id for i in used if (file_id := ids[i]) is not None}

    def manifest(self, pages: Iterable[tuple[str, str, Iterable[int]]]) -> Manifest:
        """The usage manifest of ``pages``: (path as the host links it, title, places used)."""
        base = self.config.site.base_url
        listed = [(page_url(base, url), title, self.files_used(used)) for url, title, used in pages]
        return Manifest.from_pages(base, listed)
