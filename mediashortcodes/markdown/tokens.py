"""The plugin's token types and the keys it keeps in tokens' meta and in ``env``."""

from __future__ import annotations

ENV_KEY = "mediashortcodes"
TOKEN = "media_shortcode"
BLOCK_TOKEN = "media_shortcode_block"
BLOCK = "mediashortcodes_block"  # paragraph meta: the paragraph holds only shortcodes
FOUND = "mediashortcodes_found"  # html_block meta: the shortcodes in its text
