"""The ``media-image`` and ``media-video`` directives (reStructuredText, and MyST's fenced
directives): the shortcode's arguments as the directive's, its keys as the options.

A directive validates its shortcode as the language does and leaves a :class:`media_place`
node; the shortcode itself is kept in the Sphinx environment, per document (so a build that
reads only the changed documents still knows every place of the site, and parallel reads
merge theirs). A malformed one is a Sphinx warning at its line and a visible note.
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from ..language import IMAGE, VIDEO, Location, Shortcode, build, format_shortcode
from ..language.model import KEYS
from ..media.render import problem_note

logger = logging.getLogger(__name__)

PLACES = "mediashortcodes_places"  # the environment's attribute: docname -> its places

# A place as the environment keeps it (plain values: pickled with the environment).
Place = tuple[str, int, "str | None", tuple[tuple[str, str], ...], str, int]


class media_place(nodes.General, nodes.Element):  # docutils names its nodes so
    """Where a shortcode's HTML goes: ``place`` is its index in the places of the document
    ``docname`` (singlehtml puts every document in one); the build sets ``marker``, or
    ``html`` holds a malformed one's note."""


def places(env: Any) -> dict[str, list[Place]]:
    """Every document's places, kept in the environment."""
    if not hasattr(env, PLACES):
        setattr(env, PLACES, {})
    return getattr(env, PLACES)  # type: ignore[no-any-return]


def shortcode_of(place: Place) -> Shortcode:
    name, file_id, format, options, path, line = place
    source = format_shortcode(name, file_id, format, options)
    return Shortcode(name, file_id, format, options, Location(path, line, 0), source)


def _unquoted(text: str) -> str:
    """A FORMAT written quoted, as in a shortcode (``"Wide thumb"``), without its quotes."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1].replace("\\" + text[0], text[0]).replace("\\\\", "\\")
    return text


class _MediaDirective(SphinxDirective):
    shortcode = IMAGE  # (docutils sets ``name``: the directive's name as written)
    has_content = False
    final_argument_whitespace = True

    def run(self) -> list[nodes.Node]:
        source, line = self.get_source_info()
        srcdir = str(self.env.srcdir)
        path = os.path.relpath(source, srcdir) if source.startswith(srcdir) else source
        location = Location(path.replace(os.sep, "/"), line or self.lineno, 0)
        format = _unquoted(self.arguments[1]) if len(self.arguments) > 1 else None
        shortcode, problems = build(
            self.shortcode, self.arguments[0], format, list(self.options.items()), location
        )
        if shortcode is None:
            for problem in problems:
                logger.warning(
                    problem.message, location=self.get_location(), type="mediashortcodes"
                )
            return [media_place(html="".join(str(problem_note(p)) for p in problems))]
        listed = places(self.env).setdefault(self.env.docname, [])
        sc = shortcode
        listed.append((sc.name, sc.file_id, sc.format, sc.options, location.path, location.line))
        return [media_place(docname=self.env.docname, place=len(listed) - 1)]


class ImageDirective(_MediaDirective):
    """``.. media-image:: ID [FORMAT]`` with the image shortcode's keys as options."""

    required_arguments = 1
    optional_arguments = 1
    option_spec: ClassVar[dict[str, Any]] = {key: directives.unchanged for key in KEYS[IMAGE]}


class VideoDirective(_MediaDirective):
    """``.. media-video:: ID`` with the video shortcode's keys as options."""

    shortcode = VIDEO
    required_arguments = 1
    optional_arguments = 0
    option_spec: ClassVar[dict[str, Any]] = {key: directives.unchanged for key in KEYS[VIDEO]}


def purge_doc(app: Any, env: Any, docname: str) -> None:
    places(env).pop(docname, None)


def merge_info(app: Any, env: Any, docnames: set[str], other: Any) -> None:
    """A parallel read's places, taken into the main environment."""
    theirs = places(other)
    places(env).update({name: theirs[name] for name in docnames if name in theirs})


def visit_html(translator: Any, node: media_place) -> None:
    translator.body.append(node.get("marker") or node.get("html") or "")
    raise nodes.SkipNode


def skip(translator: Any, node: media_place) -> None:
    raise nodes.SkipNode
