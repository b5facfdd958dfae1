"""The built-in site builder: the one orchestrator that wires the pure core to the I/O.

1. Render every page (Markdown, then its Jinja layout) with a deferring renderer that
   records each shortcode and leaves a marker in its place.
2. Resolve all recorded shortcodes at once, concurrently, through the cache.
3. If any problem remains, stop: nothing is written (unless --keep-going).
4. Replace the markers with HTML, write the whole site into a staging directory, and
   swap it in for the previous output in one rename.
"""

from __future__ import annotations

import gc
import os
import re
import shutil
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jinja2
from markdown_it import MarkdownIt
from markupsafe import Markup

from ..client.service import embed_urls, require_sandbox_extra
from ..config import Config, require_embed_urls, require_service_urls
from ..errors import OUTAGES, ContentError, MediaShortcodesError, Problem
from ..fileio import Confined, remove_tree, write_atomic
from ..jinja import MediaShortcodesExtension
from ..language import VIDEO, Shortcode
from ..markdown import shortcodes_plugin
from ..media.cache import MediaCache, Stored, cache_for
from ..media.render import Renderer
from ..media.resolve_step import resolve_site
from ..media.resolver import (
    Failure,
    ImageOutcome,
    Resolution,
    Verified,
    VideoOutcome,
    published_files,
)
from ..usage.manifest import MANIFEST_NAME, Manifest, page_url
from . import pages as pages_mod
from .layout_undefined import PrintedUndefined, UndefinedPrints
from .markers import SHORTCODE, DeferredRenderer, with_markers_replaced
from .outputdir import check_output_dir, refuse_escapes, remove_leftovers, swap_into_place
from .resources import draft_folders, resources_of
from .runtime import cyclic_gc_paused, rendered_pages_frozen
from .static_files import check_resources, check_static, copy_files
from .template_problems import OnPage, pages_named, shown_with_any_stop, template_problem
from .workers import Workers, start_workers, workers_for


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


@dataclass
class BuildResult:
    pages: int = 0
    images: int = 0
    videos: int = 0
    downloads: int = 0
    cache_hits: int = 0
    remote_hits: int = 0  # variants the shared cache gave
    requests: int = 0
    seconds: float = 0.0
    output: Path | None = None
    manifest: Manifest | None = None
    problems: list[Problem] = field(default_factory=list)  # listed but not fatal (--keep-going)
    warnings: list[Problem] = field(default_factory=list)
    sources: list[pages_mod.PageSource] = field(default_factory=list)  # every page, as listed
    srcset: list[str] = field(default_factory=list)  # `check`: the srcset each image asks for

    def summary(self) -> str:
        where = f" -> {pages_mod.display_path(self.output)}" if self.output else ""
        stand_ins = f", {counted(len(self.problems), 'placeholder')}" if self.problems else ""
        shared = f"{self.remote_hits} from the shared cache, " if self.remote_hits else ""
        return (
            f"{counted(self.pages, 'page')}, {counted(self.images, 'image')}, "
            f"{counted(self.videos, 'video')}{stand_ins}: {counted(self.downloads, 'download')}, "
            f"{counted(self.cache_hits, 'cache hit')}, {shared}{counted(self.requests, 'request')} "
            f"in {self.seconds:.2f}s{where}"
        )


# The codes (Problem.code) of the warnings a build gives besides the resolver's and layouts'.
MARKDOWN = "markdown"  # a shortcode where Markdown cannot hold it (a heading, a link)
SERVICE = "service"  # the service down: older cached metadata used
CACHE = "cache"  # the cache held damaged entries, or its shared tier failed


def counted(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


@dataclass
class RenderedPage:
    source: pages_mod.PageSource
    html: str
    used: set[int]


def _markdown(renderer: DeferredRenderer) -> MarkdownIt:
    return (
        MarkdownIt("commonmark", {"typographer": False})
        .enable(["table", "strikethrough"])
        .use(shortcodes_plugin, renderer=renderer)
    )


def open_cache(config: Config, options: BuildOptions) -> MediaCache:
    """The cache a build of ``config`` with ``options`` uses, its shared tier included."""
    return cache_for(
        config,
        read_only=options.cache_read_only,
        shared=True,
        shared_write=options.cache_write,
        jobs=options.jobs or config.build.jobs,
    )


class SiteBuilder:
    def __init__(
        self,
        config: Config,
        options: BuildOptions | None = None,
        *,
        progress: Callable[[int, int], Any] | None = None,
        cache: MediaCache | None = None,
    ) -> None:
        """``cache``: the one the command opened (and started a head start on) before it
        imported this; else :meth:`open_cache`'s."""
        self.config = config
        self.options = options or BuildOptions()
        self.output = (self.options.output or config.output_dir).resolve()
        self.templates_dir = config.path(config.site.templates)
        self.cache = cache or open_cache(config, self.options)
        self.deferred = DeferredRenderer()
        self.warnings: list[Problem] = []
        # (name, bytes) of the click-to-load script, once a page has such a video
        self._click_script: tuple[str, bytes] | None = None
        self._resources: list[str] = []  # files of content/ published beside the pages
        # What this build counted so far: when a problem stops it, what is known (pages,
        # images, requests ...) is still there for the summary of --format json.
        self.result: BuildResult | None = None
        self.progress = progress
        self.markdown = _markdown(self.deferred)
        self.undefined_prints = UndefinedPrints()
        self.env = self._environment()
        self._workers: Workers | None = None  # --workers: the processes rendering with this one

    def _environment(self) -> jinja2.Environment:
        env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(self.templates_dir)),
            autoescape=jinja2.select_autoescape(["html", "htm", "xml"]),
            extensions=[MediaShortcodesExtension],
            keep_trailing_newline=True,
            # Silent where layouts guard optional front matter; printed, a warning (a typo).
            undefined=PrintedUndefined,
        )
        env.mediashortcodes_renderer = self.deferred  # type: ignore[attr-defined]
        self.undefined_prints.install(env)
        return env

    # -- phase 1: render with markers ------------------------------------------------------

    @cyclic_gc_paused()
    def _render_pages(
        self,
        sources: list[pages_mod.PageSource],
        listed: list[pages_mod.PageSource] | None = None,
    ) -> list[RenderedPage]:
        """Each of ``sources`` rendered with markers; ``site.pages`` lists ``listed`` (by
        default ``sources``: the whole site). In ``--workers`` processes when there are many."""
        site = self.site_variables(sources if listed is None else listed)
        # Some pages again (serve's update_pages) write in place here: one process.
        if self._workers is not None and listed is None:  # forked as the pages were read
            return self._workers.render(self, site)
        rendered = self.render_pages(sources, site)
        self.warnings += self.undefined_prints.warnings()
        return rendered

    def site_variables(self, listed: list[pages_mod.PageSource]) -> dict[str, Any]:
        """The ``site`` every layout gets: the base URL and the data of the ``listed`` pages."""
        return {
            "base_url": self.config.site.base_url,
            "pages": [
                {
                    "title": s.title,
                    "url": s.url,
                    "date": s.front_matter.get("date"),
                    "front_matter": s.front_matter,
                }
                for s in listed
            ],
        }

    def render_pages(
        self, sources: list[pages_mod.PageSource], site: dict[str, Any]
    ) -> list[RenderedPage]:
        """Render ``sources`` in order, recording their shortcodes in ``self.deferred``; a page
        whose layout fails is left out (its problem is recorded)."""
        rendered: list[RenderedPage] = []
        for source in sources:
            page = self.render_page(source, site)
            if page is not None:
                rendered.append(page)
        return rendered

    def render_page(
        self, source: pages_mod.PageSource, site: dict[str, Any]
    ) -> RenderedPage | None:
        """One page: its Markdown, then its layout, with a marker for each shortcode."""
        self.deferred.begin_page(source.display_path)
        env: dict[str, Any] = {
            "mediashortcodes": {
                "path": source.display_path,
                "start_line": source.body_start_line,
            }
        }
        content = self.markdown.render(source.body, env)
        if problems := env["mediashortcodes"].get("problems"):
            self.deferred.problems += [replace(p, code=p.code or SHORTCODE) for p in problems]
        if warnings := env["mediashortcodes"].get("warnings"):  # a block in a heading...
            self.warnings += [replace(w, code=w.code or MARKDOWN) for w in warnings]
        page = {
            **source.front_matter,
            "title": source.title,
            "url": source.url,
            "date": source.front_matter.get("date"),
            "content": Markup(content),
            "front_matter": source.front_matter,
        }
        self.undefined_prints.begin_page(source.display_path, page, site)
        try:
            template = self.env.get_template(source.template)
            html = template.render(page=page, site=site)
        except MediaShortcodesError:
            raise
        except Exception as exc:  # a layout's bug, even a TypeError, is a listed problem
            found = template_problem(exc, source, self.templates_dir)
            if isinstance(found, OnPage):
                self.deferred.on_pages.append(found)
            else:
                self.deferred.problems.append(found)
            return None
        return RenderedPage(source, html, self.deferred.used)  # a new set each page

    # -- phase 2: resolve -----------------------------------------------------------------

    def _resolve(self, snapshot: bool = True) -> tuple[Resolution, int]:
        """Every place resolved, and the requests it took: from the cache alone when it can
        answer everything (a warm build: no event loop), else asking the service."""
        jobs = self.options.jobs or self.config.build.jobs
        total = len(self.deferred.shortcodes)
        done = 0

        def tick(n: int) -> None:
            nonlocal done
            done += n
            if self.progress:
                self.progress(done, total)

        # `check` uses no variant, and an update some pages' only: either would shrink it.
        if snapshot and not self.options.check_only:
            self.cache.open_snapshot(str(self.config.root), read=not self.options.refresh)
        resolution, requests, warnings = resolve_site(
            self.config,
            self.cache,
            self.deferred.shortcodes,
            jobs=jobs,
            refresh=self.options.refresh,
            offline=self.options.offline,
            verify_only=self.options.check_only,
            progress=tick,
        )
        self.warnings += [Problem("", 0, 0, m, SERVICE) for m in warnings]
        return resolution, requests

    # -- the whole build ------------------------------------------------------------------

    def build(self) -> BuildResult:
        started = time.perf_counter()
        try:
            return self._build()
        except MediaShortcodesError as exc:
            exc.warnings = exc.warnings or tuple(self.warnings)  # listed after the errors
            if self.result is not None:
                self.result.seconds = time.perf_counter() - started
            raise
        finally:
            if self._workers is not None:
                self._workers.close()
                self._workers = None
            self.cache.close()  # a read-only cache's downloads, published by now, go
            gc.unfreeze()  # what the phases froze (cyclic_gc_paused) is collected as usual again

    def _build(self) -> BuildResult:
        started = time.perf_counter()
        self.warnings = []
        if not self.options.check_only:
            check_output_dir(self.output, self.config)  # before any work: fail fast
        if not (self.options.offline or self.options.syntax_only):
            require_sandbox_extra(self.config)  # one error, not one per image
        self._start_head_start()  # the shared tier's images come while the pages render
        content = self.config.path(self.config.site.content)
        unreadable: list[Problem] = []
        others: list[str] = []
        found = self._read_pages(content, unreadable, others)
        sources = [s for s in found if not s.draft]
        self._resources = resources_of(others, draft_folders(found, content))
        # Pages that cannot be read or share a URL stop the build (exit 2), but only once the
        # other pages were rendered and resolved: one run lists every problem of the site.
        page_errors = _page_errors(unreadable, sources)
        self.warnings += [replace(p, code="page") for p in pages_mod.unportable_names(sources)]
        rendered = self._render_pages(sources)
        result = self.result = BuildResult(pages=len(rendered), sources=sources)
        if self.options.syntax_only:
            self._stop_on(page_errors, self.deferred.found_problems())
            result.warnings = self.warnings
            result.seconds = time.perf_counter() - started
            return result
        resolution, html_by_index, element_ids = self._resolved(result, page_errors=page_errors)
        result.manifest = self._manifest(rendered, resolution)
        if self.options.check_only:
            result.srcset = srcset_lines(resolution)
        else:
            self._write(rendered, resolution, html_by_index, element_ids, result.manifest)
            result.output = self.output
        result.seconds = time.perf_counter() - started
        return result

    @cyclic_gc_paused()
    def _read_pages(
        self, content: Path, unreadable: list[Problem], others: list[str]
    ) -> list[pages_mod.PageSource]:
        """Every page of ``content``, drafts too (see ``pages_mod.discover``): with
        ``--workers``, each process reads the run of pages it renders (site/workers.py)."""
        listing = pages_mod.list_pages(content, self.warnings, others)
        own = listing.files
        workers = workers_for(self.options.workers, len(own))
        if workers > 1:
            own, self._workers = start_workers(self, content, listing, workers)
        found = pages_mod.load_pages(content, own, unreadable)
        if self._workers is not None:
            self._workers.own_pages = found
            theirs, unread = self._workers.loaded()
            found = found + theirs
            unreadable += unread
        return found

    def _start_head_start(self) -> None:
        """A fresh runner's head start on the shared tier's images (media/head_start.py)."""
        options = self.options
        if not (options.syntax_only or options.check_only or options.offline or options.refresh):
            self.cache.start_head_start(str(self.config.root))

    def update_pages(
        self, listing: list[pages_mod.PageSource], pages: list[pages_mod.PageSource]
    ) -> BuildResult:
        """Render ``pages`` again into the output that a build of this site wrote, in place.

        For ``serve``, after edits that changed only the bodies of ``pages``: their front
        matter is as that build saw it, so ``site.pages`` (``listing``: every page) is too
        and no other page changes. Each page is written whole (a new file renamed over the
        old one), the media it uses are published beside the others and the usage manifest
        is updated: the output is what a whole build would write, but for media files that
        no page uses any more. Problems raise as a build's do, and then nothing is written.
        """
        try:
            started = time.perf_counter()
            self.warnings = []
            rendered = self._render_pages(pages, listed=listing)
            result = BuildResult(pages=len(rendered), sources=listing)
            resolution, html_by_index, element_ids = self._resolved(result, snapshot=False)
            manifest = self._manifest(rendered, resolution)
            self._write_in_place(rendered, resolution, html_by_index, element_ids, manifest)
            result.output = self.output
            result.seconds = time.perf_counter() - started
            return result
        finally:
            gc.unfreeze()

    def _resolved(
        self,
        result: BuildResult,
        *,
        snapshot: bool = True,
        page_errors: pages_mod.PageErrors | None = None,
    ) -> tuple[Resolution, list[str], dict[int, str]]:
        """Every rendered place resolved, and its final HTML (see :meth:`final_html`); the
        counts, warnings and --keep-going's problems go into ``result``. Raises on the
        problems that stop a build (``page_errors`` with the content's problems listed)."""
        found = self.deferred.found_problems()
        with shown_with_any_stop([*(page_errors.problems if page_errors else ()), *found]):
            resolution, failed = self.resolve_all(result, snapshot=snapshot)
        problems = found + self.deferred.placed(failed)

        player_url, static_url = embed_urls(self.config)
        renderer = Renderer(
            self.config.video,
            player_url=player_url,
            static_url=static_url,
            site_templates=self.templates_dir if self.templates_dir.is_dir() else None,
            auto_reload=False,  # no stat of a template per rendering: nothing changes mid-build
        )
        html_by_index, element_ids, render_failed = self.final_html(resolution, renderer)
        # A click-to-load video was rendered: its script is published with the media.
        self._click_script = renderer.click_script if renderer.click_script_used else None
        problems += self.deferred.placed(render_failed)
        result.warnings = self.warnings
        # --keep-going stands in for files the service cannot give; what the author wrote
        # wrong (a malformed shortcode, a broken layout) has no placeholder and would vanish.
        if page_errors or (problems and (found or not self.options.keep_going)):
            self._stop_on(page_errors, problems)
        result.problems = sorted(set(pages_named(problems)))
        return resolution, html_by_index, element_ids

    def _stop_on(
        self, page_errors: pages_mod.PageErrors | None, problems: list[Problem | OnPage]
    ) -> None:
        """Raise for the pages that cannot be built (exit 2), with the content's problems
        listed too, or for the content's problems alone (exit 1); return when there are none."""
        listed = pages_named(problems)
        if page_errors is not None:
            page_errors.content_problems = tuple(sorted(set(listed)))
            raise page_errors
        if listed:
            head = f"{len(set(listed))} problem(s) found"
            raise ContentError(listed, head if self.options.check_only else "")

    def _shown_on_pages(self, shown: list[bool | None]) -> tuple[int, int]:
        """The images and videos the pages show: each place once on every page it is on (a
        layout's on each of its pages, as the published ``<img>`` elements are counted)."""
        images = videos = 0
        for _page, used in self.deferred.page_uses:
            for index in used:
                kind = shown[index]
                if kind:
                    images += 1
                elif kind is not None:
                    videos += 1
        return images, videos

    def _place_warnings(self, warnings: list[tuple[Shortcode, str, str]]) -> list[Problem]:
        """One warning per place and message, naming the pages it is on when it is outside
        them: a layout's image without alt text is one line, not one per page."""
        by_code: dict[str, list[tuple[Shortcode, str]]] = {}
        for sc, message, code in warnings:
            by_code.setdefault(code, []).append((sc, message))
        placed = [p for code, some in by_code.items() for p in self.deferred.placed(some, code)]
        return sorted(set(pages_named(placed)))

    def resolve_all(
        self, result: BuildResult, *, outages_fail: bool = True, snapshot: bool = True
    ) -> tuple[Resolution, list[tuple[Shortcode, str]]]:
        """Every place resolved and counted in ``result``; the failed ones, with why.

        Raises when a setting is missing or the service is down (no content problem), unless
        ``outages_fail`` is off (a live preview: what could not be fetched is a failed place).
        """
        # Before anything is fetched: shortcodes need the service's URL (which names its cache,
        # so even --offline), and a site that embeds videos needs the player's URLs.
        if self.deferred.shortcodes:
            require_service_urls(self.config)
        first_video = next((sc for sc in self.deferred.shortcodes if sc.name == VIDEO), None)
        if first_video is not None:
            require_embed_urls(self.config, str(first_video.location))
        # Malformed shortcodes do not stop here: the valid ones are still resolved, so one
        # run lists every problem of the site, the service's answers included.
        try:
            with rendered_pages_frozen():
                resolution, result.requests = self._resolve(snapshot)
            self.cache.save_snapshot()
        finally:
            self.warnings += [
                Problem("", 0, 0, w.removeprefix("warning: "), CACHE) for w in self.cache.warnings()
            ]
        result.downloads, result.cache_hits = resolution.downloads, resolution.cache_hits
        result.remote_hits = resolution.remote_hits
        self.warnings += self._place_warnings(resolution.warnings)
        failures: list[tuple[Shortcode, Failure]] = []
        shown: list[bool | None] = []  # each place: an image, a video, or None (failed)
        for sc, outcome in resolution.pairs():  # one pass: a large site has 60,000 places
            if isinstance(outcome, Failure):
                failures.append((sc, outcome))
                shown.append(None)
            else:
                shown.append(sc.name == "media_image")
        result.images, result.videos = self._shown_on_pages(shown)
        for _sc, failure in failures:
            if outages_fail and isinstance(failure.cause, OUTAGES):
                raise failure.cause
        return resolution, [(sc, f.message) for sc, f in failures]

    @cyclic_gc_paused()
    def final_html(
        self, resolution: Resolution, renderer: Renderer, prefix: str | None = None
    ) -> tuple[list[str], dict[int, str], list[tuple[Shortcode, str]]]:
        """Each place's HTML, in order; the element ids in it (script embeds), by place; the
        places that cannot be rendered, with why. ``prefix``: the media folder's URL as the
        pages link it (default: root-relative, from ``[site] base_url``)."""
        if prefix is None:
            prefix = media_url_prefix(self.config.site.base_url, self.config.site.media_dir)
        html: list[str] = []
        element_ids: dict[int, str] = {}
        failed: list[tuple[Shortcode, str]] = []
        # A site repeats shortcodes: each is rendered once unless its place can show.
        done: dict[str, str] = {}
        for sc, outcome in resolution.pairs():
            if isinstance(outcome, (ImageOutcome, VideoOutcome)):
                # The same text has the same meaning (parsing round-trips), so the same outcome.
                key = sc.source
                if key in done:
                    html.append(done[key])
                    continue
                try:
                    text = _resolved_html(sc, outcome, renderer, prefix)
                except ValueError as exc:  # e.g. a mediaId that cannot go into a URL or script
                    message = str(exc)
                    failed.append((sc, message))
                else:
                    if renderer.same_everywhere(sc):  # never a script embed: it has an id
                        done[key] = text
                    elif element := renderer.element_id(sc):
                        element_ids[len(html)] = element
                    html.append(text)
                    continue
            else:
                message = outcome.message if isinstance(outcome, Failure) else "not resolved"
            html.append(renderer.placeholder(sc, message))
        return html, element_ids, failed

    @cyclic_gc_paused()
    def _manifest(self, rendered: list[RenderedPage], resolution: Resolution) -> Manifest:
        entries = []
        # Each shortcode once, not once per page that uses it (a layout's are on every page).
        file_ids = used_file_ids(resolution)
        base_url = self.config.site.base_url
        for page in rendered:
            ids = {file_id for i in page.used if (file_id := file_ids[i]) is not None}
            entries.append((page_url(base_url, page.source.url), page.source.title, ids))
        return Manifest.from_pages(base_url, entries)

    # -- phase 4: write, all or nothing -----------------------------------------------------

    def _outputs(self, rendered: list[RenderedPage], images: Mapping[str, Stored]) -> list[str]:
        """Every path these pages and media are written to, relative to the output."""
        media_dir = self.config.site.media_dir.replace("\\", "/").strip("/")
        outputs = [MANIFEST_NAME, *(p.source.output_file for p in rendered)]
        if self._click_script is not None:
            outputs.append(f"{media_dir}/{self._click_script[0]}")
        return outputs + [f"{media_dir}/{name}" for name in images]

    @cyclic_gc_paused()
    def _write(
        self,
        rendered: list[RenderedPage],
        resolution: Resolution,
        html_by_index: list[str],
        element_ids: Mapping[int, str],
        manifest: Manifest,
    ) -> None:
        images = published_images(resolution)
        static_dir = self.config.path(self.config.site.static)
        shown_static = pages_mod.display_path(static_dir)
        content = self.config.path(self.config.site.content)
        shown_content = pages_mod.display_path(content)
        # Before anything is written: a path out of the output, or a clash with a file of
        # content/ or static/, leaves the output as it was.
        outputs = self._outputs(rendered, images)
        check_resources(self._resources, outputs, shown_content)
        outputs += self._resources
        refuse_escapes(outputs)
        if static_dir.is_dir():
            check_static(static_dir, outputs, shown_static)
        remove_leftovers(self.output)  # of builds killed while they wrote
        staging = self.output.parent / f".{self.output.name}.staging-{os.getpid()}"
        if staging.exists():
            shutil.rmtree(staging)
        try:
            # Every write below goes through it: proven inside the staging folder (fileio.py).
            confined = Confined(staging, what="the output")
            if static_dir.is_dir():
                self.warnings += copy_files(static_dir, confined, shown_static)
            self.warnings += copy_files(content, confined, shown_content, self._resources)
            own = rendered
            if self._workers is not None:  # they write their pages meanwhile
                self._workers.write(staging, html_by_index, element_ids)
                own = self._workers.own
            if images or self._click_script:  # no media folder for a site without media
                media = confined.folder(self.config.site.media_dir)
                publish_media(self.cache, images, media, self._click_script)
            write_pages(own, confined, self.deferred.marker, html_by_index, element_ids)
            manifest.write_atomic(confined.file(MANIFEST_NAME))
            threads = 1
            if self._workers is not None:
                self._workers.wait()
                threads = 2 * (len(self._workers.workers) + 1)  # removing waits on the disk
            swap_into_place(staging, self.output, threads=threads)
        except BaseException:
            remove_tree(staging)
            raise

    @cyclic_gc_paused()
    def _write_in_place(
        self,
        rendered: list[RenderedPage],
        resolution: Resolution,
        html_by_index: list[str],
        element_ids: Mapping[int, str],
        manifest: Manifest,
    ) -> None:
        """:meth:`update_pages`' writing: its pages and media into the output as it is."""
        images = published_images(resolution)
        refuse_escapes(self._outputs(rendered, images))
        confined = Confined(self.output, what="the output")
        if images or self._click_script:
            media = confined.folder(self.config.site.media_dir)
            publish_media(self.cache, images, media, self._click_script)
        for page in rendered:
            html = with_markers_replaced(
                page.html, self.deferred.marker, html_by_index, element_ids
            )
            write_atomic(confined.file(page.source.output_file), html.encode("utf-8"))
        listed = Manifest.from_json((self.output / MANIFEST_NAME).read_bytes())
        Manifest(listed.site, {**listed.pages, **manifest.pages}).write_atomic(
            confined.file(MANIFEST_NAME)
        )


def write_pages(
    rendered: list[RenderedPage],
    staging: Confined,
    marker: re.Pattern[str],
    html_by_index: list[str],
    element_ids: Mapping[int, str],
) -> None:
    """Write each page into ``staging``, its markers replaced by its shortcodes' HTML: a new
    file (never through a link) in a folder proven inside it."""
    for page in rendered:
        with open(staging.file(page.source.output_file), "x", encoding="utf-8") as out:
            out.write(with_markers_replaced(page.html, marker, html_by_index, element_ids))


def used_file_ids(resolution: Resolution) -> list[int | None]:
    """The file id each place counts for in the usage manifest, in order (None: none).

    A failure with a cause is a file the service has that could not be fetched this time
    (--keep-going shows a placeholder): the page still uses it, and leaving it out would
    report its removal. One without (an id that does not exist) is no usage.
    """
    return [
        None if isinstance(outcome, Failure) and outcome.cause is None else sc.file_id
        for sc, outcome in resolution.pairs()
    ]


def published_images(resolution: Resolution) -> dict[str, Stored]:
    """Each file the pages show, by its published name (once, not per place): image
    variants, their srcset candidates and click-to-load posters."""
    return published_files(resolution)


def publish_media(
    cache: MediaCache,
    images: Mapping[str, Stored],
    media: Path,
    click_script: tuple[str, bytes] | None = None,
) -> None:
    """Put every file the pages show into an output's ``media`` folder (proven inside the
    output: ``Confined.folder``; a link at a file's name is replaced, never followed), and
    the click-to-load script (name, bytes) when a page has such a video."""
    from ..media.assets import publish

    for name, stored in images.items():  # once per variant, not per shortcode
        publish(cache, stored, media / name)
    if click_script is not None:
        write_atomic(media / click_script[0], click_script[1])


def _page_errors(
    unreadable: list[Problem], sources: list[pages_mod.PageSource]
) -> pages_mod.PageErrors | None:
    """The pages that cannot be built, as one error: those that cannot be read, the URLs
    that more than one page would be written to (drafts are not written: they cannot clash),
    and those that Windows and macOS would write into one folder."""
    clashes = pages_mod.url_clashes(sources)
    heads = [f"{len(unreadable)} page(s) cannot be read"] if unreadable else []
    if clashes:
        heads.append(f"{len(clashes)} URL(s) given by more than one page")
    elif folded := pages_mod.case_clashes(sources):
        clashes = [replace(p, code=p.code or "url-clash") for p in folded]
        heads.append(f"{len(clashes)} URL(s) that Windows and macOS would write into one folder")
    if not clashes:
        return pages_mod.PageErrors(unreadable) if unreadable else None
    return pages_mod.PageErrors(unreadable + clashes, "; ".join(heads) + "; nothing was written")


def srcset_lines(resolution: Resolution) -> list[str]:
    """One line per image with ``widths`` (each once, at its first place): what a build fetches."""
    places: dict[tuple[object, ...], list[Shortcode]] = {}
    for sc, outcome in resolution.pairs():
        if isinstance(outcome, Verified) and outcome.widths:
            key = (sc.file_id, sc.format, sc.crop, outcome.widths)
            places.setdefault(key, []).append(sc)
    lines = []
    for (file_id, _fmt, _crop, widths), scs in places.items():
        more = len(scs) - 1
        where = f"{scs[0].location}" + (f" (and {counted(more, 'more place')})" if more else "")
        variant = "custom crop" if scs[0].crop is not None else scs[0].format or "default format"
        candidates = ", ".join(f"{w}w" for w in widths)
        lines.append(f"{where}: file {file_id} ({variant}): srcset {candidates}")
    return lines


def _resolved_html(
    sc: Shortcode, outcome: ImageOutcome | VideoOutcome, renderer: Renderer, prefix: str
) -> str:
    if isinstance(outcome, VideoOutcome):
        return renderer.video(sc, outcome.resolved(prefix))
    return renderer.image(sc, outcome.resolved(prefix))


def media_url_prefix(base_url: str, media_dir: str) -> str:
    """Root-relative URL of the media directory, honouring a base_url with a path."""
    base_path = urlsplit(base_url).path.rstrip("/")
    return f"{base_path}/{media_dir.strip('/')}/"


def build_site(config: Config, options: BuildOptions | None = None, **kwargs: Any) -> BuildResult:
    return SiteBuilder(config, options, **kwargs).build()
