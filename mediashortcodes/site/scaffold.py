"""``mediashortcodes init``: a minimal site that builds as it is against the embedded
sandbox, written only where none of its files exists yet."""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigError

CONFIG = """\
# The site's settings; every key and its default: mediashortcodes docs configuration.

[service]
# The built-in sandbox: a local stand-in for the Media Asset Service with a demo library,
# no account and no credentials. For the real service, delete this line and set its URLs
# below; the credentials come from the environment, never from this file:
# MEDIASHORTCODES_CLIENT_ID, MEDIASHORTCODES_CLIENT_SECRET, MEDIASHORTCODES_REFRESH_TOKEN.
sandbox = true
# base_url   = "https://api.example.com"
# player_url = "https://player.example.com"   # these two only where a page embeds a video
# static_url = "https://static.example.com"

[site]
# The public address of the built site: usage reports name each page by it, so set it
# before the first `mediashortcodes report` (or `build --report`).
# base_url = "https://www.example.org"
output = "_site"

[usage]
# Who the service's editors can ask about this site's use of their files.
# contact = "web@example.org"
# project = "Our website"
"""

LAYOUT = """\
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ page.title }}</title>
<link rel="stylesheet" href="/style.css">
</head>
<body>
<nav>
{%- for item in site.pages|sort(attribute="url") %}
  <a href="{{ item.url }}"
     {%- if item.url == page.url %} aria-current="page"{% endif %}>{{ item.title }}</a>
{%- endfor %}
</nav>
<main>
<h1>{{ page.title }}</h1>
{{ page.content }}
</main>
</body>
</html>
"""

STYLE = """\
body { margin: 0; font: 17px/1.6 system-ui, sans-serif; color: #1d2733; background: #fbfaf7; }
nav { display: flex; gap: 1rem; padding: .75rem 1.5rem; border-bottom: 1px solid #e4e1da; }
nav a { color: #5b6776; text-decoration: none; }
nav a[aria-current="page"] { color: #2f6f8f; font-weight: 600; }
main { max-width: 48rem; margin: 0 auto; padding: 1.5rem; }
img, iframe { max-width: 100%; }
img { height: auto; }
figcaption { color: #5b6776; font-size: .9rem; }
"""

HOME = """\
---
title: Welcome
---

This site was made by `mediashortcodes init`. Run `mediashortcodes serve` in its folder,
open the address it prints, and edit this file: the page follows every save.

An image from the service, in its predefined format "medium", with a caption:

<% media_image 101 medium caption="Dawn at the mountain lake" %>

A video, as the service's player (here the sandbox's, which `mediashortcodes serve` runs
at http://127.0.0.1:8766):

<% media_video 201 %>

Find other files with `mediashortcodes pick` (a page to browse and copy shortcodes) or
`mediashortcodes search QUERY`. Publish with `mediashortcodes build`: the site is written
to `_site/`. Viewed through another web server, its videos play while
`mediashortcodes sandbox` runs, which serves the same player at the same address.
"""

GITIGNORE = """\
# mediashortcodes: the built site, the previews of `mediashortcodes serve`, and locks.
# Keep .mediashortcodes/usage-state.json (and a .journal a killed report left beside it):
# it is what the service was last told.
/_site/
/.mediashortcodes/serve-*/
/.mediashortcodes/*.lock
"""

NEW_SITE: dict[str, str] = {
    "mediashortcodes.toml": CONFIG,
    "templates/page.html": LAYOUT,
    "static/style.css": STYLE,
    "content/index.md": HOME,
    ".gitignore": GITIGNORE,
}


def write_new_site(folder: Path) -> list[Path]:
    """Write :data:`NEW_SITE` into ``folder`` (made if missing); the files written."""
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"{folder} exists and is not a folder; choose a new folder for the site")
    there = [name for name in NEW_SITE if (folder / name).exists() or (folder / name).is_symlink()]
    if there:
        raise ConfigError(
            f"{folder} already has {', '.join(there)}; init never overwrites a file: choose a "
            "new or empty folder (mediashortcodes init DIR), or move these away"
        )
    written = []
    for name, text in NEW_SITE.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("x", encoding="utf-8") as file:  # "x": never over a file made meanwhile
            file.write(text)
        written.append(path)
    return written
