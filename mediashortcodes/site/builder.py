"""The built-in site builder: ``content/`` and ``templates/`` through the one pipeline, the
site written into a staging folder swapped in for the output (docs/architecture.md)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..client.service import require_sandbox_extra
from ..config import Config
from ..errors import ContentError, MediaShortcodesError, Problem, counted
from ..fileio import Confined, write_atomic
from ..media.resolver import Verified
from ..usage.manifest import MANIFEST_NAME, Manifest
from . import pages as pages_mod
from .files import SourceFiles, check_in_the_way, copy_files, resources_of, source_files
from .memo import PageMemo, drop_memo, open_memo
from .outputdir import check_output_dir, refuse_escapes, written_in_staging
from .pipeline import CACHE, BuildOptions, BuildResult, Pipeline, Resolved, media_url_prefix
from .rendering import PageRenderer, RenderedPage, site_variables, write_pages
from .template_problems import pages_named
from .workers import Workers, workers_for

if TYPE_CHECKING:
    from ..media.cache import MediaCache

__all__ = ["BuildOptions", "BuildResult", "SiteBuilder", "build_site"]


class SiteBuilder:
    def __init__(
        self,
        config: Config,
        options: BuildOptions | None = None,
        *,
        cache: MediaCache | None = None,
    ) -> None:
        self.config = config
        self.options = options or BuildOptions()
        self.output = (self.options.output or config.output_dir).resolve()
        self.prefix = media_url_prefix(config.site.base_url, config.site.media_dir)
        self.pipeline = Pipeline(config, self.options, cache=cache)
        self.renderer = PageRenderer(config, self.pipeline.renderer)
        self.renderer.memo = self._memo()
        # What is counted so far: a stopped build's --format json summary shows it.
        self.result: BuildResult | None = None
        self._workers: Workers | None = None  # --workers: the processes rendering with this one

    def _memo(self) -> PageMemo | None:
        """The page memo of this build: none for ``check``, ``--no-memo``, ``[build] memo =
        false``; ``--refresh`` drops it first (a read-only cache's is then left out)."""
        options, config = self.options, self.config
        if options.check_only or not (options.memo and config.build.memo):
            return None
        read_only = options.cache_read_only or config.cache.read_only
        if options.refresh:
            if read_only:
                return None
            drop_memo(config)
        return open_memo(config, write=not read_only)

    def build(self, progress: Callable[[int, int], Any] | None = None) -> BuildResult:
        started = time.perf_counter()
        warnings: list[Problem] = []
        try:
            return self._build(warnings, progress)
        except MediaShortcodesError as exc:  # warnings listed after the errors
            exc.warnings = exc.warnings or (*warnings, *self.pipeline.warnings)
            raise
        finally:
            if self.result is not None:  # also of a build a problem stopped
                self.result.seconds = time.perf_counter() - started
            if self._workers is not None:
                self._workers.close()
                self._workers = None
            self.pipeline.close()

    def _build(
        self, warnings: list[Problem], progress: Callable[[int, int], Any] | None
    ) -> BuildResult:
        options = self.options
        if not options.check_only:
            check_output_dir(self.output, self.config)  # before any work: fail fast
        if not (options.offline or options.syntax_only):
            require_sandbox_extra(self.config)  # one error, not one per image
        if not (options.syntax_only or options.check_only or options.offline or options.refresh):
            # The shared tier's images come while pages render (media/head_start.py).
            self.pipeline.cache.start_head_start(str(self.config.root))
        content = self.config.path(self.config.site.content)
        unreadable: list[Problem] = []
        others: list[str] = []
        listing = pages_mod.list_pages(content, warnings, others)
        workers = workers_for(self.options.workers, len(listing.files))
        if workers > 1:  # each process reads its own run
            self._workers = Workers(self.renderer, content, listing, workers)
            found = self._workers.loaded(unreadable)
        else:
            found = pages_mod.load_pages(content, listing.files, unreadable)
        sources = [s for s in found if not s.draft]
        resources = resources_of(others, pages_mod.draft_folders(found, content))
        # Such pages stop the build (exit 2) once the rest was resolved: one run lists all.
        page_errors = _page_errors(unreadable, sources)
        warnings += pages_mod.unportable_names(sources)
        rendered = self._render(sources, sources, warnings)
        result = self.result = BuildResult(pages=len(rendered), sources=sources)
        if options.syntax_only:
            self._stop_on(page_errors, pages_named(self.pipeline.renderer.found_problems()))
            result.warnings = warnings
        else:
            resolved = self._resolved(result, warnings, page_errors, progress=progress)
            result.manifest = resolved.manifest(
                (p.source.url, p.source.title, p.used) for p in rendered
            )
            if options.check_only:
                result.srcset = srcset_lines(resolved)
            else:
                written_in_staging(
                    self.output,
                    lambda staging: self._write(staging, rendered, resolved, result, resources),
                )
                result.output = self.output
                if self.renderer.memo is not None:
                    self.renderer.memo.prune()
        return result

    def _render(
        self,
        sources: list[pages_mod.PageSource],
        listed: list[pages_mod.PageSource],
        warnings: list[Problem],
    ) -> list[RenderedPage]:
        """``sources`` rendered with markers; ``site.pages`` lists ``listed``."""
        site = site_variables(self.config.site.base_url, listed)
        if self._workers is not None:  # only while build() runs, where sources is listed
            run = self._workers.render(self.renderer, site)
        else:
            run = self.renderer.render_pages(sources, site)
        warnings += run.warnings
        warnings += pages_named(run.undefined)
        if run.refused:  # written with another key (another machine, a fork), or damaged
            entries = counted(run.refused, "page memo entry", "page memo entries")
            message = f"{entries} failed the signature check and were not used; pages rendered"
            warnings.append(Problem("", 0, 0, message, CACHE))
        return run.pages

    def update_pages(
        self, listing: list[pages_mod.PageSource], pages: list[pages_mod.PageSource]
    ) -> BuildResult:
        """Render ``pages`` again into the built output, in place (``serve``, after edits to
        their bodies alone). What a whole build writes, but for media no page uses any
        more; problems raise as a build's do, and then nothing is written."""
        started = time.perf_counter()
        warnings: list[Problem] = []
        try:
            rendered = self._render(pages, listing, warnings)
            result = BuildResult(pages=len(rendered), sources=listing)
            resolved = self._resolved(result, warnings, None, snapshot=False)
            manifest = resolved.manifest((p.source.url, p.source.title, p.used) for p in rendered)
            refuse_escapes(resolved.media_outputs())
            confined = Confined(self.output, what="the output")
            resolved.publish(confined, close=False)
            for page in rendered:  # media linked at self.prefix
                text = resolved.html(page.html)
                write_atomic(confined.file(page.source.output_file), text.encode("utf-8"))
            listed = Manifest.from_json((self.output / MANIFEST_NAME).read_bytes())
            Manifest(listed.site, {**listed.pages, **manifest.pages}).write_atomic(
                confined.file(MANIFEST_NAME)
            )
        finally:
            self.pipeline.close()
        result.output = self.output
        result.seconds = time.perf_counter() - started
        return result

    def _resolved(
        self,
        result: BuildResult,
        warnings: list[Problem],
        page_errors: pages_mod.PageErrors | None,
        *,
        snapshot: bool = True,
        progress: Callable[[int, int], Any] | None = None,
    ) -> Resolved:
        """Resolve every rendered place into ``result``; raise on what stops a build."""
        stop_on = page_errors.problems if page_errors else ()
        resolved = self.pipeline.resolve(
            self.prefix, stop_on=stop_on, snapshot=snapshot, progress=progress, result=result
        )
        result.warnings = [*warnings, *resolved.result.warnings]
        # --keep-going stands in for files the service cannot give, not for the author's
        # mistakes (a malformed shortcode, a broken layout), which would vanish.
        problems = resolved.problems
        if page_errors or (problems and (resolved.found or not self.options.keep_going)):
            self._stop_on(page_errors, problems)
        result.problems = problems
        return resolved

    def _stop_on(self, page_errors: pages_mod.PageErrors | None, listed: list[Problem]) -> None:
        """Raise for unbuildable pages (exit 2, listing the rest too), else for any problems."""
        if page_errors is not None:
            page_errors.content_problems = tuple(sorted(set(listed)))
            raise page_errors
        if listed:
            head = f"{counted(len(set(listed)), 'problem')} found"
            raise ContentError(listed, head if self.options.check_only else "")

    def _write(
        self,
        staging: Path,
        rendered: list[RenderedPage],
        resolved: Resolved,
        result: BuildResult,
        resources: list[str],
    ) -> int:
        """Write the whole site into ``staging``; the threads that remove the old output."""
        site = self.config.site
        static_dir, content = self.config.path(site.static), self.config.path(site.content)
        shown_static = pages_mod.display_path(static_dir)
        shown_content = pages_mod.display_path(content)
        outputs = [
            MANIFEST_NAME,
            *(p.source.output_file for p in rendered),
            *resolved.media_outputs(),
        ]
        check_in_the_way(resources, outputs, shown_content, "file")
        outputs += resources
        refuse_escapes(outputs)
        static = source_files(static_dir) if static_dir.is_dir() else SourceFiles()
        check_in_the_way(static.files, outputs, shown_static, "static file")
        confined = Confined(staging, what="the output")
        result.warnings += copy_files(
            static_dir, confined, shown_static, static.files, static.skipped
        )
        result.warnings += copy_files(content, confined, shown_content, resources)
        html, ids = resolved.html_for(self.prefix)
        own = rendered
        if self._workers is not None:  # they write their pages meanwhile
            self._workers.write(staging, html, ids)
            own = self._workers.own
        resolved.publish(confined, close=False)
        write_pages(own, confined, resolved.marker, html, ids)
        assert result.manifest is not None
        result.manifest.write_atomic(confined.file(MANIFEST_NAME))
        if self._workers is None:
            return 1
        self._workers.wait()
        return 2 * (len(self._workers.workers) + 1)  # removing waits on the disk


def _page_errors(
    unreadable: list[Problem], sources: list[pages_mod.PageSource]
) -> pages_mod.PageErrors | None:
    """The pages that cannot be read, or share a URL or a folder, as one error."""
    clashes = pages_mod.url_clashes(sources)
    heads = [f"{counted(len(unreadable), 'page')} cannot be read"] if unreadable else []
    if clashes:
        heads.append(f"{counted(len(clashes), 'URL')} given by more than one page")
    elif clashes := pages_mod.url_clashes(sources, folded=True):
        urls = counted(len(clashes), "URL")
        heads.append(f"{urls} that Windows and macOS would write into one folder")
    if not clashes:
        return pages_mod.PageErrors(unreadable) if unreadable else None
    return pages_mod.PageErrors(unreadable + clashes, "; ".join(heads) + "; nothing was written")


def srcset_lines(resolved: Resolved) -> list[str]:
    """One line per image with ``widths``, at its first place: what a build fetches."""
    places: dict[tuple[object, ...], list[Any]] = {}
    for sc, outcome in resolved.resolution.pairs():
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


def build_site(config: Config, options: BuildOptions | None = None, **kwargs: Any) -> BuildResult:
    return SiteBuilder(config, options, **kwargs).build()
