"""``Sandbox``: the service emulator on real sockets, started in-process.

Two threaded servers on 127.0.0.1: the API host (``base_url``, paths ``/1/...`` plus the
``/_sandbox/...`` control paths) and the media host (``download_url``, ``player_url`` and
``static_url`` are all this one). Tests and benchmarks steer it through the attributes
below; another process steers it through ``/_sandbox/control``.
"""

from __future__ import annotations

import errno
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any

from ..config import (
    ENV_BASE_URL,
    ENV_CLIENT_ID,
    ENV_CLIENT_SECRET,
    ENV_PLAYER_URL,
    ENV_REFRESH_TOKEN,
    ENV_STATIC_URL,
    Credentials,
    ServiceConfig,
)
from ..errors import ConfigError
from . import control, media, service
from .auth import DEMO_CREDENTIALS
from .faults import FailureRule
from .http import Request, Response, Server
from .imaging import pillow
from .library import Library
from .state import SandboxState


class Sandbox:
    """The Media Asset Service emulator. ``with Sandbox() as sb: ... sb.base_url ...``

    ``library`` defaults to a fresh demo library; ``seed`` drives failure injection;
    ``clock`` (unix seconds) and ``sleep`` can be replaced so tests control time.
    """

    def __init__(
        self,
        *,
        latency_ms: float = 0.0,
        token_lifetime: float = 7200,
        link_lifetime: int = 300,
        host: str = "127.0.0.1",
        port: int = 0,
        media_port: int = 0,
        library: Library | None = None,
        seed: int = 0,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.host = host
        self._ports = (port, media_port)
        self._state = SandboxState(
            library if library is not None else Library.demo(),
            latency_ms=latency_ms,
            token_lifetime=token_lifetime,
            link_lifetime=link_lifetime,
            seed=seed,
            clock=clock,
            sleep=sleep,
        )
        self._api: Server | None = None
        self._media: Server | None = None

    # Life cycle

    def start(self) -> Sandbox:
        if self._api is not None:
            return self
        pillow()  # fail here, with the install hint, rather than on the first download
        port, media_port = self._ports
        self._api = self._bind(port, self._serve_api, "--port")
        try:
            self._media = self._bind(media_port, self._serve_media, "--media-port")
        except BaseException:
            self._api.server_close()
            self._api = None
            raise
        self._state.media_url = f"http://{self.host}:{self._media.port}"
        self._api.start(f"sandbox-api-{self._api.port}")
        self._media.start(f"sandbox-media-{self._media.port}")
        return self

    def stop(self) -> None:
        for server in (self._api, self._media):
            if server is not None:
                server.stop()
        self._api = self._media = None

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def _bind(self, port: int, app: Callable[[Request], Response], option: str) -> Server:
        try:
            return Server((self.host, port), app)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise ConfigError(
                    f"port {port} on {self.host} is in use; choose another with {option}"
                ) from None
            raise ConfigError(f"cannot listen on {self.host}:{port}: {exc.strerror}") from None

    def _serve_api(self, request: Request) -> Response:
        if request.path.startswith("/_sandbox/"):
            return control.handle(self._state, request)
        return self._state.serve(service.ROUTES, request)

    def _serve_media(self, request: Request) -> Response:
        return self._state.serve(media.ROUTES, request)

    # Addresses

    @property
    def running(self) -> bool:
        return self._api is not None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self._server(self._api).port}"

    @property
    def media_url(self) -> str:
        return f"http://{self.host}:{self._server(self._media).port}"

    download_url = player_url = static_url = media_url

    def _server(self, server: Server | None) -> Server:
        if server is None:
            raise RuntimeError("the sandbox is not running: call start() or use it in a with block")
        return server

    def service_config(self) -> ServiceConfig:
        """A ``[service]`` section pointing at this sandbox (the download host allowed)."""
        return ServiceConfig(
            base_url=self.base_url,
            player_url=self.player_url,
            static_url=self.static_url,
            download_url=self.download_url,
            allow_http_downloads=True,
        )

    def env(self) -> dict[str, str]:
        """The MEDIASHORTCODES_* variables that point a build at this sandbox."""
        return {
            ENV_CLIENT_ID: DEMO_CREDENTIALS.client_id,
            ENV_CLIENT_SECRET: DEMO_CREDENTIALS.client_secret,
            ENV_REFRESH_TOKEN: DEMO_CREDENTIALS.refresh_token,
            ENV_BASE_URL: self.base_url,
            ENV_PLAYER_URL: self.player_url,
            ENV_STATIC_URL: self.static_url,
        }

    # What tests read

    @property
    def credentials(self) -> Credentials:
        return DEMO_CREDENTIALS

    @property
    def library(self) -> Library:
        return self._state.library

    @property
    def usages(self) -> list[dict[str, Any]]:
        """Every accepted usage body, in the order received."""
        return self._state.usages()

    def pages(self) -> dict[str, list[int]]:
        """Page URL -> file ids in use there now, by the accepted usage reports."""
        return self._state.pages()

    def clear_usages(self) -> None:
        self._state.clear_usages()

    @property
    def stats(self) -> dict[str, int]:
        """Requests per endpoint: token, foldertree, files, search, download_info, formats,
        usages, download, preview, player, static (and unknown)."""
        return self._state.stats()

    def reset_stats(self) -> None:
        self._state.reset_stats()

    # Knobs

    def fail(
        self,
        status: int,
        *,
        rate: float = 1.0,
        count: int | None = None,
        retry_after: float | None = None,
        path_prefix: str = "",
    ) -> None:
        """Answer matching requests with ``status`` (0: drop the connection).

        ``rate`` is drawn from the seeded RNG, ``count`` failures happen then the rule ends,
        ``retry_after`` adds that header, ``path_prefix`` limits it (``/1/``, ``/dn/``).
        """
        self._state.faults.add(FailureRule(status, rate, count, retry_after, path_prefix))

    def fault(
        self,
        kind: str,
        *,
        rate: float = 1.0,
        count: int | None = None,
        path_prefix: str = "",
        seconds: float = 1.0,
        size: int = 0,
        url: str = "",
    ) -> None:
        """Spoil matching requests the way ``kind`` says (``faults.FAULT_KINDS``).

        ``reset`` the connection; ``stall`` for ``seconds``; ``revoke_tokens`` (the
        request that fires it gets 401, as every later one with an old token); ``truncate``;
        ``bad_json``; ``wrong_type`` (HTML); ``foreign_link`` (download links on ``url``);
        ``oversize`` (``size`` bytes, no Content-Length). ``rate``, ``count`` and
        ``path_prefix`` work as for :meth:`fail`.
        """
        rule = FailureRule(
            rate=rate,
            count=count,
            path_prefix=path_prefix,
            kind=kind,
            seconds=seconds,
            size=size,
            url=url,
        )
        self._state.faults.add(rule)

    def clear_failures(self) -> None:
        self._state.faults.clear()

    def set_latency(self, ms: float) -> None:
        self._state.latency_ms = ms

    @property
    def latency_ms(self) -> float:
        return self._state.latency_ms

    @property
    def token_lifetime(self) -> float:
        return self._state.token_lifetime

    @token_lifetime.setter
    def token_lifetime(self, seconds: float) -> None:
        self._state.token_lifetime = seconds

    @property
    def link_lifetime(self) -> int:
        return self._state.link_lifetime

    @link_lifetime.setter
    def link_lifetime(self, seconds: int) -> None:
        self._state.link_lifetime = seconds

    def revoke_tokens(self) -> None:
        """Forget every access token: the next call with an old one gets 401."""
        self._state.tokens.revoke_all()

    def issued_tokens(self) -> list[str]:
        """Every access token handed out since the start, revoked and expired ones too."""
        return self._state.tokens.issued()

    def __repr__(self) -> str:
        where = self.base_url if self.running else "stopped"
        return f"<Sandbox {where} files={len(self.library)}>"
