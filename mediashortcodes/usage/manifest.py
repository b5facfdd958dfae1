"""The usage manifest of a build and its diff against what the service was last told.

``{"site": base_url, "pages": {url: {"title": ..., "files": [ids, sorted]}}}``, keyed by
absolute page URL: the build's ``media-usage.json``, the report state and the live site's
``--previous`` manifest, so any two can be diffed. Only the state has ``"service"`` (where
it was reported) and a page's ``"pending"`` (additions sent but never confirmed).
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
    """``page_url("https://x.org/docs", "/blog/post/")`` is
    ``"https://x.org/docs/blog/post/"``. An absolute http(s) URL is returned unchanged, and
    so is every path when ``base_url`` is empty (a report refuses such a manifest)."""
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
    """One page: its title (the usage's ``pageName``) and the sorted ids of its files;
    in the state, ``pending``: ids sent as additions without a confirmed answer (the service
    may hold them or not: sent again while the page uses them, removed when it stops)."""

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
        """A manifest of ``(url, title, file ids)``; a URL given twice (one page through
        several templates) gets the union of its files and its first title."""
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
        """``json.dumps(..., indent=2, ensure_ascii=False)``, line by line: with an indent,
        json encodes in pure Python, three times slower."""
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
    """The changes that bring the service from ``previous`` to ``current``, by URL.

    A renamed page sends all its files again (the service shows the new name); a page gone
    removes all its files; ``send_all`` re-sends every current file. ``pending`` files count
    as not held for additions and as held for removals: the report ends up right either way.
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
