"""Which renderer a template's shortcodes use, and how Django's Jinja2 engines find it.

Every Jinja2 engine that lists ``MediaShortcodesExtension`` gets ``current_renderer`` as
its ``mediashortcodes_renderer_factory``, so the settings need nothing beyond the
extension. ``current_renderer`` answers the renderer bound to the render in progress (the
static export binds one that records each page's shortcodes), else the process-wide live
renderer, which resolves through the disk cache and publishes under MEDIA_ROOT.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from markupsafe import Markup

from ..language import Found, Location, ShortcodeRenderer, build, html_for
from .live import LiveRenderer
from .settings import read_settings

__all__ = [
    "current_renderer",
    "install",
    "live_renderer",
    "render_built",
    "rendering_with",
    "reset",
]

_bound: ContextVar[ShortcodeRenderer | None] = ContextVar("mediashortcodes_bound", default=None)
_live: LiveRenderer | None = None
_live_lock = threading.Lock()


def current_renderer() -> ShortcodeRenderer:
    """The renderer for the template being rendered now (the engines' factory)."""
    bound = _bound.get()
    return bound if bound is not None else live_renderer()


def render_built(
    name: str, file_id: object, format: object, options: Any, location: Location
) -> Markup:
    """A shortcode from values (Django tags, blocks, rich-text embeds) as HTML: the Jinja
    functions' path (``build``, then the current renderer), so all render the same."""
    shortcode, problems = build(name, file_id, format, options, location)
    return Markup(html_for(current_renderer(), Found(0, 0, "", shortcode, tuple(problems))))


@contextmanager
def rendering_with(renderer: ShortcodeRenderer) -> Iterator[ShortcodeRenderer]:
    """Render with ``renderer`` inside the block (this thread and context only)."""
    token = _bound.set(renderer)
    try:
        yield renderer
    finally:
        _bound.reset(token)


def live_renderer() -> LiveRenderer:
    """The live renderer, built from the settings on first use and kept for the process:
    its service client and access token serve every request."""
    global _live
    with _live_lock:
        if _live is None:
            settings = read_settings()
            _live = LiveRenderer(
                settings.config, settings.live_publication(), on_missing="placeholder"
            )
        return _live


def reset() -> None:
    """Close the live renderer; the next render builds one from the current settings."""
    global _live
    with _live_lock:
        live, _live = _live, None
    if live is not None:
        live.close()


atexit.register(reset)


def install() -> int:
    """Give every Jinja2 engine that has the extension our renderer factory; returns how
    many engines got it. An engine whose factory is already set is left alone."""
    from django.template import engines

    wired = 0
    for engine in engines.all():
        env = getattr(engine, "env", None)
        if env is None or not hasattr(env, "mediashortcodes_renderer_factory"):
            continue
        if env.mediashortcodes_renderer_factory is None:
            env.mediashortcodes_renderer_factory = current_renderer
        wired += env.mediashortcodes_renderer_factory is current_renderer
    return wired
