"""Which files of ``content/`` the builder publishes beside the pages (pure).

A file of ``content/`` that is not a page (an image beside its page, a raw ``.html``, a PDF)
is published at the same path under the output, as Hugo publishes a page bundle's files:
beside ``content/blog/post/index.md`` (``/blog/post/``) its ``photo.jpg`` becomes
``/blog/post/photo.jpg``, so the page's ``![](photo.jpg)`` works in the editor and on the
site alike. Not published:

- a name an author keeps private: a part of its path starting with ``.`` (``.DS_Store``,
  ``.git/``) or ``_``, or an editor's backup (``page.md~``, ``#page.md#``);
- the files of a draft: those under a folder that holds a draft page and no published page
  at any depth (a draft bundle ``post/index.md``, or ``drafts/`` with only drafts in it).
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from pathlib import Path

from .pages import PageSource

__all__ = ["draft_folders", "is_private", "resources_of"]


def is_private(name: str) -> bool:
    """Whether the content file ``name`` (a posix path under ``content/``) stays unpublished:
    hidden or ``_``-prefixed (in any folder of its path), or an editor's backup."""
    parts = name.split("/")
    last = parts[-1]
    return any(part[:1] in (".", "_") for part in parts) or last.endswith("~") or last[:1] == "#"


def _folders(name: str) -> list[str]:
    """The folders a posix path is in, innermost last: ``a/b/c.jpg`` -> ``["", "a", "a/b"]``."""
    parts = name.split("/")[:-1]
    return ["", *("/".join(parts[: i + 1]) for i in range(len(parts)))]


def draft_folders(pages: Iterable[PageSource], content_dir: Path) -> set[str]:
    """The folders (posix, ``""`` for the top) holding a draft page and no published page at
    any depth: what is in them belongs to drafts."""
    drafts: set[str] = set()
    published: set[str] = set()
    for page in pages:
        name = page.path.relative_to(content_dir).as_posix()
        if page.draft:
            drafts.add(_folders(name)[-1])
        else:
            published.update(_folders(name))
    return drafts - published


def resources_of(names: Iterable[str], withheld: AbstractSet[str] = frozenset()) -> list[str]:
    """The files of ``names`` (posix paths under ``content/``, pages excluded) to publish:
    not private, not in a folder of ``withheld`` (:func:`draft_folders`)."""
    return [
        name
        for name in names
        if not is_private(name) and not any(f in withheld for f in _folders(name))
    ]
