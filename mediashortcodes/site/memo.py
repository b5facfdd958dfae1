"""The page memo: a page rendered with markers, kept across builds (docs/site-builder.md).

An entry is what rendering one page gave the pipeline: its HTML cut at its markers, the
shortcodes they stand for (in the order first met) and its warnings. Media are not in it:
every build resolves every place again from the cache, so a changed alt text or image
changes a memoized page as it changes a rendered one. The key is a SHA-256 of every input
of the rendering: the page's source and path, every template, the configuration, the
package's files and the versions of the libraries that render pages, and the site-wide data
layouts see. Entries are signed (HMAC-SHA256) with ``MEDIASHORTCODES_CACHE_KEY`` or this
user's own key, outside the cache: an entry another key signed, or a damaged one, is
refused (counted) and its page rendered. JSON only; never an entry of a page with problems.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import importlib.util
import json
import os
import re
import sys
import time
from dataclasses import astuple, dataclass, fields, replace
from pathlib import Path
from typing import Any

from ..config import Config, ServiceConfig
from ..errors import Problem
from ..language import Location, Shortcode
from ..media.encode import codecs
from ..media.store import LocalStore
from .markers import DeferredRenderer
from .pages import PageSource
from .template_problems import OnPage

ENV_KEY = "MEDIASHORTCODES_CACHE_KEY"
FOLDER = "memo"  # in the cache folder, beside each service's folder
UNUSED_DAYS = 30  # an entry no build used for this long is removed
_DAY = 86400
_STAMP = "pruned"  # its time: when the memo was last pruned (at most once a day)
_MAX_ENTRY_BYTES = 64 * 1024 * 1024
_HEAD = b'{"v":1,"sig":"'  # an entry: _HEAD, 64 hex digits, _MIDDLE, the page's JSON, "}"
_MIDDLE = b'","page":'
_FIELDS = [f.name for f in fields(PageSource) if f.name != "body"]  # the body: not by repr


@dataclass
class Memoized:
    """One page's entry, checked and decoded."""

    texts: list[str]  # the HTML between its markers
    gaps: list[int]  # each marker's shortcode, an index into ``shortcodes``
    shortcodes: list[Shortcode]
    warnings: list[Problem]
    undefined: list[OnPage]


def memo_folder(config: Config) -> Path:
    return config.cache_dir / FOLDER


def drop_memo(config: Config) -> None:
    """Remove every entry (``--refresh``, ``cache clear``)."""
    LocalStore(memo_folder(config)).clear()


def signing_key() -> bytes | None:
    """``MEDIASHORTCODES_CACHE_KEY``, else this user's key (made on first use, mode 0600,
    in the config folder); None when it can be neither read nor made (no memo then)."""
    if env := os.environ.get(ENV_KEY):
        return env.encode()
    home = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    path = home / "mediashortcodes" / "cache-key"
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    except OSError:
        return None
    else:
        with os.fdopen(fd, "w") as out:
            out.write(os.urandom(32).hex())  # secrets.token_hex(32), without its imports
    try:
        key = path.read_bytes().strip()
    except OSError:
        return None
    return key if len(key) >= 32 else None


def _version(name: str) -> str:
    """``name.__version__``, read from its source when not imported (a warm build, all from
    the memo, imports no markdown_it: a twentieth of a second)."""
    with contextlib.suppress(OSError, ValueError, AttributeError, TypeError):  # else imported
        if name not in sys.modules and (origin := importlib.util.find_spec(name).origin):
            text = Path(origin).read_text(encoding="utf-8")
            return re.search(r"^__version__ = ([\"'])([^\"']+)\1$", text, re.M)[2]  # type: ignore
    return str(importlib.import_module(name).__version__)


def _versions() -> bytes:
    """The versions of the libraries that render a page (Pillow shapes only media, which
    no entry holds), and each file of this package by size and time (a new version, or an
    edited checkout): not importlib.metadata, which scans every installed package."""
    found = [_version("jinja2"), _version("markdown_it"), _version("yaml")]
    package = Path(__file__).resolve().parent.parent
    for path in sorted(package.rglob("*.py")):
        status = path.stat()
        found.append(f"{path.relative_to(package)} {status.st_size} {status.st_mtime_ns}")
    return "\n".join(found).encode()


def _inputs(config: Config) -> bytes:
    """What every page's key covers but its source and the site-wide data."""
    digest = hashlib.sha256(_versions())
    # The service's URLs shape no page before resolving (a sandbox's port changes each run).
    digest.update(repr(replace(config, service=ServiceConfig(config.service.identity))).encode())
    if config.images.formats or config.images.placeholder != "none":  # what shapes the media
        digest.update(codecs(config.images.formats or ("webp",)).encode())
    templates = config.path(config.site.templates)
    for path in sorted(templates.rglob("*")) if templates.is_dir() else ():
        if path.is_file():
            name = path.relative_to(templates).as_posix().encode()
            data = path.read_bytes()
            digest.update(b"%d:%s%d:%s" % (len(name), name, len(data), data))
    return digest.digest()


def open_memo(config: Config, *, write: bool) -> PageMemo | None:
    """The memo of ``config``'s site; None without a signing key."""
    key = signing_key()
    return None if key is None else PageMemo(memo_folder(config), key, _inputs(config), write)


class PageMemo:
    def __init__(self, folder: Path, secret: bytes, inputs: bytes, write: bool) -> None:
        self.folder = folder
        self.store = LocalStore(folder)
        self._secret = secret
        self._inputs = inputs
        self._site = inputs
        self.write = write
        self.refused = 0  # entries that failed their check since for_site
        self._named: tuple[object, str, bytes] = (None, "", b"")

    def for_site(self, site: dict[str, Any]) -> None:
        """Key pages by ``site`` too (every page's front matter and URL)."""
        self._site = hashlib.sha256(self._inputs + repr(site).encode()).digest()
        self._named = (None, "", b"")
        self.refused = 0

    def _name(self, source: PageSource) -> tuple[str, bytes]:
        if self._named[0] is not source:  # put after get: the page's key worked out once
            body = source.body.encode()  # its length ends the repr: one text, one key
            keyed = [*(getattr(source, name) for name in _FIELDS), len(body)]
            key = hashlib.sha256(b"%s%r%s" % (self._site, keyed, body)).hexdigest()
            self._named = (source, f"{key[:2]}/{key}.json", key.encode())
        return self._named[1:]

    def _signature(self, key: bytes, body: bytes) -> bytes:
        return hmac.new(self._secret, key + b"\n" + body, hashlib.sha256).hexdigest().encode()

    def get(self, source: PageSource) -> Memoized | None:
        """The page's entry when there is one and it passes its check."""
        name, key = self._name(source)
        data = self.store.get(name, _MAX_ENTRY_BYTES)
        if data is None:
            return None
        start = len(_HEAD) + 64
        body = data[start + len(_MIDDLE) : -1]
        signature = data[len(_HEAD) : start]
        try:
            if not (
                data.startswith(_HEAD)
                and data[start:].startswith(_MIDDLE)
                and hmac.compare_digest(signature, self._signature(key, body))
            ):
                raise ValueError("not signed with this key")
            found = _decoded(json.loads(body))
        except (ValueError, TypeError, KeyError):
            self.refused += 1
            return None
        path = os.path.join(self.folder, name)
        try:  # used: kept from pruning (touched at most once a day)
            if self.write and os.lstat(path).st_mtime < time.time() - _DAY:
                os.utime(path, follow_symlinks=False)
        except OSError:
            pass
        return found

    def put(self, source: PageSource, found: Memoized) -> None:
        if not self.write:
            return
        name, key = self._name(source)
        body = json.dumps(_encoded(found), ensure_ascii=False).encode()
        with contextlib.suppress(OSError):  # a memo that cannot be written is only slower
            self.store.put(name, b"".join([_HEAD, self._signature(key, body), _MIDDLE, body, b"}"]))

    def prune(self) -> None:
        """Remove the entries no build used for UNUSED_DAYS days; once a day at most."""
        now = time.time()
        try:
            if not self.write or os.lstat(self.folder / _STAMP).st_mtime > now - _DAY:
                return
        except FileNotFoundError:
            pass
        for name in list(self.store.names()):
            try:
                if os.lstat(self.folder / name).st_mtime < now - UNUSED_DAYS * _DAY:
                    self.store.delete(name)
            except OSError:
                continue
        self.store.put(_STAMP, b"")


def _encoded(found: Memoized) -> dict[str, Any]:
    return {
        "texts": found.texts,
        "gaps": found.gaps,
        "shortcodes": [  # not astuple: a deep copy of each, a tenth of a build's CPU
            [
                s.name,
                s.file_id,
                s.format,
                s.options,
                [s.location.path, s.location.line, s.location.col],
                s.source,
            ]
            for s in found.shortcodes
        ],
        "warnings": [astuple(warning) for warning in found.warnings],
        "undefined": [[*astuple(u.problem), u.page, u.after] for u in found.undefined],
    }


def _decoded(data: dict[str, Any]) -> Memoized:
    """An entry's page; a ValueError (or TypeError, KeyError) when it is not one."""
    found = Memoized(
        data["texts"],
        data["gaps"],
        [
            Shortcode(name, file_id, fmt, tuple(map(tuple, options)), Location(*where), source)
            for name, file_id, fmt, options, where, source in data["shortcodes"]
        ],
        [Problem(*warning) for warning in data["warnings"]],
        [OnPage(Problem(*u[:5]), *u[5:]) for u in data["undefined"]],
    )
    if len(found.texts) != len(found.gaps) + 1 or max(found.gaps, default=0) >= len(
        found.shortcodes
    ):
        raise ValueError("not a page's entry")
    return found


def memoized(
    deferred: DeferredRenderer,
    html: str,
    used: set[int],
    warnings: list[Problem],
    undefined: list[OnPage],
) -> Memoized | None:
    """The entry of a page just rendered into ``deferred``; None if it cannot be one."""
    order = sorted(used)  # the order first met: a place new to the page has a new index
    local = {index: k for k, index in enumerate(order)}
    parts = deferred.marker.split(html)
    try:
        gaps = [local[int(index)] for index in parts[1::2]]
    except KeyError:
        return None
    shortcodes = [deferred.shortcodes[index] for index in order]
    return Memoized(parts[0::2], gaps, shortcodes, warnings, undefined)


def replayed(
    deferred: DeferredRenderer, source: PageSource, found: Memoized
) -> tuple[str, set[int]]:
    """Record ``found``'s places in ``deferred`` as rendering its page would; its HTML
    with this build's markers, and the places it uses."""
    deferred.begin_page(source.display_path)
    markers = [deferred.render(shortcode) for shortcode in found.shortcodes]
    parts = [found.texts[0]]
    for gap, text in zip(found.gaps, found.texts[1:], strict=True):
        parts += [markers[gap], text]
    return "".join(parts), deferred.used
