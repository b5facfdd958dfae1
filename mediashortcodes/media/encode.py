"""AVIF and WebP encodings and placeholders of the published images (Pillow: extra "images").

Made from the verified bytes of each published variant, in separate processes, only for
what the cache lacks; each is kept like a variant, keyed by everything that changes it, so
a warm build encodes nothing. The choices: docs/shortcodes.md, "Modern formats".
"""

from __future__ import annotations

import asyncio
import base64
import importlib
import io
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from ..config import Config
from ..errors import ConfigError
from ..language.model import ENCODINGS
from ..language.validation import formats_of
from . import imageinfo
from .cache import MediaCache, Stored

# The resolver's (which imports this module): ImageOutcome, Published and Resolution.
ImageOutcome = Published = Resolution = Any

INSTALL = 'pip install "mediashortcodes[images]"'
MAX_PREVIEW = 2048  # bytes of a blur placeholder's data: URI
_VERSION = {"webp": "webpdecoder_version", "avif": "libavif_version"}  # PIL.features' names


@lru_cache(maxsize=8)
def codecs(formats: tuple[str, ...]) -> str:
    """Pillow's and each codec's version, for cache keys; ConfigError naming what to install."""
    try:
        import PIL
    except ImportError:
        raise ConfigError(
            f"image formats ({', '.join(formats)}) and placeholders are made with Pillow, "
            f"which is not installed: {INSTALL}"
        ) from None
    found: list[str] = []
    missing: list[str] = []
    for name in formats:  # what PIL.features reads, without the PIL.Image it imports (3x)
        try:
            found.append(
                f"{name} {getattr(importlib.import_module(f'PIL._{name}'), _VERSION[name])}"
            )
        except (ImportError, AttributeError):
            missing.append(name)
    if missing:
        raise ConfigError(
            f"this Pillow ({PIL.__version__}) cannot encode {', '.join(missing)}: install "
            f'Pillow 11.3 or later from its wheels ({INSTALL} "Pillow>=11.3")'
        )
    return " ".join([f"Pillow {PIL.__version__}", *found])


def work(data: bytes, kind: str, quality: int) -> bytes | str | None:
    """In a worker process: ``data`` as ``kind`` ("avif", "webp": bytes; "color", "blur": a
    placeholder's CSS value), or None for an animated image."""
    from PIL import Image, ImageFilter, ImageOps

    with Image.open(io.BytesIO(data)) as opened:
        if kind in ENCODINGS and getattr(opened, "n_frames", 1) > 1:
            return None  # a placeholder is made from the first frame
        icc = opened.info.get("icc_profile")
        image = ImageOps.exif_transpose(opened)  # upright, as browsers show the original
    alpha = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
    image = image.convert("RGBA" if alpha and kind in ENCODINGS else "RGB")
    image.info = {}  # nothing of the original's metadata (EXIF, XMP: GPS) is copied
    out = io.BytesIO()
    if kind == "color":
        red, green, blue = image.resize((1, 1), Image.Resampling.BOX).getpixel((0, 0))
        return f"#{red:02x}{green:02x}{blue:02x}"
    if kind == "blur":
        for side in (24, 16, 8):
            image.thumbnail((side, side))
            image.filter(ImageFilter.GaussianBlur(1)).save(out, "WEBP", quality=40)
            uri = "data:image/webp;base64," + base64.b64encode(out.getvalue()).decode()
            if len(uri) <= MAX_PREVIEW:
                return uri
            out = io.BytesIO()
        return None
    image.save(out, kind.upper(), quality=quality, icc_profile=icc)
    return out.getvalue()


@dataclass(frozen=True)
class _Job:
    key: str
    source: Stored
    kind: str
    quality: int


@dataclass
class _Plan:
    """What each image asks for, the jobs the cache cannot answer, and what it answered."""

    cache: MediaCache
    config: Config
    jobs: dict[str, _Job]
    found: dict[str, Stored | str | None]

    def want(self, source: Stored, kind: str) -> str:
        quality = getattr(self.config.images, f"{kind}_quality", 0)
        codec = codecs((kind,) if kind in ENCODINGS else ("webp",))
        key = f"{source.sha256}:{kind}:{source.width}:{quality}:{codec}"
        if key not in self.found and key not in self.jobs:
            hit: Stored | str | None = None
            if kind in ENCODINGS:
                hit = self.cache.get_variant(f"encoding:{key}")
            # A placeholder, or "animated": an image that is never encoded.
            hit = hit or self.cache.get_preview(f"preview:{key}")
            if hit is None:
                self.jobs[key] = _Job(key, source, kind, quality)
            else:
                self.found[key] = hit
        return key


async def add_encodings(
    resolution: Resolution, config: Config, cache: MediaCache, warn: Callable[[str], object]
) -> int:
    """Give each image the encodings and placeholder it asks for; the encodings made. One
    that fails is a warning (``warn``), and that format or placeholder is left out."""
    plan = _Plan(cache, config, {}, {})
    wanted: dict[tuple[int, tuple[str, ...], str], list[int]] = {}
    for i, (sc, outcome) in enumerate(resolution.pairs()):
        if sc.is_image and hasattr(outcome, "sources"):
            written = sc.option("formats")
            formats = config.images.formats if written is None else formats_of(written)
            placeholder = sc.option("placeholder") or config.images.placeholder
            if formats or placeholder != "none":
                try:
                    codecs(formats or ("webp",))
                except ConfigError as exc:
                    raise ConfigError(f"{sc.location}: {exc}") from None
                wanted.setdefault((id(outcome), formats, placeholder), []).append(i)
    keys: dict[tuple[int, tuple[str, ...], str], list[list[Any]]] = {}
    for at, places in wanted.items():
        outcome: ImageOutcome = resolution.results[places[0]]  # type: ignore[assignment]
        every = _every(outcome)
        keys[at] = [
            [plan.want(p.stored, kind) if p.stored.ext != kind else p for p in every]
            for kind in at[1]
        ]
        if at[2] != "none":  # from the narrowest: the least to decode
            keys[at].append([plan.want(every[0].stored, at[2])])
    await _run(plan, warn)
    images: dict[tuple[int, tuple[str, ...], str], ImageOutcome] = {}
    for at, places in wanted.items():
        outcome = resolution.results[places[0]]  # type: ignore[assignment]
        images[at] = _with(outcome, at, keys[at], plan)
        for i in places:
            resolution.results[i] = images[at]
    return len(plan.jobs)


def _every(outcome: ImageOutcome) -> list[Published]:
    """The image's published files, narrowest first: its srcset's (or its one file)."""
    return [*outcome.candidates, next(outcome.published())]


def _with(
    outcome: ImageOutcome, at: tuple[Any, ...], keys: list[list[Any]], plan: _Plan
) -> ImageOutcome:
    every = _every(outcome)
    sources = []
    for kind, row in zip(at[1], keys, strict=False):
        files = []
        for original, key in zip(every, row, strict=True):
            if isinstance(key, str):  # an encoding; else the service's file in that format
                encoded = plan.found.get(key)
                if not isinstance(encoded, Stored) or encoded.size >= original.stored.size:
                    break  # animated, or no smaller: this format is left out
                stem = original.name.rsplit("-", 1)[0]
                name = f"{stem}-{encoded.sha256[:10]}.{encoded.ext}"
                key = replace(original, name=name, stored=encoded)
            files.append(key)
        else:
            sources.append((ENCODINGS[kind], tuple(files)))
    placeholder = ""
    if at[2] != "none":
        found = plan.found.get(keys[-1][0])
        placeholder = found if isinstance(found, str) else ""
    return replace(outcome, sources=tuple(sources), placeholder=placeholder)


async def _run(plan: _Plan, warn: Callable[[str], object]) -> None:
    """The jobs, on every core in separate processes; the bytes of those running and next
    only in memory."""
    if not plan.jobs:
        return
    import multiprocessing  # here: a build with nothing to encode starts faster without it
    from concurrent.futures import ProcessPoolExecutor

    loop = asyncio.get_running_loop()
    jobs = list(plan.jobs.values())
    workers = min(os.cpu_count() or 1, len(jobs))
    gate = asyncio.Semaphore(2 * workers)
    # Spawned: no lock of this process's threads is copied, and their CPU is its children's.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:

        async def one(job: _Job) -> bytes | str | None:
            async with gate:
                data = plan.cache.blob_bytes(job.source)
                if data is None:
                    raise ValueError("its cached file is gone or damaged")
                return await loop.run_in_executor(pool, work, data, job.kind, job.quality)

        done = await asyncio.gather(*map(one, jobs), return_exceptions=True)
    for job, result in zip(jobs, done, strict=True):
        if isinstance(result, BaseException):
            what = f"{job.source.width} pixels wide, sha256 {job.source.sha256[:10]}"
            warn(f"an image ({what}): its {job.kind} could not be made ({result}); left out")
        else:
            plan.found[job.key] = _kept(plan.cache, job, result)


def _kept(cache: MediaCache, job: _Job, result: bytes | str | None) -> Stored | str | None:
    if isinstance(result, bytes):
        info = imageinfo.probe(result)  # what was made is checked as a download is
        return cache.put_variant(
            f"encoding:{job.key}", result, ext=info.extension, width=info.width, height=info.height
        )
    if isinstance(result, str) or job.kind in ENCODINGS:  # None: animated, kept as such
        result = result or "animated"
        cache.put_preview(f"preview:{job.key}", result)
    return result
