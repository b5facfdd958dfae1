"""The usage manifest of a build and its diff against what the service was last told.

A manifest maps every absolute page URL to its title and the ids of the files it uses:
``{"site": base_url, "pages": {url: {"title": ..., "files": [ids, sorted]}}}``. The same
format serves as the build's ``media-usage.json``, as the durable report state and as the
``--previous`` manifest of the live site, so all three can be diffed against each other.
Only the state has two more keys: ``"service"``, the service it was reported to, and a
page's ``"pending"``, files sent as additions whose acceptance was never confirmed.

Everything here is pure except ``Manifest.load`` and ``Manifest.write_atomic``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit

from ..errors import ConfigError
from ..fileio import write_atomic

MANIFEST_NAME = "media-usage.json"

__all__ = [
    "MANIFEST_NAME",
    "Manifest",
    "PageChange",
    "PageUsage",
    "diff",
    "page_url",
]


def page_url(base_url: str, path: str) -> str:
    """Join the site's public ``base_url`` (with or without a path prefix) and a page path.

    ``page_url("https://x.org/docs", "/blog/post/")`` is ``"https://x.org/docs/blog/post/"``.
    A path that is already an absolute http(s) URL is returned unchanged, and so is every
    path when ``base_url`` is empty (no address was set: a report refuses such a manifest
    rather than invent one).
    """
    if not base_url or urlsplit(path).scheme in ("http", "https"):
        return path
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(
            f"[site] base_url must be an absolute http(s) URL such as https://www.example.org; "
            f"got {base_url!r}"
        )
    return base_url.rstrip("/") + "/" + path.lstrip("/")


def _file_ids(values: Iterable[Any], where: str) -> tuple[int, ...]:
    ids = set()
    for value in values:
        if not isinstance(value, int) or isinstance(value, bool):
            raise ConfigError(f"{where}: file ids must be integers, got {value!r}")
        ids.add(value)
    return tuple(sorted(ids))


# A JSON string, as json.dumps(ensure_ascii=False) writes it (in C, without an indent).
_ENCODE_TEXT = json.JSONEncoder(ensure_ascii=False).encode


@dataclass(frozen=True)
class PageUsage:
    """One page: its title (the usage's ``pageName``) and the sorted ids of its files.

    In the report state, ``pending`` holds the ids sent as additions without a confirmed
    answer (recorded before they are sent): the service may hold them or not, so they are
    sent again while the page uses them, and removed when it stops.
    """

    title: str
    files: tuple[int, ...]
    pending: tuple[int, ...] = ()


@dataclass(frozen=True)
class Manifest:
    """Which files each page of a site uses; ``pages`` is keyed by absolute page URL."""

    site: str
    pages: Mapping[str, PageUsage] = field(default_factory=dict)
    service: str = ""  # the report state only: the service these pages were reported to

    def __post_init__(self) -> None:
        ordered = {url: self.pages[url] for url in sorted(self.pages)}
        object.__setattr__(self, "pages", MappingProxyType(ordered))

    @classmethod
    def from_pages(cls, site: str, pages: Iterable[tuple[str, str, Iterable[int]]]) -> Manifest:
        """Build a manifest from ``(url, title, file ids)``; ids are deduplicated and sorted.

        A URL given twice gets the union of its files and keeps its first title, because
        a page rendered through several templates is still one page to the service.
        """
        titles: dict[str, str] = {}
        files: dict[str, set[int]] = {}
        for url, title, ids in pages:
            titles.setdefault(url, title)
            files.setdefault(url, set()).update(_file_ids(ids, f"page {url}"))
        return cls(
            site=site,
            pages={url: PageUsage(titles[url], tuple(sorted(files[url]))) for url in titles},
        )

    def to_json(self) -> str:
        """``json.dumps(..., indent=2, ensure_ascii=False)`` of the manifest, line by line:
        with an indent, json encodes in pure Python (a fifth of writing a large site)."""
        text = _ENCODE_TEXT
        lines = ["{", f'  "site": {text(self.site)},']
        if self.service:
            lines.append(f'  "service": {text(self.service)},')
        if not self.pages:
            lines.append('  "pages": {}')
        else:
            lines.append('  "pages": {')
            last = len(self.pages) - 1
            for i, (url, page) in enumerate(self.pages.items()):
                lines.append(f"    {text(url)}: {{")
                lines.append(f'      "title": {text(page.title)},')
                lines.append(
                    f'      "files": {_id_list(page.files)}' + ("," if page.pending else "")
                )
                if page.pending:
                    lines.append(f'      "pending": {_id_list(page.pending)}')
                lines.append("    }," if i < last else "    }")
            lines.append("  }")
        lines.append("}\n")
        return "\n".join(lines)

    @classmethod
    def from_json(cls, text: str | bytes, source: str = "usage manifest") -> Manifest:
        """Parse a manifest; ``source`` names the file or URL in the error."""
        try:
            data = json.loads(text)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ConfigError(
                f"{source}: not valid JSON ({exc}); is it a media-usage.json?"
            ) from None
        if not isinstance(data, dict) or not isinstance(data.get("pages"), dict):
            raise ConfigError(
                f'{source}: not a usage manifest: expected an object with "site" and "pages"'
            )
        site, service = data.get("site", ""), data.get("service", "")
        for key, value in (("site", site), ("service", service)):
            if not isinstance(value, str):
                raise ConfigError(f'{source}: "{key}" must be a string')
        pages = {}
        for url, page in data["pages"].items():
            if not isinstance(page, dict) or not isinstance(page.get("files"), list):
                raise ConfigError(f'{source}: page {url} must be an object with a "files" list')
            title = page.get("title", "")
            if not isinstance(title, str):
                raise ConfigError(f'{source}: page {url}: "title" must be a string')
            pending = page.get("pending", [])
            if not isinstance(pending, list):
                raise ConfigError(f'{source}: page {url}: "pending" must be a list')
            where = f"{source}: page {url}"
            pages[url] = PageUsage(
                title, _file_ids(page["files"], where), _file_ids(pending, where)
            )
        return cls(site=site, pages=pages, service=service)

    @classmethod
    def load(cls, path: str | Path) -> Manifest:
        path = Path(path)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise ConfigError(
                f"{path}: no usage manifest here; run `mediashortcodes build` first "
                "(for a build written elsewhere with --output: `mediashortcodes report "
                "--output DIR`)"
            ) from None
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read the usage manifest: {exc.strerror}") from None
        return cls.from_json(data, source=str(path))

    def write_atomic(self, path: str | Path) -> None:
        """Write through a temporary file in the same folder so a reader never sees half."""
        write_atomic(Path(path), self.to_json().encode(), durable=True)


def _id_list(ids: tuple[int, ...]) -> str:
    if not ids:
        return "[]"
    return "[\n        " + ",\n        ".join(map(str, ids)) + "\n      ]"


@dataclass(frozen=True)
class PageChange:
    """What one page's report must tell the service: files newly used and no longer used."""

    url: str
    title: str
    added: tuple[int, ...]
    removed: tuple[int, ...]


def diff(previous: Manifest, current: Manifest, *, send_all: bool = False) -> list[PageChange]:
    """The changes that bring the service from ``previous`` to ``current``, sorted by URL.

    A page whose title changed sends all its files again so the service shows the new name;
    a page gone from ``current`` removes all its files. ``send_all`` re-sends every current
    file as an addition (removals stay as diffed). Pages with nothing to send are left out.
    Files ``pending`` in ``previous`` count as not held for additions and as held for
    removals: whatever the service did with them, the report ends up right.
    """
    changes = []
    for url in sorted(set(previous.pages) | set(current.pages)):
        before = previous.pages.get(url)
        after = current.pages.get(url)
        held = set(before.files) if before else set()
        maybe = held.union(before.pending) if before else set()
        new = set(after.files) if after else set()
        renamed = before is not None and after is not None and before.title != after.title
        added = new if send_all or renamed else new - held
        removed = maybe - new
        if added or removed:
            title = after.title if after else before.title if before else ""
            changes.append(PageChange(url, title, tuple(sorted(added)), tuple(sorted(removed))))
    return changes
