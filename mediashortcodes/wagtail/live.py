"""Resolve shortcodes while a page renders: live Django/Wagtail requests and previews.

A build knows every shortcode before it fetches anything; a live request does not, so each
shortcode is resolved when the template reaches it, through the same ``Resolver`` and
cache (a warm cache sends no request). Resolution runs on one event loop in a thread this
renderer owns, so callers stay synchronous (an async view's loop is not disturbed) and the
client keeps its token between requests. After an outage the service is left alone for a
cool-down (``wagtail/outage.py``) and the cache's copies, older ones included, answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from markupsafe import Markup

from ..client.service import embed_urls
from ..config import Config
from ..errors import OUTAGES, ConfigError, ContentError, Problem, ServiceError
from ..fileio import Confined, write_atomic
from ..language import Shortcode
from ..media.assets import publish
from ..media.cache import MediaCache, cache_for
from ..media.render import Renderer, problem_note
from ..media.resolve_step import LazyConnection
from ..media.resolver import (
    Failure,
    ImageOutcome,
    Outcome,
    Resolution,
    Resolver,
    VideoOutcome,
)
from .outage import DEFAULT_COOLDOWN, GuardedClient, OutageBreaker, OutageCooldownError

if TYPE_CHECKING:
    from ..client.async_client import AsyncClient

__all__ = ["ON_MISSING", "LiveRenderer", "Publication"]

log = logging.getLogger("mediashortcodes")

T = TypeVar("T")
Connect = Callable[[], Awaitable["AsyncClient"]]
# Opens the service lazily for as long as the renderer lives (``resolve_step.LazyConnection``).
Connector = Callable[[], contextlib.AbstractAsyncContextManager[Connect]]

ON_MISSING = ("placeholder", "fail")


@dataclass(frozen=True)
class Publication:
    """Where published image files go and the URL prefix that serves them. Every file
    goes into ``directory``, proven inside ``root`` (default: itself) each time
    (``fileio.Confined``): a link on the way is a ConfigError, one at a name is replaced."""

    directory: Path
    url_prefix: str  # ends with "/"
    root: Path | None = None

    @classmethod
    def under(cls, root: Path, url: str, media_dir: str) -> Publication:
        """``<root>/<media_dir>/`` served at ``<url>/<media_dir>/`` (e.g. MEDIA_ROOT, MEDIA_URL)."""
        sub = media_dir.strip("/")
        if not sub or ".." in sub.split("/"):
            raise ConfigError(
                f"[site] media_dir must be a folder name such as media, got {media_dir!r}"
            )
        return cls(Path(root) / sub, f"{url.rstrip('/')}/{sub}/", Path(root))

    def folder(self) -> Path:
        """``directory``, made where missing, proven inside ``root`` now (not remembered: a
        live process publishes for days)."""
        if self.root is None:
            return Confined(self.directory).root
        relative = os.path.relpath(self.directory, self.root)
        return Confined(self.root).folder(relative.replace(os.sep, "/"))


class _LoopThread:
    """An event loop running in a daemon thread; coroutines are submitted to it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="mediashortcodes-live", daemon=True
        )
        self.thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        if threading.current_thread() is self.thread:
            coroutine.close()
            raise RuntimeError("LiveRenderer cannot be called from its own resolution thread")
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


class LiveRenderer:
    """A ``ShortcodeRenderer`` that resolves each shortcode when it is rendered.

    ``on_missing="placeholder"`` (previews) shows a placeholder and logs a warning for what
    cannot be shown; ``"fail"`` (static export) raises. After an outage the service is not
    asked again for ``outage_cooldown`` seconds of ``clock``.
    """

    def __init__(
        self,
        config: Config,
        publication: Publication,
        *,
        on_missing: str = "placeholder",
        renderer: Renderer | None = None,
        cache: MediaCache | None = None,
        connector: Connector | None = None,
        outage_cooldown: float = DEFAULT_COOLDOWN,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if on_missing not in ON_MISSING:
            raise ConfigError(f"on_missing must be placeholder or fail, got {on_missing!r}")
        self.config = config
        self.publication = publication
        self.on_missing = on_missing
        self.renderer = renderer or _renderer(config)
        self.cache = cache or cache_for(config)
        self._connector = connector or (lambda: LazyConnection(config))
        self._lock = threading.Lock()
        self._loop: _LoopThread | None = None
        self._stack: contextlib.AsyncExitStack | None = None
        self._connect: Connect | None = None
        self._connect_lock: asyncio.Lock | None = None
        self._warned: set[str] = set()
        self._breaker = OutageBreaker(outage_cooldown, clock)  # close() keeps it

    def render(self, shortcode: Shortcode) -> Markup:
        """Resolve one shortcode now, publish its image, and return its HTML."""
        try:
            resolution = self.resolve([shortcode])
        except ServiceError as exc:
            if self.on_missing == "fail":
                raise
            return self._missing(shortcode, f"file {shortcode.file_id}: {exc}")
        outcome = resolution.outcomes.get(shortcode)
        if isinstance(outcome, (ImageOutcome, VideoOutcome)):
            self.publish(outcome)
        html = self.html(shortcode, outcome)
        if self.renderer.click_script_used:
            self._publish_click_script()
        return html

    def problem(self, problem: Problem) -> Markup:
        """A malformed shortcode: a visible note in preview, an error in an export."""
        if self.on_missing == "fail":
            raise ContentError([problem])
        self._warn(str(problem))
        return problem_note(problem)

    def resolve(self, shortcodes: Iterable[Shortcode]) -> Resolution:
        """Resolve shortcodes together through the cache; warnings are logged."""
        codes = list(dict.fromkeys(shortcodes))
        resolution = self._thread().run(self._resolve(codes))
        for sc, message, _code in resolution.warnings:
            self._warn("{}:{}:{}: warning: {}".format(*_where(sc), message))
        return resolution

    def html(self, shortcode: Shortcode, outcome: Outcome | None) -> Markup:
        """The HTML of a resolved shortcode; the image's src points into the publication."""
        try:
            if isinstance(outcome, ImageOutcome):
                image = outcome.resolved(self.publication.url_prefix)
                return self.renderer.image(shortcode, image)
            if isinstance(outcome, VideoOutcome):
                return self.renderer.video(shortcode, outcome.resolved(self.publication.url_prefix))
        except ValueError as exc:  # RenderError: a bad option, an unsafe mediaId
            return self._missing(shortcode, str(getattr(exc, "message", exc)))
        if isinstance(outcome, Failure):
            return self._missing(shortcode, outcome.message, outcome.cause)
        return self._missing(shortcode, "not resolved")

    def publish(self, outcome: ImageOutcome | VideoOutcome) -> None:
        """Publish the image and its srcset candidates, or a video's poster."""
        folder = self.publication.folder()
        for published in outcome.published():
            publish(self.cache, published.stored, folder / published.name)

    def call(self, work: Callable[[AsyncClient], Awaitable[T]]) -> T:
        """``work`` with the service client, on this renderer's loop: its access token and
        its outage cool-down (usage reports on publish use it)."""
        owner = object()

        async def run() -> T:
            try:
                if (error := self._breaker.blocked(owner)) is not None:
                    raise error
                client = await self._lazy_connect()
                return await work(cast("AsyncClient", GuardedClient(client, self._breaker, owner)))
            finally:
                self._breaker.release(owner)

        return self._thread().run(run())

    def _publish_click_script(self) -> None:
        name, data = self.renderer.click_script
        target = self.publication.folder() / name
        # Concurrent requests may both write it, each whole; a link there is replaced.
        if target.is_symlink() or not target.exists():
            write_atomic(target, data)

    def close(self) -> None:
        """Close the service client (and a sandbox it started), the loop and the cache."""
        with self._lock:
            loop, self._loop = self._loop, None
            stack, self._stack = self._stack, None
            self._connect = self._connect_lock = None  # both belong to the closed loop
        if loop is not None:
            if stack is not None:
                loop.run(stack.aclose())
            loop.stop()
        self.cache.close()

    def __enter__(self) -> LiveRenderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _thread(self) -> _LoopThread:
        with self._lock:
            if self._loop is None:
                self._loop = _LoopThread()
            return self._loop

    def with_service(self, work: Callable[[Connect], Awaitable[T]]) -> T:
        """Run ``work(connect)`` on this renderer's loop, where ``await connect()`` gives
        its client behind its outage breaker (the admin chooser browses through this, with
        ``self.cache``, which only this loop touches while resolving)."""

        async def run() -> T:
            owner = object()
            try:
                return await work(self._guarded_connect(owner))
            finally:
                self._breaker.release(owner)

        return self._thread().run(run())

    def _guarded_connect(self, owner: object) -> Connect:
        async def connect() -> AsyncClient:
            if (error := self._breaker.blocked(owner)) is not None:
                raise error
            client = await self._lazy_connect()
            return cast("AsyncClient", GuardedClient(client, self._breaker, owner))

        return connect

    async def _resolve(self, codes: list[Shortcode]) -> Resolution:
        owner = object()  # this resolution, for the breaker
        connect = self._guarded_connect(owner)
        try:
            return await self._resolve_with(codes, connect)
        except OUTAGES as exc:
            if self.on_missing == "fail" or isinstance(exc, OutageCooldownError):
                raise
            return await self._from_cache(codes, exc)
        finally:
            self._breaker.release(owner)

    async def _from_cache(self, codes: list[Shortcode], outage: ServiceError) -> Resolution:
        """Resolve again from the cache alone (older copies too, even when the service
        refused the credentials); ``outage`` if even that fails."""

        async def cache_only() -> AsyncClient:
            raise OutageCooldownError(outage)

        try:
            return await self._resolve_with(codes, cache_only)
        except OUTAGES:
            raise outage from None

    async def _resolve_with(
        self, codes: list[Shortcode], connect: Callable[[], Awaitable[AsyncClient]]
    ) -> Resolution:
        resolver = Resolver(self.config, self.cache, connect, jobs=self.config.build.jobs)
        try:
            return await resolver.resolve(codes)
        finally:
            for message in resolver.warn_messages:
                self._warn(message)

    async def _lazy_connect(self) -> AsyncClient:
        # Only the loop thread runs this; the asyncio lock orders requests that overlap.
        if self._connect_lock is None:
            self._connect_lock = asyncio.Lock()
        async with self._connect_lock:
            if self._connect is None:
                stack = contextlib.AsyncExitStack()
                self._connect = await stack.enter_async_context(self._connector())
                self._stack = stack
        return await self._connect()

    def _warn(self, message: str) -> None:
        """Log a warning once per renderer (a live site renders a page again and again)."""
        with self._lock:
            if message in self._warned:
                return
            self._warned.add(message)
        log.warning("%s", message)

    def _missing(
        self, shortcode: Shortcode, message: str, cause: BaseException | None = None
    ) -> Markup:
        if self.on_missing == "fail":
            if isinstance(cause, OUTAGES):  # the service's fault, not the content's: exit 3
                raise cause
            raise ContentError([Problem(*_where(shortcode), message)])
        self._warn("{}:{}:{}: {}".format(*_where(shortcode), message))
        return self.renderer.placeholder(shortcode, message)


def _where(shortcode: Shortcode) -> tuple[str, int, int]:
    loc = shortcode.location
    return loc.path, loc.line, loc.col


def _renderer(config: Config) -> Renderer:
    player_url, static_url = embed_urls(config)
    templates = config.path(config.site.templates)
    return Renderer(
        config.video,
        player_url=player_url,
        static_url=static_url,
        site_templates=templates if templates.is_dir() else None,
    )
