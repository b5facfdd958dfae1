"""Routing and protection of the picker's local HTTP interface (no sockets here).

Other pages in the same browser can reach 127.0.0.1 too, so every request must show that
it comes from the page this run printed: the Host header must name this server (DNS
rebinding), the first load trades the per-run token in the URL for an HttpOnly cookie, and
cross-site fetches are refused. Every response then passes the SecretGuard.
"""

from __future__ import annotations

import hmac
import html
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib.resources import files as package_files
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ..errors import MediaShortcodesError, NotFoundError, ServiceError
from ..media.render import RenderError
from .backend import PREVIEW_SIZES, PickerBackend
from .guard import SecretGuard
from .i18n import html_lang, messages
from .selection import EMBEDS, SelectionError

log = logging.getLogger("mediashortcodes.picker")

STATIC = {"picker.js": "text/javascript", "picker.css": "text/css"}
MAX_BODY = 64 * 1024

PAGE_CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; frame-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'none'"
)
COMMON_HEADERS = (
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
)


@dataclass(frozen=True)
class Request:
    method: str
    target: str  # path and query as sent
    headers: Mapping[str, str]  # lower-case names
    body: bytes = b""


@dataclass
class Response:
    status: int
    body: bytes = b""
    content_type: str = "text/plain; charset=utf-8"
    headers: list[tuple[str, str]] = field(default_factory=list)

    def all_headers(self) -> list[tuple[str, str]]:
        return [
            ("Content-Type", self.content_type),
            ("Content-Length", str(len(self.body))),
            *COMMON_HEADERS,
            *self.headers,
        ]


def json_response(data: Any, status: int = 200) -> Response:
    body = json.dumps(data, ensure_ascii=False).encode()
    return Response(status, body, "application/json", [("Cache-Control", "no-store")])


def error_response(status: int, message: str) -> Response:
    return json_response({"error": message}, status)


def _read_static(name: str) -> bytes:
    return (package_files(__package__) / "static" / name).read_bytes()


class PickerApp:
    """Turns one Request into one Response; the HTTP server only moves bytes."""

    def __init__(
        self,
        backend: PickerBackend,
        *,
        token: str,
        port: int,
        guard: SecretGuard,
        locale: str = "en_US",
        default_embed: str = "iframe",
        embed_csp: str = "",
    ) -> None:
        self._backend = backend
        self._token = token
        self._port = port
        self._guard = guard
        self._locale = locale
        self._messages = messages(locale)
        self._default_embed = default_embed
        self._embed_csp = embed_csp
        self._origins = {f"http://127.0.0.1:{port}", f"http://localhost:{port}"}
        self._routes: dict[tuple[str, str], Callable[[Request, dict[str, str]], Response]] = {
            ("GET", "/"): self._index,
            ("GET", "/api/session"): self._session,
            ("GET", "/api/folders"): lambda r, q: json_response(self._backend.folders()),
            ("GET", "/api/files"): self._files,
            ("GET", "/api/search"): self._search,
            ("GET", "/api/formats"): lambda r, q: json_response(self._backend.formats_json()),
            ("POST", "/api/shortcode"): self._shortcode,
            ("GET", "/api/embed"): self._embed,
        }

    def __repr__(self) -> str:
        return f"<PickerApp port={self._port} locale={self._locale}>"

    @property
    def cookie_name(self) -> str:
        # Per port, so two pickers running at once keep their own sessions.
        return f"mediashortcodes_picker_{self._port}"

    def handle(self, request: Request) -> Response:
        response = self._route(request)
        if self._guard.leaks(_wire_bytes(response)):
            log.error("withheld a response to %s: it contained a credential", request.method)
            return error_response(500, "response withheld: it would have contained a credential")
        return response

    def _route(self, request: Request) -> Response:
        refusal = self._refuse(request)
        if refusal is not None:
            return refusal
        url = urlsplit(request.target)
        query = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        if url.path == "/" and "token" in query:
            return self._login(query["token"])
        if not self._has_session(request):
            if url.path.startswith("/api/"):
                return error_response(403, self._messages["forbidden"])
            return self._forbidden_page()
        handler = self._routes.get((request.method, url.path))
        if handler is None:
            handler = self._prefix_route(request.method, url.path)
        if handler is None:
            return error_response(404 if request.method in ("GET", "POST") else 405, "not found")
        try:
            return handler(request, query)
        except SelectionError as exc:
            return error_response(400, str(exc))
        except RenderError as exc:  # e.g. a video without a usable mediaId
            return error_response(422, str(exc))
        except NotFoundError as exc:
            return error_response(404, str(exc))
        except ServiceError as exc:
            return error_response(502, f"the service did not answer as expected: {exc}")
        except MediaShortcodesError as exc:
            return error_response(500, str(exc))

    def _prefix_route(
        self, method: str, path: str
    ) -> Callable[[Request, dict[str, str]], Response] | None:
        if method != "GET":
            return None
        if path.startswith("/static/") and path[len("/static/") :] in STATIC:
            name = path[len("/static/") :]
            return lambda r, q: Response(
                200, _read_static(name), STATIC[name], [("Cache-Control", "no-cache")]
            )
        parts = path.split("/")
        if len(parts) == 5 and parts[:3] == ["", "api", "preview"]:
            return lambda r, q: self._preview(parts[3], parts[4])
        return None

    # -- protection ---------------------------------------------------------------------

    def _refuse(self, request: Request) -> Response | None:
        host = request.headers.get("host", "")
        if f"http://{host}" not in self._origins:
            return Response(421, b"unexpected Host header: open the address the picker printed")
        origin = request.headers.get("origin")
        if origin is not None and origin not in self._origins:
            return Response(403, b"cross-origin requests are refused")
        site = request.headers.get("sec-fetch-site")
        if site is not None and site not in ("same-origin", "none"):
            return Response(403, b"cross-site requests are refused")
        return None

    def _has_session(self, request: Request) -> bool:
        value = cookie_value(request.headers.get("cookie", ""), self.cookie_name)
        return value is not None and self._is_token(value)

    def _is_token(self, given: str) -> bool:
        # As bytes: compare_digest refuses a str with a character outside ASCII (a 500).
        return hmac.compare_digest(given.encode("utf-8", "replace"), self._token.encode())

    def _login(self, token: str) -> Response:
        if not self._is_token(token):
            return self._forbidden_page()
        cookie = f"{self.cookie_name}={self._token}; Path=/; HttpOnly; SameSite=Strict"
        # Redirect so the token leaves the address bar and the history.
        return Response(
            303,
            b"",
            headers=[("Location", "/"), ("Set-Cookie", cookie), ("Cache-Control", "no-store")],
        )

    def _forbidden_page(self) -> Response:
        text = html.escape(self._messages["forbidden"])
        body = f'<!doctype html><meta charset="utf-8"><title>403</title><p>{text}</p>'
        return Response(403, body.encode(), "text/html; charset=utf-8")

    # -- pages and endpoints ------------------------------------------------------------

    def _index(self, request: Request, query: dict[str, str]) -> Response:
        page = _read_static("index.html").decode()
        page = page.replace("{{lang}}", html.escape(html_lang(self._locale)))
        page = page.replace("{{title}}", html.escape(self._messages["title"]))
        headers = [("Content-Security-Policy", PAGE_CSP), ("Cache-Control", "no-store")]
        return Response(200, page.encode(), "text/html; charset=utf-8", headers)

    def _session(self, request: Request, query: dict[str, str]) -> Response:
        return json_response(
            {
                "locale": self._locale,
                "messages": self._messages,
                "default_embed": self._default_embed,
            }
        )

    def _files(self, request: Request, query: dict[str, str]) -> Response:
        folder = _int_param(query, "folder")
        return json_response(self._backend.files(folder))

    def _search(self, request: Request, query: dict[str, str]) -> Response:
        text = query.get("q", "").strip()
        if not text:
            raise SelectionError("q: type something to search for")
        return json_response(self._backend.search(text))

    def _preview(self, file_id: str, size: str) -> Response:
        if not file_id.isdigit() or size not in PREVIEW_SIZES:
            return error_response(404, "no such preview")
        data, mime = self._backend.preview(int(file_id), size)
        return Response(200, data, mime, [("Cache-Control", "private, max-age=600")])

    def _shortcode(self, request: Request, query: dict[str, str]) -> Response:
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise SelectionError("send the choice as application/json")
        try:
            data = json.loads(request.body or b"null")
        except ValueError:
            raise SelectionError("the request body is not valid JSON") from None
        if not isinstance(data, dict):
            raise SelectionError("send the choice as a JSON object")
        return json_response({"shortcode": self._backend.shortcode(data)})

    def _embed(self, request: Request, query: dict[str, str]) -> Response:
        embed = query.get("embed") or self._default_embed
        if embed not in EMBEDS:
            raise SelectionError(f"embed must be one of {', '.join(EMBEDS)}, got {embed!r}")
        fragment = self._backend.embed(_int_param(query, "file"), embed)
        page = (
            '<!doctype html><html><head><meta charset="utf-8">'
            "<style>body{margin:0;font-family:sans-serif}</style></head>"
            f"<body>{fragment}</body></html>"
        )
        headers = [("Cache-Control", "no-store")]
        if self._embed_csp:
            headers.append(("Content-Security-Policy", self._embed_csp))
        return Response(200, page.encode(), "text/html; charset=utf-8", headers)


def _int_param(query: Mapping[str, str], name: str) -> int:
    value = query.get(name, "")
    if not value.isdigit():
        raise SelectionError(f"{name} must be a numeric id, got {value!r}")
    return int(value)


def _wire_bytes(response: Response) -> bytes:
    """Headers and body as one byte string, for the guard."""
    head = "\n".join(f"{k}: {v}" for k, v in response.all_headers())
    return head.encode() + b"\n" + response.body


def cookie_value(header: str, name: str) -> str | None:
    """The value of cookie ``name`` in a Cookie header, or ``None``.

    Each ``name=value`` pair is read on its own: cookies on 127.0.0.1 are shared by every
    port, so another local app's cookie, however malformed, must not hide the picker's (the
    standard library's SimpleCookie drops every cookie after one it cannot parse).
    """
    for pair in header.split(";"):
        key, sep, value = pair.strip().partition("=")
        if sep and key == name:
            return value.strip()
    return None
