"""Tell the service which files each page uses, and which it no longer uses: the build's
manifest diffed against the state (or the live site's manifest), pages sent concurrently;
additions are recorded as *pending* before they are sent, so a crash loses nothing."""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import httpx

from ..client.redact import redact_url
from ..client.runner import run_returning
from ..config import Config, require_site_base_url
from ..errors import AuthenticationError, ConfigError, ServiceError, ServiceUnreachableError
from ..records import Usage, WebPage
from .manifest import MANIFEST_NAME, Manifest, PageChange, PageUsage, diff
from .state import UsageState, state_of

__all__ = [
    "PageFailure",
    "PreviousMissing",
    "ReportResult",
    "UsageRequest",
    "load_previous",
    "page_usages",
    "report_site",
    "report_usage",
    "usage_warnings",
]

USAGES_PATH = "/1/files/multiple/usages"


class PreviousMissing(ConfigError):
    """The ``--previous`` manifest is not there: the live site has none (yet)."""

    def __init__(self, what: str) -> None:
        super().__init__(
            f"{what}; on the first deploy, when the live site has none yet, pass "
            "--previous-missing ok (the report then diffs against the usage state, as "
            "without --previous)"
        )
        self.what = what


class UsageClient(Protocol):
    """The one API call reporting needs (``AsyncClient`` has it)."""

    async def report_usage(self, usage: Usage, *, removed_as_bool: bool = False) -> None: ...


@dataclass(frozen=True)
class UsageRequest:
    """One usage report: the page, whether it removes, and the exact JSON body."""

    url: str
    removed: bool
    ids: tuple[int, ...]
    body: dict[str, Any]


@dataclass(frozen=True)
class PageFailure:
    url: str
    error: str


@dataclass(frozen=True)
class ReportResult:
    """``requests``: those the service accepted, or with ``dry_run`` those it would get."""

    requests: tuple[UsageRequest, ...] = ()
    failed: tuple[PageFailure, ...] = ()
    unchanged: int = 0
    dry_run: bool = False
    disabled: bool = False
    warnings: tuple[str, ...] = ()

    @property
    def pages_reported(self) -> int:
        failed = {f.url for f in self.failed}
        return len({r.url for r in self.requests} - failed)

    def summary(self) -> str:
        """One line such as ``3 pages reported (2 additions, 1 removal), 5 unchanged``."""
        if self.disabled:
            return "usage reporting is disabled ([usage] enabled = false); nothing was sent"
        additions = sum(not r.removed for r in self.requests)
        removals = len(self.requests) - additions
        counts = f"{_plural(additions, 'addition')}, {_plural(removals, 'removal')}"
        if self.dry_run:
            pages = len({r.url for r in self.requests})
            return (
                f"dry run: {_plural(pages, 'page')} would be reported ({counts}), "
                f"{self.unchanged} unchanged; nothing was sent"
            )
        pages = _plural(self.pages_reported, "page")
        line = f"{pages} reported ({counts}), {self.unchanged} unchanged"
        if self.failed:
            line += f", {_plural(len(self.failed), 'page')} failed"
        return line


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def usage_warnings(config: Config) -> list[str]:
    """Settings a report can go without but the service's usage list will miss."""
    if not config.usage.enabled:
        return []
    return [
        f"[usage] {key} is empty in {config.source}; the service will show no {key} "
        "for these usages"
        for key in ("contact", "project")
        if not getattr(config.usage, key).strip()
    ]


def page_usages(config: Config, change: PageChange, date: str) -> list[Usage]:
    """A page's usages to send: its additions, then its removals."""
    s = config.usage
    web = WebPage(page=change.url, page_name=change.title or change.url)
    return [
        Usage(
            ids=ids,
            web=web,
            contact=s.contact,
            date=date,
            amount=s.amount,
            description=s.description,
            project=s.project,
            removed=removed,
        )
        for ids, removed in ((change.added, False), (change.removed, True))
        if ids
    ]


def _request(usage: Usage, removed_as_bool: bool) -> UsageRequest:
    body = usage.to_api(removed_as_bool=removed_as_bool)
    return UsageRequest(usage.web.page, usage.removed, usage.ids, body)


def _sending(known: PageUsage | None, change: PageChange) -> PageUsage:
    """The page as recorded before its additions are sent: pending until accepted."""
    added = set(change.added)
    if known is None:
        return PageUsage(change.title, (), tuple(sorted(added)))
    files = tuple(sorted(set(known.files) - added))
    return PageUsage(known.title, files, tuple(sorted(added.union(known.pending))))


class _StateWriter:
    """Group commit: each page's update is on disk (in the state's journal) before its
    coroutine goes on, and updates that arrive while a write is running share the next."""

    def __init__(self, state: UsageState) -> None:
        self._state = state
        self._pending: dict[str, PageUsage | None] = {}
        self._lock = asyncio.Lock()

    async def set(self, pages: dict[str, PageUsage | None]) -> None:
        self._pending.update(pages)
        async with self._lock:
            if not self._pending:
                return  # another coroutine's write already carried these pages
            batch, self._pending = self._pending, {}
            try:
                await asyncio.to_thread(self._state.record, batch)
            except BaseException:
                self._pending = {**batch, **self._pending}
                raise


async def report_usage(
    config: Config,
    manifest: Manifest,
    *,
    client: UsageClient | None,
    state_path: str | Path | None = None,
    previous: str | Path | Manifest | None = None,
    dry_run: bool = False,
    send_all: bool = False,
    jobs: int | None = None,
    today: dt.date | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ReportResult:
    """Report what changed since the last accepted report (docs/usage-reporting.md).

    ``previous`` (a manifest, or its file or URL) replaces the state as the diff's base;
    ``client`` may be None for a dry run and when there is nothing to send.
    """
    if not config.usage.enabled:
        return ReportResult(disabled=True)
    jobs = config.build.jobs if jobs is None else jobs  # pages (one or two requests each)
    if jobs < 1:
        raise ConfigError(f"jobs must be at least 1, got {jobs}")
    state = UsageState(state_path) if state_path else state_of(config)
    service = config.service.identity
    warnings: list[str] = []
    if config.service.sandbox:
        warnings.append(
            "[service] sandbox = true: this report goes to the built-in sandbox, which lives "
            "only as long as this command; no real service hears of it"
        )
    if previous and not isinstance(previous, Manifest):
        previous = await load_previous(previous, **_previous_limits(config))
    if isinstance(previous, Manifest):
        base = previous
        check_same_site(base, manifest)
    else:
        base = state.load(manifest.site)
        if service and base.service and base.service != service:
            warnings.append(
                f"{state.path} follows the usage reported to {base.service}; this report goes "
                f"to {service}: every page is sent to it as new, and the state starts over "
                f"(what {base.service} was told is no longer followed)"
            )
            base = Manifest(manifest.site)
    changes = diff(base, manifest, send_all=send_all)
    changed = {change.url for change in changes}
    unchanged = sum(url not in changed for url in manifest.pages)
    date = (today or dt.date.today()).isoformat()
    plan = [(change, page_usages(config, change, date)) for change in changes]
    as_bool = config.usage.removed_as_bool
    done = {"unchanged": unchanged, "warnings": tuple(warnings)}
    if dry_run:
        requests = tuple(_request(u, as_bool) for _, usages in plan for u in usages)
        return ReportResult(requests=requests, dry_run=True, **done)
    if client is None and plan:
        raise TypeError("report_usage needs a client when there is something to send")

    # Unchanged pages are recorded too: a run against --previous leaves a whole state.
    start = {url: page for url, page in manifest.pages.items() if url not in changed}
    sending = {c.url: _sending(base.pages.get(c.url), c) for c in changes if c.added}
    update = functools.partial(asyncio.to_thread, state.update, site=manifest.site)
    await update({**start, **sending}, service=service)
    if client is None:
        return ReportResult(**done)
    run = _Run(client, _StateWriter(state), {**base.pages, **sending}, as_bool, progress, len(plan))
    await _gather_bounded([lambda item=item: run.page(*item) for item in plan], jobs)
    await update({})  # the pages recorded in the journal, folded into the state file
    if run.fatal is not None:
        raise run.fatal
    return ReportResult(requests=tuple(run.accepted), failed=tuple(run.failed), **done)


@dataclass
class _Run:
    client: UsageClient
    writer: _StateWriter
    recorded: Mapping[str, PageUsage]  # each page as the state has it when the run starts
    removed_as_bool: bool
    progress: Callable[[int, int], None] | None
    pages: int
    accepted: list[UsageRequest] = field(default_factory=list)
    failed: list[PageFailure] = field(default_factory=list)
    fatal: ServiceError | None = None
    finished: int = 0

    async def page(self, change: PageChange, usages: list[Usage]) -> None:
        await self._send(change, usages)
        self.finished += 1
        if self.progress is not None:
            self.progress(self.finished, self.pages)

    async def _send(self, change: PageChange, usages: list[Usage]) -> None:
        known = self.recorded.get(change.url)
        files = set(known.files) if known else set()
        pending = set(known.pending) if known else set()
        # The state keeps the old title until the additions carrying the new one are accepted.
        title = known.title if known else change.title
        errors = []
        for usage in usages:
            if self.fatal is not None:
                return
            try:
                await self.client.report_usage(usage, removed_as_bool=self.removed_as_bool)
            except ServiceError as exc:
                if isinstance(exc, AuthenticationError) or (
                    isinstance(exc, ServiceUnreachableError) and not self.accepted
                ):
                    self.fatal = self.fatal or exc
                    return
                errors.append(str(exc))
                continue
            self.accepted.append(_request(usage, self.removed_as_bool))
            pending -= set(usage.ids)
            if usage.removed:
                files -= set(usage.ids)
            else:
                files |= set(usage.ids)
                title = change.title
            page = PageUsage(title, tuple(sorted(files)), tuple(sorted(pending)))
            await self.writer.set({change.url: page})
        if errors:
            self.failed.append(PageFailure(change.url, "; ".join(dict.fromkeys(errors))))


async def _gather_bounded(work: Sequence[Callable[[], Awaitable[None]]], jobs: int) -> None:
    """Run at most ``jobs`` at a time; the first unexpected error cancels the rest."""
    queue = iter(work)

    async def worker() -> None:
        for item in queue:
            await item()

    tasks = [asyncio.ensure_future(worker()) for _ in range(min(jobs, len(work)))]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def check_same_site(previous: Manifest, manifest: Manifest) -> None:
    """Refuse a ``--previous`` of another site: the diff would remove all its usages."""
    if previous.site.rstrip("/") != manifest.site.rstrip("/"):
        raise ConfigError(
            f"--previous is the usage manifest of {previous.site or 'a site without base_url'}, "
            f"but this site is {manifest.site or 'without base_url'} ([site] base_url): "
            "reporting against it would remove that site's usages; pass the "
            f"{MANIFEST_NAME} published with this site"
        )


async def load_previous(
    source: str | Path,
    *,
    timeout: float = 30.0,
    deadline: float = 120.0,
    transport: httpx.AsyncBaseTransport | None = None,
) -> Manifest:
    """The live site's manifest from a file or URL (``timeout`` per read, ``deadline`` for
    the whole). Not there: :class:`PreviousMissing`; unreachable, too slow or 5xx:
    :class:`ServiceUnreachableError`; else a ConfigError."""
    text = str(source)
    if not text.startswith(("http://", "https://")):
        path = Path(text)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise PreviousMissing(f"--previous {path}: no such file") from None
        except OSError as exc:
            raise ConfigError(
                f"--previous {path}: cannot read it ({exc.strerror}); pass the path or the "
                f"URL of the {MANIFEST_NAME} published with the live site"
            ) from None
        return Manifest.from_json(data, source=f"--previous {path}")
    from ..client.async_client import read_capped
    from ..client.base import MAX_ANSWER_BYTES

    shown = redact_url(text)
    try:
        # A whole deadline, and at most MAX_ANSWER_BYTES read (decoded), as the client's own
        # answers: a server sending a byte at a time, or gigabytes, stops here.
        async with (
            asyncio.timeout(deadline),
            httpx.AsyncClient(transport=transport, follow_redirects=True, timeout=timeout) as http,
            http.stream("GET", text) as response,
        ):
            _check_previous_status(response.status_code, shown)
            too_large = ConfigError(
                f"--previous {shown}: larger than {MAX_ANSWER_BYTES // (1024 * 1024)} MiB; "
                f"is it the site's {MANIFEST_NAME}?"
            )
            data = await read_capped(response, MAX_ANSWER_BYTES, too_large)
    except TimeoutError:
        raise ServiceUnreachableError(
            f"--previous {shown}: the manifest did not arrive within {deadline:g} s ([service] "
            "download_timeout); try again when the live site is up, or pass a local copy"
        ) from None
    except httpx.InvalidURL as exc:
        raise ConfigError(
            f"--previous {shown}: cannot fetch it ({type(exc).__name__}); check the URL, "
            "or pass a local copy of the live site's manifest"
        ) from None
    except httpx.HTTPError as exc:
        raise ServiceUnreachableError(
            f"--previous {shown}: cannot fetch it ({type(exc).__name__}); check the URL and "
            "that the live site is up, or pass a local copy of its manifest"
        ) from None
    return Manifest.from_json(data, source=f"--previous {shown}")


def _previous_limits(config: Config) -> dict[str, float]:
    return {"timeout": config.service.timeout, "deadline": config.service.download_timeout}


def _check_previous_status(status: int, shown: str) -> None:
    if status in (404, 410):
        raise PreviousMissing(
            f"--previous {shown}: the server answered {status}: the site has no "
            f"{MANIFEST_NAME} at that address"
        )
    if status >= 500:
        raise ServiceUnreachableError(
            f"--previous {shown}: the server answered {status}; try again when the live site is up",
            status=status,
        )
    if status != 200:
        raise ConfigError(
            f"--previous {shown}: the server answered {status}; "
            f"is the site's {MANIFEST_NAME} published at that address?"
        )


def _built_manifest(config: Config, output: Path) -> Manifest:
    path = output / MANIFEST_NAME
    manifest = Manifest.load(path)
    if manifest.site.rstrip("/") != config.site.base_url.rstrip("/"):
        built = manifest.site or "no base_url"
        raise ConfigError(
            f"{path} was built for {built}, but [site] base_url is now "
            f"{config.site.base_url}: run `mediashortcodes build` first, so the report "
            "names the pages by their new addresses (a build with --base-url, a deploy "
            "preview, is reported only by its own `build --report`)"
        )
    return manifest


def report_site(
    config: Config,
    *,
    manifest: Manifest | None = None,
    output: Path | None = None,
    previous: str | Path | Manifest | None = None,
    dry_run: bool = False,
    progress: Callable[[int, int], None] | None = None,
    previous_missing: str = "fail",
    **options: Any,
) -> ReportResult:
    """Report for the CLI and ``build --report``: the manifest in ``output`` unless given
    (one for another base_url is refused); ``previous_missing="ok"`` falls back to the
    state; ``options`` (``state_path``, ``send_all``, ``jobs``, ``today``) go to
    :func:`report_usage`. The service is opened only when there is something to send (no
    credentials needed otherwise)."""
    if not config.usage.enabled:
        return ReportResult(disabled=True)
    require_site_base_url(config)
    if manifest is None:
        manifest = _built_manifest(config, output or config.output_dir)
    notes: tuple[str, ...] = ()
    if previous is not None:
        try:
            previous = run_returning(load_previous(previous, **_previous_limits(config)))
        except PreviousMissing as exc:
            if previous_missing != "ok":
                raise
            previous = None  # a first deploy
            notes = (f"{exc.what}; --previous-missing ok: reporting against the usage state",)
    options["previous"] = previous
    result = run_returning(report_usage(config, manifest, client=None, dry_run=True, **options))
    if not dry_run and result.requests:
        from ..client.service import open_service

        with open_service(config) as (served, credentials):
            result = run_returning(_sent(served, credentials, manifest, progress, options))
    elif not dry_run:  # nothing to send: the state is brought along, no service opened
        result = run_returning(report_usage(config, manifest, client=None, **options))
    return replace(result, warnings=notes + result.warnings)


async def _sent(
    config: Config, credentials: Any, manifest: Manifest, progress: Any, options: dict[str, Any]
) -> ReportResult:
    from ..client.async_client import client_from_config

    async with client_from_config(config, credentials) as client:
        return await report_usage(config, manifest, client=client, progress=progress, **options)
