"""The small sites the host tests build, and how they run and look at them."""

from __future__ import annotations

import re
import subprocess
import sys
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

BIN = Path(sys.executable).parent

# A small Material site: front matter, shortcodes in text, a list, a table, an admonition,
# a heading, a block quote, code that must stay code, and a page two folders down.
PAGES = {
    "index.md": """\
---
title: Home
---

# Welcome

<% media_image 101 %>

Text with <% media_image 102 alt="A meadow" formats=webp %> inside.

<% media_video 201 %>

`<% media_image 999 %>` is how a shortcode is written.
""",
    "guide/setup.md": """\
# Setup <% media_image 104 %>

* A list item <% media_image 101 "thumb" %>

| Photo | Note |
|---|---|
| <% media_image 102 %> | a table cell |

!!! note "In an admonition"
    <% media_image 103 caption="A figure" %>

> Quoted <% media_image 105
> alt="over two lines" %>

```python
print("<% media_image 998 %>")
```
""",
    "guide/deeper/page.md": "# Deeper\n\n<% media_image 101 %>\n",
    "plain.md": "# No shortcodes\n\nJust text.\n",
}


def service_options(sandbox: Any) -> dict[str, str]:
    return {
        "base_url": sandbox.base_url,
        "download_url": sandbox.download_url,
        "player_url": sandbox.player_url,
        "static_url": sandbox.static_url,
    }


def write_files(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def mkdocs_yml(
    sandbox: Any, *, site_url: str = "https://example.org/docs/", extra: str = ""
) -> str:
    service = ", ".join(f'{k}: "{v}"' for k, v in service_options(sandbox).items())
    site = f"site_url: {site_url}\n" if site_url else ""
    return f"""\
site_name: Magazine
{site}theme:
  name: material
plugins:
  - search
  - mediashortcodes:
      service: {{{service}}}
      usage: {{contact: "web@example.org", project: "Docs"}}
markdown_extensions:
  - admonition
  - pymdownx.superfences
  - mediashortcodes.pymarkdown
{extra}"""


def run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A host's command (mkdocs, zensical, pelican, mediashortcodes) from this environment."""
    command = [str(BIN / args[0]), *args[1:]]
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def requests(sandbox: Any) -> int:
    return sum(sandbox.stats.values())


_SRC = re.compile(r'<(?:img|video)\b[^>]*?\s(?:src|poster)="([^"]+)"')


def media_links(html: str) -> list[str]:
    return [unescape(m) for m in _SRC.findall(html)]


def broken_media(site_dir: Path, site_path: str = "/") -> list[str]:
    """Every ``<img src>`` of every page that does not lead to a published file, resolved as
    a browser does from the page's own address (root-relative ones under ``site_path``)."""
    broken = []
    for page in site_dir.rglob("*.html"):
        folder = page.parent.relative_to(site_dir).as_posix()
        for link in media_links(page.read_text(encoding="utf-8")):
            if urlsplit(link).scheme:
                continue
            if link.startswith("/"):
                assert link.startswith(site_path), link
                target = site_dir / link[len(site_path) :]
            else:
                target = site_dir / folder / link
            if not target.resolve().is_file():
                broken.append(f"{page.relative_to(site_dir)}: {link}")
    return broken


def pictures(html: str) -> list[str]:
    """Each ``<source>`` URL of each ``<picture>`` (a ``formats=`` image)."""
    sources = re.findall(r"<source [^>]*srcset=\"([^\"]+)\"", html)
    return [c.split()[0] for srcset in sources for c in unescape(srcset).split(", ")]


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def mkdocs_project(root: Path, sandbox: Any, pages: dict[str, str] = PAGES, **yml: Any) -> Path:
    """A MkDocs project at ``root``: ``pages`` under docs/ and its mkdocs.yml."""
    write_files(root / "docs", pages)
    write_files(root, {"mkdocs.yml": mkdocs_yml(sandbox, **yml)})
    return root
