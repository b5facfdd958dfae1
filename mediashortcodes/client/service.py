"""Where the service is and who we are to it, for one command or one build: the
configured one with the environment's credentials, or the local sandbox."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager

from ..config import Config, Credentials, credentials_from_env, require_service_urls
from ..errors import ConfigError


@contextmanager
def open_service(config: Config) -> Iterator[tuple[Config, Credentials]]:
    """Yield ``(config with the service URLs filled in, credentials)``; contacts nothing.
    With ``[service] sandbox = true`` the sandbox runs until the ``with`` block ends."""
    if not config.service.sandbox:
        require_service_urls(config)
        yield config, credentials_from_env()
        return
    require_sandbox_extra(config)
    from ..sandbox import Sandbox

    with Sandbox() as sandbox:
        served = config.with_service(
            base_url=sandbox.base_url,
            player_url=sandbox.player_url,
            static_url=sandbox.static_url,
            download_url=sandbox.download_url,
        )
        yield served, sandbox.credentials


def require_sandbox_extra(config: Config) -> None:
    """With ``[service] sandbox = true``, refuse at once without Pillow (every image would
    fail one by one); looked up, not imported."""
    if config.service.sandbox and importlib.util.find_spec("PIL") is None:
        raise ConfigError(
            f"[service] sandbox = true in {config.source} needs the sandbox extra (Pillow is "
            "not installed): pip install 'mediashortcodes[sandbox]'"
        )


SANDBOX_MEDIA_URL = "http://127.0.0.1:8766"  # `mediashortcodes sandbox` on its default ports


def embed_urls(config: Config) -> tuple[str, str]:
    """The (player_url, static_url) of published pages: with an embedded sandbox (ports
    change every run) the standalone sandbox's fixed address, for reproducible builds.
    Either may be empty (:func:`~mediashortcodes.config.require_embed_urls` refuses it)."""
    service = config.service
    if service.sandbox:
        return service.player_url or SANDBOX_MEDIA_URL, service.static_url or SANDBOX_MEDIA_URL
    return service.player_url, service.static_url
