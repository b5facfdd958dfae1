"""The Sphinx extension: ``extensions = ["mediashortcodes.sphinx"]`` in conf.py
(``pip install "mediashortcodes[sphinx]"``; MyST too, with myst-parser).

::

    .. media-image:: 101 thumb
       :alt: Dawn at the lake

    ```{media-image} 101 thumb
    :alt: Dawn at the lake
    ```

Settings come from ``mediashortcodes.toml`` beside conf.py (or ``mediashortcodes = {"config":
..., <the TOML's sections>}`` in conf.py); ``html_baseurl`` is the site's public address.
Sphinx reads the changed documents (in parallel with ``-j``), then writes; the extension
follows that:

- the directives (:mod:`.directives`) validate each shortcode, keep it in the environment
  per document and leave a node; a malformed one is a warning at its line;
- ``write-started``: every place of every document, read this time or not, is resolved at
  once (:mod:`.build`); a file that cannot be shown is a warning at its line and a
  placeholder on the page;
- ``html-page-context``: each page's markers become HTML linking the media from that page;
- ``build-finished``: the media are published under ``<outdir>/<media_dir>/`` and
  ``media-usage.json`` is written, listing every page (html: ``doc.html``; dirhtml: ``doc/``).
"""

from __future__ import annotations

from typing import Any

from .build import SETTING, SiteBuild
from .directives import (
    ImageDirective,
    VideoDirective,
    media_place,
    merge_info,
    purge_doc,
    skip,
    visit_html,
)

__all__ = ["setup"]

ENV_VERSION = 1  # the places' form in the pickled environment


def setup(app: Any) -> dict[str, Any]:
    build = SiteBuild()
    app.add_config_value(SETTING, {}, "", types=frozenset({dict}))
    app.add_node(
        media_place,
        html=(visit_html, None),
        **{fmt: (skip, None) for fmt in ("latex", "text", "man", "texinfo")},
    )
    app.add_directive("media-image", ImageDirective)
    app.add_directive("media-video", VideoDirective)
    app.connect("config-inited", build.config_inited)
    app.connect("env-purge-doc", purge_doc)
    app.connect("env-merge-info", merge_info)
    app.connect("write-started", build.write_started)
    app.connect("doctree-resolved", build.doctree_resolved)
    app.connect("html-page-context", build.page_context)
    app.connect("build-finished", build.build_finished)
    return {
        "version": "1",
        "env_version": ENV_VERSION,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
