"""The markdown-it-py plugin: shortcodes in Markdown, with their real positions in the file
(usage: docs/shortcodes.md, *Markdown*). The rules are in :mod:`.plugin`; where shortcodes
sit in the document's structure and in the file, in :mod:`.blocks`."""

from __future__ import annotations

from .blocks import BLOCK_TOKEN, ENV_KEY, TOKEN
from .plugin import shortcodes_plugin

__all__ = ["BLOCK_TOKEN", "ENV_KEY", "TOKEN", "shortcodes_plugin"]
