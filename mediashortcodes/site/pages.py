"""Pages of the built-in builder: discovery, YAML front matter, pretty URLs. Line numbers
are the file's, front matter included: a problem points at the line the author sees."""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import yaml

from ..errors import ConfigError, Problem, counted, display_path, place
from .files import SourceFiles, folders_of, skipped_warning, source_files

DEFAULT_TEMPLATE = "page.html"


class PageError(ConfigError):
    """A page whose front matter or encoding cannot be read: exit 2, like a broken config."""

    def __init__(self, path: str, line: int, message: str) -> None:
        self.problem = Problem(path, line, 1, message, "page")
        super().__init__(f"{place(path, line, 0)}: {message}")  # line 0: the file as a whole


class PageErrors(ConfigError):
    """Every page that cannot be read or built, as one error (``head`` says which)."""

    def __init__(self, problems: list[Problem], head: str = "") -> None:
        self.problems = sorted(problems)
        head = head or f"{counted(len(problems), 'page')} cannot be read; fix them and run again"
        super().__init__("\n".join([head, *(str(p) for p in self.problems)]))


@dataclass(frozen=True)
class PageSource:
    path: Path  # absolute
    display_path: str  # what problems show: relative to the working directory when possible
    url_path: str  # "/blog/post/"
    front_matter: dict[str, Any]
    body: str
    body_start_line: int
    template_line: int  # where the front matter names the template

    @property
    def title(self) -> str:
        title = self.front_matter.get("title")
        return str(title) if title else re.sub("[-_]", " ", self.path.stem).capitalize()

    @property
    def template(self) -> str:
        return str(self.front_matter.get("template") or DEFAULT_TEMPLATE)

    @property
    def draft(self) -> bool:
        return self.front_matter.get("draft") is True  # load_page refused any non-boolean

    @property
    def url(self) -> str:
        """The page's path percent-encoded, as a link has it."""
        return quote(self.url_path, safe="/")

    @property
    def output_file(self) -> str:
        return self.url_path.strip("/") + "/index.html" if self.url_path != "/" else "index.html"


def url_path_for(relative: Path) -> str:
    parts = list(relative.with_suffix("").parts)
    if parts and parts[-1] == "index":
        parts.pop()
    return "/" + "".join(f"{part}/" for part in parts)


# libyaml's parser where PyYAML has it: yaml.safe_load's types, much faster.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_load_yaml = functools.partial(yaml.load, Loader=_LOADER)


def _refuse_anchors(raw: str, source: str) -> None:
    """Anchors and aliases (``&a``, ``*a``) repeat a value: nested, a few lines are
    gigabytes once a title is printed (an alias bomb). Front matter has no need of them."""
    if "&" not in raw:  # no anchor, so no alias either: no second pass over the text
        return
    for event in yaml.parse(raw, Loader=_LOADER):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise PageError(
                source,
                event.start_mark.line + 2,
                "YAML anchors and aliases (&name, *name) are not allowed in front matter; "
                "write each value out",
            )


def split_front_matter(text: str, source: str) -> tuple[dict[str, Any], str, int]:
    """Return (front matter, body, line number where the body starts)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != "---":
        return {}, text, 1
    end = next((i for i, line in enumerate(lines) if i and line.rstrip() in ("---", "...")), 0)
    if not end:
        raise PageError(source, 1, "front matter starts with --- but has no closing --- line")
    raw = "".join(lines[1:end])
    fix = "fix the block between the --- lines"
    try:
        _refuse_anchors(raw, source)
        data = _load_yaml(raw) if raw.strip() else {}
    except yaml.YAMLError as exc:
        # The context mark is where the broken part opens.
        mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 2
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise PageError(source, line, f"invalid YAML front matter: {problem}; {fix}") from None
    except (ValueError, OverflowError) as exc:  # a value that cannot be built: 2024-13-45
        line = _unbuildable_line(raw) + 1
        raise PageError(source, line, f"invalid value in the front matter: {exc}; {fix}") from None
    if not isinstance(data, dict):
        message = "front matter must be a mapping of keys to values (title: ..., template: ...)"
        raise PageError(source, 2, message)
    return data, "".join(lines[end + 1 :]), end + 2


def _unbuildable_line(raw: str) -> int:
    """The line (1 = the first after ---) whose value alone cannot be built, else 1."""
    for number, line in enumerate(raw.splitlines(), start=1):
        try:
            _load_yaml(line)
        except (ValueError, OverflowError):
            return number
        except yaml.YAMLError:
            continue  # only part of a value
    return 1


def key_line(text: str, key: str) -> int:
    """The line of a top-level ``key`` of the front matter ``text`` opens, else 1."""
    pattern = re.compile(rf"{re.escape(key)}\s*:")
    for number, line in enumerate(text.splitlines()[1:], start=2):
        if line.rstrip() in ("---", "..."):
            break
        if pattern.match(line):
            return number
    return 1


def load_page(path: Path, content_dir: Path, shown: str | None = None) -> PageSource:
    """``shown``: its :func:`display_path`, when the caller knows it already."""
    shown = shown or display_path(path)
    try:
        # utf-8-sig drops a byte order mark, which would hide the opening ---.
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PageError(shown, 1, f"not UTF-8 text ({exc.reason}); save it as UTF-8") from None
    except OSError as exc:  # no permission, a folder named like a page, a dangling symlink
        raise PageError(shown, 1, f"cannot read it: {exc.strerror or exc}") from None
    front, body, start = split_front_matter(text, shown)
    draft = front.get("draft", False)
    if not isinstance(draft, bool):
        raise PageError(
            shown,
            key_line(text, "draft"),
            f"draft must be true or false, not {'empty' if draft is None else repr(draft)}; "
            "write draft: true or draft: false, without quotes",
        )
    if not _is_date(front.get("date")):
        raise PageError(
            shown,
            key_line(text, "date"),
            f"date must be a date such as 2026-10-03 or 2026-10-03 14:30, not {front['date']!r}",
        )
    return PageSource(
        path=path,
        display_path=shown,
        url_path=url_path_for(path.relative_to(content_dir)),
        front_matter=front,
        body=body,
        body_start_line=start,
        template_line=key_line(text, "template") if "template" in front else 1,
    )


def _is_date(value: Any) -> bool:
    """None, a date YAML read, or ISO text such as "2026-10-03T14:30" (kept as written)."""
    try:
        return value is None or isinstance(value, date) or bool(datetime.fromisoformat(value))
    except (TypeError, ValueError):
        return False


def url_clashes(pages: list[PageSource], *, folded: bool = False) -> list[Problem]:
    """One problem per URL that several ``pages`` would be written to, naming them all;
    ``folded``: per set of URLs that differ only in letter case."""
    by_url: dict[str, list[PageSource]] = {}
    for page in pages:
        by_url.setdefault(page.url_path.casefold() if folded else page.url_path, []).append(page)
    problems = []
    for first, *others in (group for group in by_url.values() if len(group) > 1):
        names = " and ".join(p.display_path for p in others)
        message = (
            f"its URL {first.url_path} differs only in letter case from that of {names}: on "
            "Windows and macOS they are one folder, and one page would replace the other; "
            "rename all but one of them"
            if folded
            else f"same URL {first.url_path} as {names}; rename or move all but one of them"
        )
        # Line 0: the file as a whole, no line is to blame.
        problems.append(Problem(first.display_path, 0, 0, message, "url-clash"))
    return problems


# Names Windows keeps for devices, with or without an extension ("aux.md" -> the folder aux).
_RESERVED = {"con", "prn", "aux", "nul"} | {f"{d}{n}" for d in ("com", "lpt") for n in "0123456789"}
_NOT_IN_NAMES = re.compile(r'[<>:"|?*\\\x00-\x1f]')


def unportable_name(name: str) -> str | None:
    """Why Windows cannot have a file or folder called ``name`` (None: it can)."""
    if name.split(".", 1)[0].rstrip(" ").lower() in _RESERVED:
        return "is a device name Windows reserves"
    if name.endswith((".", " ")):
        return "ends with a dot or a space, which Windows drops"
    if _NOT_IN_NAMES.search(name):
        return 'holds a character Windows forbids in names (< > : " | ? * \\ or a control)'
    return None


def unportable_names(pages: list[PageSource]) -> list[Problem]:
    """One warning per page whose output folder Windows cannot create."""
    problems = []
    for page in pages:
        for part in page.url_path.strip("/").split("/"):
            why = unportable_name(part) if part else None
            if why:
                message = f"its output folder {part!r} {why}; rename it to build on Windows too"
                problems.append(Problem(page.display_path, 0, 0, message, "page"))
                break
    return problems


def list_pages(content_dir: Path, warnings: list[Problem], others: list[str]) -> SourceFiles:
    """The Markdown files under ``content_dir``; skipped links warn, other files are ``others``."""
    if not content_dir.is_dir():
        raise ConfigError(
            f"{display_path(content_dir)}: no content directory; create it or set "
            "[site] content in mediashortcodes.toml"
        )
    found = source_files(content_dir)
    others += [name for name in found.files if not name.endswith(".md")]
    found.files = [name for name in found.files if name.endswith(".md")]
    warnings += [skipped_warning(display_path(content_dir), name) for name in found.skipped]
    return found


def load_pages(content_dir: Path, names: list[str], problems: list[Problem]) -> list[PageSource]:
    """The pages ``names`` (posix paths under it); the unreadable into ``problems``."""
    pages = []
    folder = display_path(content_dir)  # once: relpath for each page is slow
    for name in names:
        path = content_dir / name
        shown = os.path.normpath(os.path.join(folder, *name.split("/")))
        if os.path.isabs(shown) or shown.startswith(".."):  # not below the working directory
            shown = display_path(path)
        try:
            # A dots-only part of its URL would write its HTML outside its folder.
            if any(not part.strip(".") for part in name[: -len(".md")].split("/")):
                raise PageError(
                    shown,
                    0,
                    "a page's name or folder cannot be dots only: its HTML would be written "
                    "outside its folder (or over another page); rename it",
                )
            pages.append(load_page(path, content_dir, shown))
        except PageError as exc:
            problems.append(exc.problem)
    return pages


def draft_folders(pages: list[PageSource], content_dir: Path) -> set[str]:
    """The folders (posix, ``""`` for the top) holding drafts and no published page."""
    drafts: set[str] = set()
    published: set[str] = set()
    if not any(page.draft for page in pages):
        return drafts  # no draft, no such folder: the paths are not worked out
    for page in pages:
        name = page.path.relative_to(content_dir).as_posix()
        if page.draft:
            drafts.add(folders_of(name)[-1])
        else:
            published.update(folders_of(name))
    return drafts - published
