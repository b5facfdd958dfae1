"""Wires a running picker from a site's config: API client, renderer, backend, server."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from ..client.sync_client import Client, sync_client_from_config
from ..config import Config, Credentials
from ..language import Shortcode, parse
from ..media.render import Renderer
from ..records import File
from .backend import EmbedRenderer, PickerBackend
from .guard import client_secrets, warn_about_short_secrets
from .selection import SelectionError
from .server import PickerServer


def video_embed_renderer(renderer: Renderer) -> EmbedRenderer:
    """The embed exactly as a build renders it: the shortcode text goes through the parser."""

    def render(shortcode_text: str, file: File) -> str:
        result = parse(shortcode_text, "<picker>")
        shortcodes = [s for s in result.segments if isinstance(s, Shortcode)]
        if result.problems or len(shortcodes) != 1:
            problems = "; ".join(str(p) for p in result.problems) or "no shortcode"
            raise SelectionError(f"{shortcode_text} does not parse: {problems}")
        return str(renderer.video(shortcodes[0], file))

    return render


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def embed_csp(config: Config) -> str:
    """The embed preview may load the player and its assets, and nothing else."""
    hosts = " ".join(
        sorted(
            {
                o
                for o in (_origin(config.service.player_url), _origin(config.service.static_url))
                if o
            }
        )
    )
    return (
        f"default-src 'none'; script-src 'unsafe-inline' {hosts}; "
        f"style-src 'unsafe-inline' {hosts}; "
        f"img-src data: {hosts}; media-src blob: {hosts}; connect-src {hosts}; font-src {hosts}; "
        f"frame-src {hosts}; frame-ancestors 'self'; base-uri 'none'; form-action 'none'"
    )


@contextmanager
def running_picker(
    config: Config,
    credentials: Credentials,
    *,
    port: int = 0,
    locale: str = "en_US",
    client: Client | None = None,
) -> Iterator[PickerServer]:
    """A started picker for the configured service; stopped (and its client closed) on exit.

    ``config`` must already name the service
    (:func:`mediashortcodes.client.service.open_service`).
    """
    own_client = client is None
    service = client if client is not None else sync_client_from_config(config, credentials)
    try:
        backend = PickerBackend(
            service, embed_renderer=video_embed_renderer(Renderer.from_config(config))
        )
        # The client knows every access token it was given; the guard checks for those too.
        secrets_source = client_secrets(service)
        warn_about_short_secrets(secrets_source())
        server = PickerServer(
            backend,
            secrets_source=secrets_source,
            port=port,
            locale=locale,
            default_embed=config.video.embed,
            embed_csp=embed_csp(config),
        )
        with server:
            yield server
    finally:
        if own_client:
            service.close()
