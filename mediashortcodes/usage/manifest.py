"""The usage manifest and its diff: ``{"site": base_url, "pages": {url: {"title": ...,
"files": [ids]}}}``, the format of ``media-usage.json``, the report state (which adds
``"service"`` and a page's ``"pending"``) and ``--previous``, so any two can be diffed.
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
    """``path`` under ``base_url``; an absolute URL, or any path without a base, unchanged."""
    if not base_url or urlsplit(path).scheme in ("http", "https"):
        return path
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(
            f"[site] base_url must be an absolute http(s) URL such as https://www.example.org; "
            f"got {base_url!r}"
        )
    return base_url.rstrip("/") + "/" + path.lstrip("/")


# A file id is a JSON integer (service-spec.md); one below 0 or past a signed 64-bit
# integer names no file, and is never sent.
MAX_FILE_ID = 2**63 - 1


def _file_ids(values: Iterable[Any], where: str) -> tuple[int, ...]:
    ids = set()
    for value in values:
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_FILE_ID:
            raise ConfigError(
                f"{where}: file ids must be integers from 0 to {MAX_FILE_ID}, got {value!r}"
            )
        ids.add(value)
    return tuple(sorted(ids))


@dataclass(frozen=True)
class PageUsage:
    """A page's title (``pageName``) and file ids; ``pending``: additions sent but not
    confirmed (sent again while used, removed when not)."""

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
        """From ``(url, title, file ids)``; a URL given twice gets its files' union."""
        titles: dict[str, str] = {}
        files: dict[str, set[int]] = {}
        for url, title, ids in pages:
            titles.setdefault(url, title)
            files.setdefault(url, set()).update(_file_ids(ids, f"page {url}"))
        return cls(
            site=site,
            pages={url: PageUsage(titles[url], tuple(sorted(files[url]))) for url in titles},
        )

    def to_json(self, indent: int | None = 2) -> str:
        """The manifest's JSON and a newline; with ``indent=None``, on one line."""
        data: dict[str, Any] = {"site": self.site}
        if self.service:
            data["service"] = self.service
        data["pages"] = {url: _page_json(page) for url, page in self.pages.items()}
        return json.dumps(data, indent=indent, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str | bytes, source: str = "usage manifest") -> Manifest:
        """Parse a manifest; ``source`` names the file or URL in the error."""
        try:
            data = json.loads(text)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ConfigError(
                f"{source}: not valid JSON ({exc}); is it a media-usage.json?"
            ) from None
        except RecursionError:
            raise ConfigError(
                f"{source}: nested too deeply to be a usage manifest; is it a media-usage.json?"
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


def _page_json(page: PageUsage) -> dict[str, Any]:
    data: dict[str, Any] = {"title": page.title, "files": list(page.files)}
    if page.pending:
        data["pending"] = list(page.pending)
    return data


@dataclass(frozen=True)
class PageChange:
    """What one page's report must tell the service: files newly used and no longer used."""

    url: str
    title: str
    added: tuple[int, ...]
    removed: tuple[int, ...]


def diff(previous: Manifest, current: Manifest, *, send_all: bool = False) -> list[PageChange]:
    """The changes that bring the service from ``previous`` to ``current``, by URL. A
    renamed page sends all its files again; ``pending`` files count as not held for
    additions and as held for removals."""
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
