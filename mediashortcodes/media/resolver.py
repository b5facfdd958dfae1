"""Resolve every shortcode of a build against the cache and the service, concurrently.

Each distinct file and variant is fetched once, at most `jobs` requests at a time. One
algorithm: what the cache holds answers at once and the client is opened only for the
rest, so a warm build sends no request at all, not even for a token.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property

from ..config import Config
from ..errors import OUTAGES, CacheMissError, ConfigError, MediaShortcodesError
from ..language import Shortcode, widths_of
from ..language.model import INTEGER
from ..records import Crop, File, Format
from .assets import Assets, poster_name, published_name
from .cache import MediaCache, Stored
from .catalog import Catalog, Connect
from .encode import add_encodings
from .render import ResolvedImage, ResolvedVideo

VIDEO = "media_video"


VariantKey = tuple[int, int, Crop | None]  # file id, format id, crop


@dataclass(frozen=True)
class Published:
    """A stored file and its name under the media directory."""

    name: str
    stored: Stored


@dataclass(frozen=True)
class ImageOutcome:
    file: File
    stored: Stored
    name: str  # the published file name under the media directory
    # srcset candidates narrower than the base variant, narrowest first (each width once)
    candidates: tuple[Published, ...] = ()
    sizes: str = ""  # the sizes attribute; "" when the image has no srcset
    # (MIME type, its files as the srcset's, narrowest first) per <source>; media/encode.py
    sources: tuple[tuple[str, tuple[Published, ...]], ...] = ()
    placeholder: str = ""  # CSS: a colour, or a blurred preview's data: URI

    def published(self) -> Iterator[Published]:
        yield Published(self.name, self.stored)
        yield from self.candidates
        for _mime, files in self.sources:
            yield from files

    def resolved(self, url_prefix: str) -> ResolvedImage:
        """What the renderer needs, with URLs under ``url_prefix`` (ends with "/")."""
        srcset: tuple[tuple[str, int], ...] = ()
        if self.sizes:  # the base variant is the widest candidate
            every = (*self.candidates, Published(self.name, self.stored))
            srcset = tuple((url_prefix + p.name, p.stored.width) for p in every)
        return ResolvedImage(
            self.file,
            url_prefix + self.name,
            self.stored.width,
            self.stored.height,
            srcset=srcset,
            sizes=self.sizes,
            sources=tuple(
                (mime, tuple((url_prefix + p.name, p.stored.width) for p in files))
                for mime, files in self.sources
            ),
            placeholder=self.placeholder,
        )


@dataclass(frozen=True)
class VideoOutcome:
    file: File
    click: bool = False  # load="click" (the shortcode's, else [video] load)
    poster: Published | None = None  # click: the preview image, if the file has one

    def published(self) -> Iterator[Published]:
        if self.poster is not None:
            yield self.poster

    def resolved(self, url_prefix: str) -> ResolvedVideo:
        """What the renderer needs, with URLs under ``url_prefix`` (ends with "/")."""
        poster = None
        if self.poster is not None:
            stored = self.poster.stored
            poster = ResolvedImage(
                self.file, url_prefix + self.poster.name, stored.width, stored.height
            )
        return ResolvedVideo(self.file, url_prefix, poster)


@dataclass(frozen=True)
class Verified:
    """`check` mode: the file exists and fits the shortcode; nothing was downloaded."""

    file: File
    widths: tuple[int, ...] = ()  # srcset widths asked for


@dataclass(frozen=True)
class Failure:
    message: str
    cause: MediaShortcodesError | None = None  # an outage's fails the build with exit 3


Outcome = ImageOutcome | VideoOutcome | Verified | Failure


MISSING_ALT = "missing-alt"  # the codes of the warnings a resolution gives
GDPR = "gdpr"


@dataclass
class Resolution:
    """Each place's outcome, in order."""

    places: list[Shortcode] = field(default_factory=list)
    results: list[Outcome] = field(default_factory=list)
    # (place, message, code): code MISSING_ALT or GDPR (Problem.code of the warning)
    warnings: list[tuple[Shortcode, str, str]] = field(default_factory=list)
    downloads: int = 0
    cache_hits: int = 0
    remote_hits: int = 0  # variants the shared cache tier gave (not counted in cache_hits)
    encodes: int = 0  # AVIF and WebP files and placeholders made (media/encode.py)

    @cached_property
    def outcomes(self) -> dict[Shortcode, Outcome]:
        """Each shortcode's outcome by the shortcode (a builder reads ``results`` in order)."""
        return dict(self.pairs())

    def pairs(self) -> Iterator[tuple[Shortcode, Outcome]]:
        """Each place with its outcome, in order."""
        return zip(self.places, self.results, strict=True)


def published_files(resolution: Resolution) -> dict[str, Stored]:
    """Every file the resolved images publish, by name, each once (srcset candidates too)."""
    files: dict[str, Stored] = {}
    seen: set[int] = set()
    for outcome in resolution.results:  # one outcome object serves all places of an image
        if isinstance(outcome, (ImageOutcome, VideoOutcome)) and id(outcome) not in seen:
            seen.add(id(outcome))
            files.update((p.name, p.stored) for p in outcome.published())
    return files


def names_a_format(spec: str) -> bool:
    """True when a FORMAT token is a format's name, which needs the service's format list."""
    return isinstance(format_id_for(spec, []), str)


def format_id_for(spec: str, formats: list[Format] | None) -> int | str:
    """The format id a FORMAT token names, or an error message."""
    text = spec.strip()
    if text.lower() == "original":
        return 0
    if INTEGER.match(text.removeprefix("-")):  # ASCII digits, as the language reads ids
        return int(text)
    for fmt in formats or ():
        if fmt.name.lower() == text.lower():
            return fmt.id
    names = ", ".join(sorted(f.name for f in formats)) or "none"
    return f"unknown format {spec!r}; the service's formats are: original, {names}"


def narrower(widths: tuple[int, ...], base_width: int) -> tuple[int, ...]:
    """The requested srcset widths below the base variant's width, ascending."""
    return tuple(w for w in sorted(set(widths)) if w < base_width)


def candidate_crop(crop: Crop | None, base_width: int, base_height: int, width: int) -> Crop:
    """The format -1 parameters of a srcset candidate: the base variant's picture (the whole
    original, or the shortcode's crop) ``width`` pixels wide, never upscaled; the height
    rounds up, so the service, fitting inside w x h, binds on the width."""
    height = max(1, math.ceil(width * base_height / base_width))
    if crop is None:  # the whole original, in its own pixels
        w, h = base_width, base_height
        crop = Crop(w=w, h=h, x1=0, x2=w, y1=0, y2=h, sw=w, sh=h)
    return replace(crop, w=width, h=height)


class _Places:
    """The places grouped by meaning (all but their location): the work is done once per
    group. Grouped by text first (its hash is cached). Then each place's outcome (None while
    its variant is pending) and the variants pending, as :meth:`Resolver._decide` found."""

    def __init__(self, codes: list[Shortcode]) -> None:
        self.codes = codes
        by_text: dict[str, list[int]] = {}
        for i, sc in enumerate(codes):
            by_text.setdefault(sc.source, []).append(i)
        groups: dict[tuple[object, ...], list[int]] = {}
        for places in by_text.values():
            sc = codes[places[0]]  # all but its location
            groups.setdefault((sc.name, sc.file_id, sc.format, sc.options), []).extend(places)
        self.groups = list(groups.values())
        self.firsts = [codes[group[0]] for group in self.groups]
        self.result = Resolution(codes)
        self.results: list[Outcome | None] = [None] * len(codes)
        self.pending: list[_Need] = []
        self.done = 0  # places resolved so far (progress)


@dataclass(frozen=True)
class _Need:
    """A variant a group of places needs (with the srcset widths asked for)."""

    file: File
    format_id: int
    crop: Crop | None
    widths: tuple[int, ...]
    group: list[int] = field(default_factory=list)

    @property
    def key(self) -> VariantKey:
        return (self.file.id, self.format_id, self.crop)


@dataclass(frozen=True)
class _Candidate:
    """A srcset candidate: the width asked for and the variant that gives it."""

    width: int
    key: VariantKey


# The srcset candidates of each (base variant, widths), planned once its base is here.
Plans = dict[tuple[VariantKey, tuple[int, ...]], asyncio.Future[list[_Candidate]]]


class _Variants:
    """Each variant once per build: from the cache at once (a done future, no client), else
    downloaded in a task."""

    def __init__(self, assets: Assets, jobs: int) -> None:
        self.assets = assets
        self.tasks: dict[VariantKey, asyncio.Future[Stored]] = {}
        self.semaphore = asyncio.Semaphore(jobs)

    async def _fetch(self, file: File, format_id: int, crop: Crop | None) -> Stored:
        async with self.semaphore:
            return await self.assets.variant(file, format_id, crop)

    def want(self, file: File, format_id: int, crop: Crop | None) -> VariantKey:
        key = (file.id, format_id, crop)
        if key not in self.tasks:
            found = self.assets.cached(file, format_id, crop)
            if found is not None:
                self.tasks[key] = asyncio.get_running_loop().create_future()
                self.tasks[key].set_result(found)
            else:
                self.tasks[key] = asyncio.ensure_future(self._fetch(file, format_id, crop))
        return key

    def stored(self, key: VariantKey) -> Stored | BaseException:
        task = self.tasks[key]
        return task.exception() or task.result()

    async def after_base(self, need: _Need) -> list[_Candidate]:
        """The srcset candidates of ``need``, scaled from its base variant as it turned out."""
        await asyncio.gather(self.tasks[need.key], return_exceptions=True)
        base = self.stored(need.key)
        if isinstance(base, BaseException):
            return []
        crop = need.crop
        planned = [
            _Candidate(
                w, self.want(need.file, -1, candidate_crop(crop, base.width, base.height, w))
            )
            for w in narrower(need.widths, base.width)
        ]
        await asyncio.gather(*(self.tasks[c.key] for c in planned), return_exceptions=True)
        return planned


class Resolver:
    def __init__(
        self,
        config: Config,
        cache: MediaCache,
        connect: Connect,
        *,
        jobs: int,
        refresh: bool = False,
        offline: bool = False,
        verify_only: bool = False,
        progress: Callable[[int, int], object] | None = None,
    ) -> None:
        self.config = config
        self.jobs = max(1, jobs)
        self.verify_only = verify_only
        self.progress = progress or (lambda done, total: None)
        self.warn_messages: list[str] = []
        self.catalog = Catalog(
            cache,
            connect,
            jobs=jobs,
            refresh=refresh,
            offline=offline,
            warn=self.warn_messages.append,
        )
        self.assets = Assets(cache, connect, max_bytes=config.images.max_bytes, offline=offline)

    async def resolve(self, shortcodes: Iterable[Shortcode]) -> Resolution:
        """Every place's outcome."""
        places = _Places(list(shortcodes))
        # Side by side: cold, no extra round trip; with the service down, the retries overlap.
        files, formats = await asyncio.gather(
            self.catalog.files(sc.file_id for sc in places.firsts),
            self.catalog.formats() if self._needs_formats(places) else asyncio.sleep(0),
        )
        if formats or (formats is not None and not self.catalog.offline):
            self._check_default_format(formats)
        self._decide(places, files, formats)
        places.done = sum(o is not None and not isinstance(o, Failure) for o in places.results)
        if places.done:
            self.progress(places.done, len(places.codes))
        variants = _Variants(self.assets, self.jobs)
        plans: Plans = {}
        if not self.verify_only:
            for need in places.pending:
                variants.want(need.file, need.format_id, need.crop)
            for need in places.pending:
                if need.widths and (need.key, need.widths) not in plans:
                    plans[need.key, need.widths] = asyncio.ensure_future(variants.after_base(need))
            tasks = list(variants.tasks.values())
            await asyncio.gather(*tasks, *plans.values(), return_exceptions=True)
            await self._posters(places)
        resolution = self._finish(places, plans, variants.stored)
        if not self.verify_only:
            resolution.encodes = await add_encodings(
                resolution, self.config, self.assets.cache, self.warn_messages.append
            )
        return resolution

    def _needs_formats(self, places: _Places) -> bool:
        # With any shortcode: the default format is checked, whether one relies on it or not.
        if places.firsts and format_id_for(self.config.images.default_format, []) != 0:
            return True
        return any(
            sc.name != VIDEO and sc.crop is None and names_a_format(self._format_spec(sc))
            for sc in places.firsts
        )

    def _check_default_format(self, formats: list[Format]) -> None:
        spec = self.config.images.default_format
        if format_id_for(spec, formats) not in {0, *(f.id for f in formats)}:
            names = ", ".join(sorted(f.name for f in formats))
            raise ConfigError(
                f"{self.config.source}: [images] default_format: unknown format {spec!r}; the "
                f"service's formats are: original, {names} (or their ids)"
            )

    def _decide(
        self, places: _Places, files: dict[int, File], formats: list[Format] | None
    ) -> None:
        """Each group's outcome where the metadata decides it, else the variant it needs."""
        codes, result = places.codes, places.result
        for group, first in zip(places.groups, places.firsts, strict=True):
            file = files.get(first.file_id)
            outcome = self._check(first, file, formats)
            if file is not None and not isinstance(outcome, Failure):
                outcome = self._gdpr(group, codes, file, result) or outcome
            if isinstance(outcome, _Need):
                self._alt_text(group, codes, outcome.file, result)
                places.pending.append(replace(outcome, group=group))
            else:
                for i in group:
                    places.results[i] = outcome
        if result.warnings:  # in the order of the pages, not of the groups
            order = {id(sc): i for i, sc in enumerate(codes)}
            result.warnings.sort(key=lambda warning: order[id(warning[0])])

    def _finish(
        self,
        places: _Places,
        plans: Plans,
        stored_of: Callable[[VariantKey], Stored | BaseException],
    ) -> Resolution:
        """Every place's outcome, given each pending variant's stored file or failure."""
        codes, results, result = places.codes, places.results, places.result
        images: dict[tuple[VariantKey, tuple[int, ...]], ImageOutcome | Failure] = {}
        for need in places.pending:
            outcome: Outcome
            first = codes[need.group[0]]
            if self.verify_only:
                outcome = Verified(need.file, need.widths)
            else:
                at = (need.key, need.widths)
                image = images.get(at)
                if image is None:
                    planned = plans[at].result() if at in plans else []
                    image = images[at] = self._image(first, need, planned, stored_of)
                if isinstance(image, ImageOutcome) and need.widths:
                    sizes = first.option("sizes") or self.config.images.sizes or "100vw"
                    image = replace(image, sizes=sizes)
                outcome = image
                if not isinstance(outcome, Failure):
                    places.done += len(need.group)
                    self.progress(places.done, len(codes))
            for i in need.group:
                results[i] = outcome
        result.results = [Failure("not resolved") if o is None else o for o in results]
        result.downloads = self.assets.downloads
        result.cache_hits = self.assets.hits
        result.remote_hits = self.assets.remote_hits
        return result

    async def _posters(self, places: _Places) -> None:
        """Each click-to-load video's preview image, once per file: one the service cannot
        give is a warning (a placeholder shows), an outage a failure as for images."""
        clicks = [
            (group, video)
            for group in places.groups
            if isinstance(video := places.results[group[0]], VideoOutcome)
            and (places.codes[group[0]].option("load") or self.config.video.load) == "click"
        ]
        files = {video.file.id: video.file for _, video in clicks}
        semaphore = asyncio.Semaphore(self.jobs)

        async def poster(file: File) -> Published | Failure | None:
            async with semaphore:
                try:
                    stored = await self.assets.cached_poster(file)
                    if stored is None and not self.catalog.offline:
                        # The listing may be older than its preview URL's life: list again.
                        file = await self.catalog.fresh(file) or file
                    stored = stored or await self.assets.poster(file)
                except MediaShortcodesError as exc:
                    if isinstance(exc, OUTAGES):
                        return Failure(f"file {file.id}: its preview image: {exc}", exc)
                    self.warn_messages.append(
                        f"file {file.id} ({file.name!r}): its preview image could not be used "
                        f"({exc}); its click-to-load embed shows a plain placeholder"
                    )
                    return None
            return None if stored is None else Published(poster_name(file, stored), stored)

        posters = dict(zip(files, await asyncio.gather(*map(poster, files.values())), strict=True))
        for group, video in clicks:
            found = posters[video.file.id]
            outcome: Outcome = (
                found if isinstance(found, Failure) else replace(video, click=True, poster=found)
            )
            for i in group:
                places.results[i] = outcome

    def _image(
        self,
        sc: Shortcode,
        need: _Need,
        candidates: list[_Candidate],
        stored_of: Callable[[VariantKey], Stored | BaseException],
    ) -> ImageOutcome | Failure:
        """The published base variant and its srcset candidates, or why there is none."""
        file = need.file
        base = stored_of(need.key)
        if isinstance(base, BaseException):
            return self._failure(sc, file, base)
        published: dict[int, Published] = {}
        for candidate in candidates:
            stored = stored_of(candidate.key)
            if isinstance(stored, BaseException):
                what = f" (its {candidate.width}w srcset candidate)"
                return self._failure(sc, file, stored, what)
            # The descriptor is the width the file really has; never the base's or wider.
            if stored.width < base.width:
                name = published_name(file, -1, candidate.key[2], stored)
                published.setdefault(stored.width, Published(name, stored))
        name = published_name(file, need.format_id, need.crop, base)
        narrowest_first = tuple(published[w] for w in sorted(published))
        # srcset on (sizes set) whenever widths were asked for: the caller sets sizes.
        return ImageOutcome(file, base, name, narrowest_first)

    def _failure(self, sc: Shortcode, file: File, exc: BaseException, what: str = "") -> Failure:
        if isinstance(exc, CacheMissError) and not what:  # --offline: in the author's words
            return Failure(self._not_cached(sc, file), exc)
        if isinstance(exc, MediaShortcodesError):
            return Failure(f"file {file.id}{what}: {exc}", exc)
        raise exc

    def _widths(self, sc: Shortcode) -> tuple[int, ...]:
        """The srcset widths asked for: the shortcode's ``widths=``, else ``[images] widths``."""
        written = sc.option("widths")
        if sc.is_url:  # the URL alone: no srcset
            return ()
        return self.config.images.widths if written is None else widths_of(written)

    def _format_spec(self, sc: Shortcode) -> str:
        return sc.format if sc.format is not None else self.config.images.default_format

    def _not_cached(self, sc: Shortcode, file: File) -> str:
        """An --offline miss of a variant, named as the shortcode names it."""
        if sc.crop is not None:
            variant = "its custom crop"
        elif sc.format is None:
            variant = f"the default format {self.config.images.default_format!r}"
        else:
            variant = f"format {sc.format!r}"
        return (
            f"file {file.id} ({file.name!r}) in {variant} is not in the cache; "
            "build once without --offline"
        )

    def _check(
        self, sc: Shortcode, file: File | None, formats: list[Format] | None
    ) -> Outcome | _Need:
        if file is None:
            hint = (
                "it is not in the cache; build once without --offline"
                if self.catalog.offline
                else "it does not exist or is not visible to this integration; check the id "
                "(mediashortcodes search QUERY lists files)"
            )
            return Failure(f"file {sc.file_id}: {hint}")
        if sc.name == VIDEO:
            if not file.media_id:
                return Failure(
                    f"file {file.id} ({file.name!r}) is not a video (it has no mediaId); "
                    f"use media_image"
                )
            return VideoOutcome(file)
        if file.is_video:
            return Failure(f"file {file.id} ({file.name!r}) is a video; use media_video")
        widths = self._widths(sc)
        if sc.crop is not None:
            return _Need(file, -1, sc.crop, widths)
        spec = self._format_spec(sc)
        format_id = format_id_for(spec, formats)
        if isinstance(format_id, str) and self.catalog.offline and not formats:
            format_id = (
                f"format {spec!r} needs the service's list of formats, which "
                "is not in the cache; build once without --offline"
            )
        if isinstance(format_id, str):
            return Failure(format_id)
        if format_id != 0 and widths:
            if sc.option("widths") is None:
                return _Need(file, format_id, None, ())  # the site's default: for what it can scale
            where = "" if sc.format is not None else " ([images] default_format)"
            return Failure(
                f"widths cannot be honoured on the predefined format {spec!r}{where}: the "
                "service does not say what that format crops, so no narrower copy of it can be "
                "asked for; use FORMAT original, or a custom crop (w= h= x1= x2= y1= y2=), "
                "with widths, or leave widths out"
            )
        return _Need(file, format_id, None, widths)

    def _alt_text(
        self, group: list[int], codes: list[Shortcode], file: File, result: Resolution
    ) -> None:
        """Warn about an image with no alt text anywhere (published as alt="")."""
        if not self.config.images.warn_missing_alt:
            return
        if codes[group[0]].option("alt") is None and not file.alttext.strip():
            message = (
                f"file {file.id} ({file.name!r}) has no alt text in the service; write "
                'alt="..." in the shortcode (or alt="" if the image is decorative; '
                "[images] warn_missing_alt = false silences this warning)"
            )
            result.warnings.extend((codes[i], message, MISSING_ALT) for i in group)

    def _gdpr(
        self, group: list[int], codes: list[Shortcode], file: File, result: Resolution
    ) -> Failure | None:
        """The [images] gdpr policy: a Failure under "fail", a warning per place under "warn"."""
        policy = self.config.images.gdpr
        if policy == "ignore" or file.gdpr_status.upper() == "OK":
            return None
        message = (
            f"file {file.id} ({file.name!r}) has privacy status {file.gdpr_status or 'unknown'!r}"
            f" (not OK); check its consent in the service"
        )
        if policy == "fail":
            return Failure(message + ', or set [images] gdpr = "warn" to publish it anyway')
        result.warnings.extend((codes[i], message, GDPR) for i in group)
        return None
