"""The sandbox's player while serve runs, so that a sandbox site's films play in the preview.

Pages built against the embedded sandbox embed its player at a fixed address,
``http://127.0.0.1:8766`` (``mediashortcodes sandbox``'s media host; a ``player_url`` set in
the config or the environment wins), because the build's own sandbox stops with the build.
serve answers there for as long as it runs: a sandbox whose media host listens on that port.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from ..client.service import embed_urls, require_sandbox_extra
from ..config import Config
from ..errors import ConfigError
from .rebuild import Echo

__all__ = ["sandbox_player"]


@contextmanager
def sandbox_player(config: Config, echo: Echo) -> Iterator[None]:
    """The sandbox's player on the address ``config``'s pages embed, while the block runs;
    nothing for a site of the real service or a player elsewhere than on this machine."""
    player_url = embed_urls(config)[0].rstrip("/")
    address = urlsplit(player_url)
    if (
        not config.service.sandbox
        or address.scheme != "http"
        or address.hostname not in ("127.0.0.1", "localhost")
        or not address.port
    ):
        yield
        return
    try:
        require_sandbox_extra(config)  # without Pillow, the first build says what to install
    except ConfigError:
        yield
        return
    from ..sandbox import Sandbox

    player = Sandbox(media_port=address.port)
    try:
        player.start()
    except ConfigError:  # the port is taken: by `mediashortcodes sandbox`, which answers the same
        echo(
            f"note: {address.netloc} is in use, so the films' player there is not serve's: "
            "they play if it is a `mediashortcodes sandbox`"
        )
        yield
        return
    try:
        echo(f"The films' player (the sandbox's) at {player_url}/")
        yield
    finally:
        player.stop()
