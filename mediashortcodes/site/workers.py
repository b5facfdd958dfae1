"""``build --workers N``: N - 1 forked workers read, render and write runs of the pages
(docs/site-builder.md); what resolving needs comes back as values, absorbed in page order.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import os
import pickle
import sys
import threading
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import MediaShortcodesError, Problem
from ..fileio import Confined
from .files import SourceFiles
from .pages import PageSource, load_pages
from .rendering import PageRenderer, RenderedPage, RenderedRun, write_pages

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

# Below this many pages per process, forking costs more than it saves.
PAGES_PER_WORKER = 50


class WorkerError(MediaShortcodesError):
    """A worker process died or failed; nothing was written."""


def usable_cpus() -> int:
    """The CPUs this process may run on (a container's limit included)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def workers_for(requested: int | None, pages: int) -> int:
    """How many processes render ``pages`` pages (docs/site-builder.md)."""
    forkable = hasattr(os, "fork") and sys.platform != "darwin" and threading.active_count() == 1
    if pages < 2 or requested == 1 or not forkable:
        return 1
    if requested is None:
        return max(1, min(usable_cpus(), pages // PAGES_PER_WORKER))
    return max(1, min(requested, pages))


def runs_of(weights: list[int], n: int) -> list[slice]:
    """``n`` runs of consecutive items of about equal ``weights`` (a page's text)."""
    weights = [weight + 500 for weight in weights]  # + the layout's share
    total = sum(weights)
    cuts = [0]
    done = 0
    for i, weight in enumerate(weights):
        if done >= total * len(cuts) / n and len(cuts) < n and i > cuts[-1]:
            cuts.append(i)
        done += weight
    cuts.append(len(weights))
    return [slice(a, b) for a, b in itertools.pairwise(cuts)]


@dataclass
class Worker:
    process: BaseProcess
    connection: Connection
    first: str  # its run's first and last pages, for messages
    last: str
    sources: list[PageSource] = field(default_factory=list)  # the pages it renders
    table: list[int] = field(default_factory=list)  # its shortcode index -> the build's

    def receive(self) -> Any:
        """What the worker sent; its failure (an exception, or its text) raised."""
        try:
            value = self.connection.recv()
        except (EOFError, OSError):
            self.process.join(timeout=5)
            value = f"exit code {self.process.exitcode}"
        if isinstance(value, BaseException):
            raise value
        if isinstance(value, str):
            raise WorkerError(
                f"the worker process rendering {self.first} to {self.last} stopped ({value}); "
                "nothing was written. Build again with --workers 1 to build in one process"
            )
        return value


class Workers:
    """``n - 1`` forked workers, each reading a run of ``listing`` (this process the first)."""

    def __init__(self, renderer: PageRenderer, content: Path, listing: SourceFiles, n: int) -> None:
        import multiprocessing

        context = multiprocessing.get_context("fork")
        names = listing.files
        runs = runs_of([listing.sizes.get(name, 0) for name in names], n)
        for stream in (sys.stdout, sys.stderr):  # or a worker would write what is buffered again
            with contextlib.suppress(AttributeError, OSError, ValueError):
                stream.flush()
        self.workers: list[Worker] = []
        self.own_pages: list[PageSource] = []  # the pages this process renders, until then
        self._listed: list[PageSource] = []  # the same without their text (see listed)
        self.own: list[RenderedPage] = []  # the pages this process rendered (and writes)
        self._content, self._names = content, names[runs[0]]
        try:
            for run in runs[1:]:
                ours, theirs = context.Pipe()
                process = context.Process(
                    target=_work, args=(renderer, content, names[run], theirs), daemon=True
                )
                process.start()
                theirs.close()
                part = names[run]
                self.workers.append(Worker(process, ours, part[0], part[-1]))
        except BaseException:
            self.close()
            raise

    def loaded(self, unreadable: list[Problem]) -> list[PageSource]:
        """Every page, ours then the workers', drafts too, without its text (see
        :func:`listed`); the unreadable in ``unreadable``."""
        own = load_pages(self._content, self._names, unreadable)
        pages = listed(own)
        self.own_pages = [page for page in own if not page.draft]
        self._listed = [page for page in pages if not page.draft]
        for worker in self.workers:
            theirs, unread = worker.receive()
            worker.sources = [page for page in theirs if not page.draft]
            pages += theirs
            unreadable += unread
        return pages

    def render(self, renderer: PageRenderer, site: dict[str, Any]) -> RenderedRun:
        """Render every page into ``renderer``; the workers keep their pages' HTML."""
        for worker in self.workers:
            worker.connection.send(site)
        run = renderer.render_pages(self.own_pages, site)
        _without_text(run.pages, self.own_pages, self._listed)
        self.own_pages = self._listed = []
        self.own = list(run.pages)
        for worker in self.workers:
            deferred, done, theirs = worker.receive()  # as _work sends them
            worker.table, uses = renderer.deferred.absorb(deferred)
            run.pages += [RenderedPage(worker.sources[k], "", uses[j]) for k, j in done]
            run.warnings += theirs.warnings
            run.undefined += theirs.undefined
            run.refused += theirs.refused
        return run

    def write(
        self, staging: Path, html_by_index: list[str], element_ids: Mapping[int, str]
    ) -> None:
        """Ask every worker to write its pages into ``staging`` (then :meth:`wait`)."""
        for worker in self.workers:
            html = [html_by_index[i] for i in worker.table]
            ids = {k: element_ids[i] for k, i in enumerate(worker.table) if i in element_ids}
            worker.connection.send((str(staging), html, ids))

    def wait(self) -> None:
        for worker in self.workers:
            worker.receive()

    def close(self) -> None:
        """End every worker still running (after a problem, or Ctrl-C)."""
        for worker in self.workers:
            if worker.process.is_alive():
                with contextlib.suppress(OSError):
                    worker.connection.send(None)  # "nothing to write": it exits
            worker.process.join(timeout=2)
            if worker.process.is_alive():
                worker.process.terminate()
                worker.process.join()
            worker.connection.close()
        self.workers = []


def listed(pages: list[PageSource]) -> list[PageSource]:
    """``pages`` without their text, as the build process keeps them: what the site-wide
    data, messages and writing need, not what rendering needs (issue 30: memory)."""
    return [replace(page, body="") for page in pages]


def _without_text(done: list[RenderedPage], full: list[PageSource], lean: list[PageSource]) -> None:
    """Each page of ``done`` (of ``full``) with its copy in ``lean`` without its text:
    rendered, a page keeps its HTML, not both."""
    copies = {id(page): copy for page, copy in zip(full, lean, strict=True)}
    for page in done:
        page.source = copies[id(page.source)]


def _work(renderer: PageRenderer, content: Path, names: list[str], connection: Connection) -> None:
    """A worker: read ``names``, render them with the ``site`` sent, then write or stop."""
    # What it inherited is never collected here: its collections neither scan those objects
    # nor write to (and so copy) the memory it shares with the build process.
    gc.freeze()
    try:
        unread: list[Problem] = []
        pages = load_pages(content, names, unread)
        lean = listed(pages)
        connection.send((lean, unread))
        site = connection.recv()
        if site is None:  # the build stopped before rendering
            return
        sources = [page for page in pages if not page.draft]
        run = renderer.render_pages(sources, site)
        deferred = renderer.deferred
        index = {id(source): k for k, source in enumerate(sources)}
        uses = {id(used): j for j, (_page, used) in enumerate(deferred.page_uses)}
        # Each rendered page as (its index in the run, in page_uses); the rest but the HTML.
        done = [(index[id(page.source)], uses[id(page.used)]) for page in run.pages]
        connection.send((deferred, done, replace(run, pages=[])))
        _without_text(run.pages, sources, [page for page in lean if not page.draft])
        del pages, sources, index, lean
        order = connection.recv()
        if order is None:
            return
        staging, html, element_ids = order
        write_pages(run.pages, Confined(staging), deferred.marker, html, element_ids)
        connection.send(None)
    except BaseException as exc:
        with contextlib.suppress(OSError, ValueError):
            connection.send(_sendable(exc))
    finally:
        connection.close()


def _sendable(exc: BaseException) -> BaseException | str:
    """The exception when it survives pickling (keeping its exit code), else its text."""
    if isinstance(exc, MediaShortcodesError):
        try:
            copy = pickle.loads(pickle.dumps(exc))
        except Exception:
            return str(exc)
        return copy if str(copy) == str(exc) else str(exc)
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted"
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()
