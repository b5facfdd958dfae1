"""Typed records of what the service sends and receives, converted from and to its
camelCase JSON at the edge; unknown keys are ignored and missing ones take defaults (the
spec leaves most fields "not shown").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from .errors import InvalidResponseError

# The field list of endpoints 3 and 4, in lower case as the spec documents it.
FILE_FIELDS = (
    "id,name,filename,filesize,type,smallPreview,thumbPreview,mark,uploaded,"
    "uploadedby,gdprstatus,gdprtype,mediaid,alttext"
).lower()


def _require(data: Any, key: str, kind: type | tuple[type, ...], what: str) -> Any:
    if not isinstance(data, dict):
        raise InvalidResponseError(f"expected a JSON object for {what}, got {type(data).__name__}")
    value = data.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise InvalidResponseError(f"{what} has no valid {key!r} field")
    return value


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def _read(kind: str, value: Any) -> Any:
    """A field of the annotated ``kind`` from the service's value, leniently."""
    if kind == "bool":
        return bool(value)
    if kind == "int":
        return int(value or 0)
    if kind == "int | None":
        return value if isinstance(value, int) else None
    if kind == "str | None":
        return None if value is None else str(value)
    if kind == "FileType":
        return FileType.from_api(value)
    return str(value or "")


class _CamelRecord:
    """``from_api`` and ``to_api`` by field (``has_children`` is ``hasChildren``)."""

    @classmethod
    def from_api(cls, data: Any) -> Any:
        what = cls.__name__.lower()
        values = {"id": _require(data, "id", int, what)}
        for f in fields(cls):  # type: ignore[arg-type]
            if f.name != "id":
                values[f.name] = _read(str(f.type), data.get(_camel(f.name)))
        return cls(**values)

    def to_api(self) -> dict[str, Any]:
        values = {_camel(f.name): getattr(self, f.name) for f in fields(self)}  # type: ignore[arg-type]
        return {k: asdict(v) if isinstance(v, FileType) else v for k, v in values.items()}


@dataclass(frozen=True)
class Token:
    access_token: str = field(repr=False)
    token_type: str
    expires_in: int

    @classmethod
    def from_api(cls, data: Any) -> Token:
        return cls(
            access_token=_require(data, "access_token", str, "token response"),
            token_type=str(data.get("token_type", "Bearer")),
            expires_in=int(data.get("expires_in") or 7200),
        )


@dataclass(frozen=True)
class Folder(_CamelRecord):
    id: int
    name: str
    type: int = 0
    depth: int = 0
    archived: bool = False
    parent: int | None = None
    has_children: bool = False
    separator: bool = False


@dataclass(frozen=True)
class FileType:
    id: int = 0
    type: str = ""
    description: str = ""
    extension: str = ""

    @classmethod
    def from_api(cls, data: Any) -> FileType:
        data = data if isinstance(data, dict) else {}
        return cls(**{f.name: _read(str(f.type), data.get(f.name)) for f in fields(cls)})


@dataclass(frozen=True)
class File(_CamelRecord):
    id: int
    name: str = ""
    filename: str = ""
    type: FileType = field(default_factory=FileType)
    filesize: int = 0
    mark: int = 0
    uploaded_by: int = 0
    uploaded: str = ""
    media_id: str | None = None
    alttext: str = ""
    small_preview: str = ""
    thumb_preview: str = ""
    gdpr_status: str = ""
    gdpr_type: str = ""

    @property
    def is_video(self) -> bool:
        return self.media_id is not None or self.type.type == "video"


@dataclass(frozen=True)
class DownloadInfo:
    id: int
    format: str
    download_url: str = field(repr=False)  # temporary and carries a token: keep out of reprs
    filetype: str = ""
    expires_in: int = 300

    @classmethod
    def from_api(cls, data: Any) -> DownloadInfo:
        return cls(
            id=int(data.get("id") or 0) if isinstance(data, dict) else 0,
            format=str(data.get("format") or "") if isinstance(data, dict) else "",
            download_url=_require(data, "downloadURL", str, "download information"),
            filetype=str(data.get("filetype") or "").lower(),
            expires_in=int(data.get("expiresIn") or 300),
        )


@dataclass(frozen=True)
class Format:
    """A predefined format; width and height if the service sends them."""

    id: int
    name: str
    width: int | None = None
    height: int | None = None

    @classmethod
    def from_api(cls, data: Any) -> Format:
        def opt_int(key: str) -> int | None:
            value = data.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) else None

        return cls(
            id=_require(data, "id", int, "format"),
            name=str(data.get("name") or data.get("format") or ""),
            width=opt_int("width"),
            height=opt_int("height"),
        )


@dataclass(frozen=True)
class Crop:
    """The custom format (-1)'s query parameters."""

    w: int
    h: int
    x1: int
    x2: int
    y1: int
    y2: int
    sw: int | None = None
    sh: int | None = None
    stretch: bool = False

    def to_params(self) -> dict[str, int]:
        keys = ("w", "h", "sw", "sh", "x1", "x2", "y1", "y2")
        params = {k: getattr(self, k) for k in keys if getattr(self, k) is not None}
        if self.stretch:
            params["stretch"] = 1
        return params

    def key(self) -> str:
        return ",".join(f"{k}={v}" for k, v in self.to_params().items())


@dataclass(frozen=True)
class WebPage:
    page: str
    page_name: str


@dataclass(frozen=True)
class Usage:
    """Body of ``POST /1/files/multiple/usages``; ``removed`` as text unless
    ``removed_as_bool``."""

    ids: tuple[int, ...]
    web: WebPage
    contact: str = ""
    date: str = ""
    amount: str = "1"
    description: str = ""
    project: str = ""
    types: tuple[str, ...] = ("web",)
    removed: bool = False

    def to_api(self, *, removed_as_bool: bool = False) -> dict[str, Any]:
        removed: bool | str = self.removed if removed_as_bool else str(self.removed).lower()
        return {
            "id": list(self.ids),
            "contact": self.contact,
            "date": self.date,
            "amount": self.amount,
            "description": self.description,
            "project": self.project,
            "types": list(self.types),
            "removed": removed,
            "web": {"page": self.web.page, "pageName": self.web.page_name},
        }


@dataclass(frozen=True)
class FolderNode:
    """A folder and its subfolders (:func:`folder_tree`)."""

    folder: Folder
    children: tuple[FolderNode, ...] = ()


def _effective_parent(folder: Folder, by_id: Mapping[int, Folder]) -> int | None:
    parent = folder.parent
    if parent is None or parent not in by_id:
        return None
    seen = {folder.id}
    current: int | None = parent
    while current is not None:
        if current in seen:
            return None
        seen.add(current)
        above = by_id[current].parent
        current = above if above in by_id else None
    return parent


def folder_tree(folders: Iterable[Folder]) -> list[FolderNode]:
    """Nest the flat folder list by ``parent``; a folder whose parent is not visible, or
    in a cycle, is top-level, not lost."""
    by_id: dict[int, Folder] = {}
    for folder in folders:
        by_id.setdefault(folder.id, folder)
    ordered = sorted(by_id.values(), key=lambda f: f.depth)  # stable: keeps order within a depth
    children: dict[int | None, list[Folder]] = {}
    for folder in ordered:
        children.setdefault(_effective_parent(folder, by_id), []).append(folder)

    def build(folder: Folder) -> FolderNode:
        return FolderNode(folder, tuple(build(child) for child in children.get(folder.id, ())))

    return [build(root) for root in children.get(None, [])]
