"""The sandbox's media library: folders, files and their bytes.

Records are frozen; every change goes through ``Library`` under one lock, because tests
change files while server threads read them. Image bytes are drawn on first use (see
``imaging``) unless a test supplies its own. One folder may be invisible to the
integration, as on the real service: its files are never listed, found or downloadable.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from . import demo, imaging

VIDEO_EXTENSIONS = ("mp4", "mov", "webm", "m4v")

# The file type objects of listings: (id, type, description) by extension.
FILE_TYPES: dict[str, tuple[int, str, str]] = {
    "jpg": (1, "image", "JPEG image"),
    "jpeg": (1, "image", "JPEG image"),
    "png": (2, "image", "PNG image"),
    "gif": (5, "image", "GIF image"),
    "webp": (6, "image", "WebP image"),
    "mp4": (3, "video", "MPEG-4 video"),
    "m4v": (3, "video", "MPEG-4 video"),
    "mov": (4, "video", "QuickTime video"),
    "webm": (7, "video", "WebM video"),
}


@dataclass(frozen=True)
class LibraryFolder:
    id: int
    name: str
    parent: int | None = None
    visible: bool = True  # False: the integration may not see it (nor anything inside)
    archived: bool = False
    type: int = 0


@dataclass(frozen=True)
class LibraryFile:
    id: int
    folder_id: int
    name: str
    filename: str
    alttext: str = ""
    width: int = 640  # pixel size of the image (of the poster, for a video)
    height: int = 480
    media_id: str | None = None  # set for videos only
    uploaded: str = "2024-01-15T10:00:00.000+01:00"
    uploaded_by: int = 1
    gdpr_status: str = "OK"
    gdpr_type: str = "NO_PERSON"
    mark: int = 0
    filesize: int | None = None  # None: the byte size of the original image
    seed: int = 0
    detail: bool = True  # draw shapes and a label (False: a plain, fast gradient)
    data: bytes | None = field(default=None, repr=False)  # None: drawn from the fields above

    @property
    def extension(self) -> str:
        return self.filename.rsplit(".", 1)[-1].lower() if "." in self.filename else ""

    @property
    def is_video(self) -> bool:
        return self.media_id is not None

    def drawing(self, *, poster: bool = False) -> imaging.Drawing:
        extension = "jpg" if poster or self.is_video else self.extension
        return imaging.Drawing(
            self.width,
            self.height,
            extension,
            self.seed or self.id,
            f"#{self.id} {self.name}",
            detail=self.detail,
        )


def now_iso() -> str:
    """The current time the way the service writes ``uploaded``: milliseconds and offset."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class Library:
    """Folders and files of one sandbox; safe to change while the sandbox serves."""

    def __init__(
        self, folders: Iterable[LibraryFolder] = (), files: Iterable[LibraryFile] = ()
    ) -> None:
        self._lock = threading.RLock()
        self._folders: dict[int, LibraryFolder] = {}
        self._files: dict[int, LibraryFile] = {}
        for folder in folders:
            self._folders[folder.id] = folder
        for file in files:
            self._check_folder(file.folder_id)
            self._files[file.id] = file

    @classmethod
    def demo(cls) -> Library:
        """The documented demo library (docs/sandbox.md lists its ids)."""
        return cls._of(demo.DEMO_FOLDERS, demo.DEMO_FILES)

    @classmethod
    def synthetic(
        cls,
        images: int = 300,
        videos: int = 50,
        folders: int = 20,
        seed: int = 0,
        size: tuple[int, int] = (640, 480),
    ) -> Library:
        """A large library for benchmarks; see ``demo.synthetic``."""
        return cls._of(*demo.synthetic(images, videos, folders, seed, size))

    @classmethod
    def _of(cls, folders: Iterable[demo.Fields], files: Iterable[demo.Fields]) -> Library:
        return cls([LibraryFolder(**f) for f in folders], [LibraryFile(**f) for f in files])

    # Reading

    def folder(self, folder_id: int) -> LibraryFolder | None:
        with self._lock:
            return self._folders.get(folder_id)

    def file(self, file_id: int) -> LibraryFile | None:
        with self._lock:
            return self._files.get(file_id)

    def folders(self) -> list[LibraryFolder]:
        with self._lock:
            return sorted(self._folders.values(), key=lambda f: f.id)

    def files(self) -> list[LibraryFile]:
        with self._lock:
            return sorted(self._files.values(), key=lambda f: f.id)

    def is_visible(self, folder_id: int) -> bool:
        """A folder is visible when it and every ancestor are."""
        with self._lock:
            seen: set[int] = set()
            current: int | None = folder_id
            while current is not None and current not in seen:
                seen.add(current)
                folder = self._folders.get(current)
                if folder is None or not folder.visible:
                    return False
                current = folder.parent
            return True

    def depth(self, folder_id: int) -> int:
        with self._lock:
            depth, folder = 0, self._folders[folder_id]
            while folder.parent is not None and depth < len(self._folders):
                depth, folder = depth + 1, self._folders[folder.parent]
            return depth

    def visible_folders(self) -> list[LibraryFolder]:
        return [f for f in self.folders() if self.is_visible(f.id)]

    def has_visible_children(self, folder_id: int) -> bool:
        return any(f.parent == folder_id for f in self.visible_folders())

    def visible_file(self, file_id: int) -> LibraryFile | None:
        file = self.file(file_id)
        return file if file is not None and self.is_visible(file.folder_id) else None

    def files_in(self, folder_id: int) -> list[LibraryFile]:
        return [f for f in self.files() if f.folder_id == folder_id]

    def search(self, query: str) -> list[LibraryFile]:
        """Visible files whose name, filename or alt text contain every word of the query."""
        words = query.casefold().split()
        found = []
        for file in self.files():
            if not self.is_visible(file.folder_id):
                continue
            text = f"{file.name}\n{file.filename}\n{file.alttext}".casefold()
            if all(word in text for word in words):
                found.append(file)
        return found

    def by_media_id(self, media_id: str) -> LibraryFile | None:
        with self._lock:
            return next((f for f in self._files.values() if f.media_id == media_id), None)

    def original(self, file_id: int) -> bytes:
        """The original bytes of an image (drawn on first use)."""
        file = self._get(file_id)
        if file.is_video:
            raise ValueError(f"file {file_id} is a video and has no image bytes")
        return file.data if file.data is not None else imaging.draw(file.drawing())

    def poster(self, file_id: int) -> bytes:
        """The image previews are made from: the original, or a drawn frame for a video."""
        file = self._get(file_id)
        if file.is_video or file.data is None:
            return imaging.draw(file.drawing(poster=file.is_video))
        return file.data

    def filesize(self, file: LibraryFile) -> int:
        if file.filesize is not None:
            return file.filesize
        return len(self.original(file.id))

    def warm(self) -> None:
        """Draw every image now, so a benchmark does not time the drawing."""
        for file in self.files():
            if not file.is_video:
                self.original(file.id)

    # Changing

    def add_folder(
        self, name: str, *, parent: int | None = None, id: int | None = None, **fields: Any
    ) -> LibraryFolder:
        with self._lock:
            if parent is not None:
                self._check_folder(parent)
            folder_id = id if id is not None else max(self._folders, default=0) + 1
            if folder_id in self._folders:
                raise ValueError(f"folder {folder_id} exists already")
            folder = LibraryFolder(folder_id, name, parent, **fields)
            self._folders[folder_id] = folder
            return folder

    def add_image(
        self,
        folder_id: int,
        name: str,
        *,
        id: int | None = None,
        filename: str | None = None,
        data: bytes | None = None,
        **fields: Any,
    ) -> LibraryFile:
        """Add an image; with ``data`` its width and height are read from the bytes."""
        if data is not None:
            fields["width"], fields["height"] = imaging.size_of(data)
        filename = filename or f"{_slug(name)}.jpg"
        return self._add(folder_id, name, id, filename, data=data, **fields)

    def add_video(
        self,
        folder_id: int,
        name: str,
        *,
        media_id: str,
        id: int | None = None,
        filename: str | None = None,
        **fields: Any,
    ) -> LibraryFile:
        fields.setdefault("width", 640)
        fields.setdefault("height", 360)
        fields.setdefault("filesize", 10_000_000)
        filename = filename or f"{_slug(name)}.mp4"
        return self._add(folder_id, name, id, filename, media_id=media_id, **fields)

    def _add(
        self, folder_id: int, name: str, id: int | None, filename: str, **fields: Any
    ) -> LibraryFile:
        with self._lock:
            self._check_folder(folder_id)
            file_id = id if id is not None else max(self._files, default=0) + 1
            if file_id in self._files:
                raise ValueError(f"file {file_id} exists already")
            file = LibraryFile(file_id, folder_id, name, filename, **fields)
            self._files[file_id] = file
            return file

    def update(self, file_id: int, **changes: Any) -> LibraryFile:
        """Change fields of a file, e.g. ``alttext=...`` or ``folder_id=...``."""
        with self._lock:
            file = replace(self._get(file_id), **changes)
            self._check_folder(file.folder_id)
            self._files[file_id] = file
            return file

    def replace_data(
        self, file_id: int, data: bytes, *, uploaded: str | None = None
    ) -> LibraryFile:
        """Simulate an upstream change: new bytes, their pixel size, a new ``uploaded``."""
        width, height = imaging.size_of(data)
        return self.update(
            file_id,
            data=data,
            width=width,
            height=height,
            filesize=None,
            uploaded=uploaded or now_iso(),
        )

    def remove(self, file_id: int) -> None:
        with self._lock:
            self._get(file_id)
            del self._files[file_id]

    def _get(self, file_id: int) -> LibraryFile:
        file = self.file(file_id)
        if file is None:
            raise KeyError(f"no file {file_id} in the sandbox library")
        return file

    def _check_folder(self, folder_id: int) -> None:
        if folder_id not in self._folders:
            raise ValueError(f"no folder {folder_id} in the sandbox library; add it first")

    def __len__(self) -> int:
        with self._lock:
            return len(self._files)


def _slug(name: str) -> str:
    slug = "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")
    return "-".join(part for part in slug.split("-") if part) or "file"
