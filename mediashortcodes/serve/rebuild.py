"""One rebuild of the served site: the pages an edit changed, or the whole site.

Every rebuild goes through the normal builder, with page URLs under the local address. A
failed build leaves the last good pages served and shows its problems in the terminal and
over the page. When the service cannot be used, builds go on from the cache for a while,
with a visible placeholder for what it does not hold.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..config import Config
from ..errors import OUTAGES, ConfigError, MediaShortcodesError, Problem
from ..site.builder import BuildOptions, BuildResult, SiteBuilder
from ..site.pages import PageSource, load_page
from .channel import LiveChannel

__all__ = ["Rebuilder", "served_config"]

Echo = Callable[[str], Any]

OUTAGE_COOLDOWN = 30.0  # seconds of building from the cache alone after the service failed


def served_config(config: Config, origin: str) -> Config:
    """The site as serve builds it: page URLs under the local address (``[site] base_url``
    overridden), and the service asked briefly (one retry), so that an outage turns into
    placeholders within seconds rather than a minute of retries."""
    service = config.service
    return replace(
        config,
        site=replace(config.site, base_url=origin + "/"),
        service=replace(
            service,
            max_retries=min(service.max_retries, 1),
            retry_total_seconds=min(service.retry_total_seconds, 5.0),
            timeout=min(service.timeout, 10.0),
        ),
    )


def problem_list(exc: MediaShortcodesError) -> tuple[dict[str, Any], ...]:
    problems: list[Problem] = list(getattr(exc, "problems", ()) or exc.content_problems)
    return tuple(
        {"path": p.path, "line": p.line, "col": p.col, "message": p.message} for p in problems
    )


class Rebuilder:
    """Builds the served site and tells the channel how it went; never raises a build's
    problem (serving goes on), only Ctrl-C.

    An edit that changed only the bodies of pages (their front matter as it was, so every
    other page as it was) renders just those pages again, into the served output in place
    (:meth:`SiteBuilder.update_pages`); anything else builds the whole site. The paths
    changed since the last good build are kept: a page that failed is tried again with the
    next edit, so the overlay stays until every problem is fixed.
    """

    def __init__(
        self,
        config: Config,
        output: Path,
        channel: LiveChannel,
        echo: Echo,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.output = output
        self.channel = channel
        self.echo = echo
        self.clock = clock
        self.offline_until = 0.0
        self.warned: set[str] = set()  # the warnings shown, not shown again
        self.listing: list[PageSource] | None = None  # every page, as the last good build saw it
        self.unbuilt: set[Path] = set()  # changed since the last good build

    def rebuild(self, changed: Iterable[Path] = ()) -> BuildResult | None:
        """Build after ``changed`` (nothing: the whole site); ``None`` when it failed."""
        self.unbuilt.update(changed)
        listing, pages = self.listing, self._edited_pages()
        started = time.perf_counter()
        result = self._attempt(
            (lambda builder: builder.update_pages(listing, pages))
            if listing is not None and pages
            else (lambda builder: builder.build())
        )
        if result is None:
            return None
        self.unbuilt.clear()
        if pages and listing is not None:
            edited = {page.path: page for page in pages}
            self.listing = [edited.get(page.path, page) for page in listing]
        else:
            self.listing = result.sources
        self._echo_new_warnings([w.as_warning() for w in result.warnings], whole_site=not pages)
        for problem in result.problems:
            self.echo(f"{problem} (placeholder rendered)")
        self.channel.built()
        what = "updated" if pages else "built"
        summary = result.summary().rsplit(" in ", 1)[0]
        self.echo(f"{what} {summary} in {time.perf_counter() - started:.2f}s")
        return result

    def _edited_pages(self) -> list[PageSource]:
        """The pages to render again when every change since the last good build is a page
        whose body alone changed; empty when the whole site must be built."""
        if self.listing is None or not self.unbuilt:
            return []
        content = self.config.path(self.config.site.content)
        listed = {page.path: page for page in self.listing}
        edited = []
        for path in self.unbuilt:
            old = listed.get(path)
            if old is None or path.suffix != ".md":
                return []
            try:
                new = load_page(path, content)
            except ConfigError:  # unreadable now: the whole build lists it
                return []
            if (new.front_matter, new.url_path) != (old.front_matter, old.url_path):
                return []
            edited.append(new)
        return edited

    def _attempt(self, run: Callable[[SiteBuilder], BuildResult]) -> BuildResult | None:
        offline = self.clock() < self.offline_until
        try:
            try:
                return run(self._builder(offline=offline))
            except OUTAGES as exc:
                self.offline_until = self.clock() + OUTAGE_COOLDOWN
                self.echo(
                    f"the service cannot be used ({exc}); for {OUTAGE_COOLDOWN:g} s pages are "
                    "built from the cache, with a placeholder for what it does not hold"
                )
                return run(self._builder(offline=True))
        except MediaShortcodesError as exc:
            self.show_failure(exc, str(exc))
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as exc:  # a bug must not end the author's session: shown, served on
            self.show_failure(None, f"the build crashed: {exc!r}")
        return None

    def _builder(self, *, offline: bool) -> SiteBuilder:
        keep_going = offline or self.config.build.on_missing == "placeholder"
        options = BuildOptions(output=self.output, offline=offline, keep_going=keep_going)
        return SiteBuilder(self.config, options)

    def show_failure(self, exc: MediaShortcodesError | None, message: str) -> None:
        """In the terminal and over the open pages; the last good pages stay served."""
        problems = problem_list(exc) if exc is not None else ()
        if exc is not None and exc.content_problems:
            message += "\n" + "\n".join(str(p) for p in exc.content_problems)
        self.echo(f"error: {message}")
        self.echo("the last good pages are still served")
        headline = message.splitlines()[0] if problems else message
        self.channel.failed(headline, problems)

    def _echo_new_warnings(self, warnings: list[str], *, whole_site: bool) -> None:
        """Each warning once while it lasts, not again on every rebuild."""
        for warning in warnings:
            if warning not in self.warned:
                self.echo(warning)
        self.warned = set(warnings) if whole_site else self.warned | set(warnings)
