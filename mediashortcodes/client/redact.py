"""Keep secrets out of every text a person or a log can read: URLs (the token request's
query, a download link's path) through :func:`redact_url`, free text through :func:`redact`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from urllib.parse import quote, quote_plus, unquote_plus, urlsplit, urlunsplit

MASK = "***"

# Query parameters whose values are credentials or bearer capabilities wherever they appear.
SECRET_PARAMS = frozenset(
    {
        "client_id",
        "client_secret",
        "refresh_token",
        "access_token",
        "id_token",
        "token",
        "code",
        "password",
        "secret",
        "key",
        "api_key",
        "apikey",
        "sig",
        "signature",
        "sid",
    }
)

# On a download link (/dn/<token>/...) only the crop parameters are known to be harmless;
# the meaning of t, u, cc, ch and sid is not documented, so they are treated as secret.
CROP_PARAMS = frozenset({"w", "h", "sw", "sh", "x1", "x2", "y1", "y2", "stretch"})

_DOWNLOAD_PATH = re.compile(r"(/dn/)[^/?#]+")
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>]+")


def _redact_query(query: str, *, download_link: bool) -> str:
    parts = []
    for pair in re.split(r"([&;])", query):
        if pair in ("&", ";") or "=" not in pair:
            parts.append(pair)
            continue
        name, _, _value = pair.partition("=")
        key = unquote_plus(name).lower()
        secret = key in SECRET_PARAMS or (download_link and key not in CROP_PARAMS)
        parts.append(f"{name}={MASK}" if secret else pair)
    return "".join(parts)


def redact_url(url: object) -> str:
    """``url`` (anything with a ``str()``) with credentials, download tokens and passwords
    masked; never raises (text that is no URL gets its recognisable parts masked)."""
    text = str(url)
    try:
        parts = urlsplit(text)
    except ValueError:
        return _DOWNLOAD_PATH.sub(rf"\g<1>{MASK}", text)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hostport = netloc.rpartition("@")
        user = userinfo.split(":", 1)[0]
        netloc = f"{user}:{MASK}@{hostport}" if ":" in userinfo else f"{MASK}@{hostport}"
    download_link = bool(_DOWNLOAD_PATH.search(parts.path))
    path = _DOWNLOAD_PATH.sub(rf"\g<1>{MASK}", parts.path)
    query = _redact_query(parts.query, download_link=download_link)
    return urlunsplit((parts.scheme, netloc, path, query, parts.fragment))


def redact_urls_in(text: str) -> str:
    """Redact every URL found inside a free text."""
    return _URL_IN_TEXT.sub(lambda m: redact_url(m.group(0)), text)


def redact(text: str, secrets: Iterable[str]) -> str:
    """Replace each secret value in ``text`` (also in its URL-encoded forms) with ``***``."""
    variants = set()
    for secret in secrets:
        if secret:
            variants.update({secret, quote(secret, safe=""), quote_plus(secret, safe="")})
    for value in sorted(variants, key=len, reverse=True):
        text = text.replace(value, MASK)
    return text


# httpcore logs headers at DEBUG as Python reprs: ``(b'Location', b'https://...')``. The
# values of these carry signed links, session cookies and bearer tokens: masked whole.
_SECRET_HEADER = re.compile(
    r"""(\(b['"](?:location|set-cookie|cookie|authorization|proxy-authorization)['"],\s*)"""
    r"""b(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""",
    re.IGNORECASE,
)


class RedactingFilter(logging.Filter):
    """Redacts the URLs in a record's message and arguments, and the values of
    credential-bearing headers: httpx logs each request's full URL at INFO, httpcore each
    response's headers at DEBUG (a redirect's ``Location`` is a signed link)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            if "(b'" in record.msg:
                record.msg = _SECRET_HEADER.sub(rf"\g<1>b'{MASK}'", record.msg)
            if "://" in record.msg:
                record.msg = redact_urls_in(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(_scrub(arg) for arg in record.args)
        elif isinstance(record.args, dict):
            record.args = {key: _scrub(value) for key, value in record.args.items()}
        return True


def _scrub(arg: object) -> object:
    if isinstance(arg, (int, float)) or arg is None:
        return arg
    text = str(arg)
    return redact_urls_in(text) if "://" in text else arg


# A filter applies to its own logger's records only, not its children's.
HTTP_LOGGERS = (
    "httpx",
    "httpcore.connection",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
    "httpcore.socks",
)


def install_log_redaction(logger_names: Iterable[str] = HTTP_LOGGERS) -> None:
    """Put a :class:`RedactingFilter` on each named logger once (idempotent)."""
    for name in logger_names:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactingFilter) for f in logger.filters):
            logger.addFilter(RedactingFilter())
