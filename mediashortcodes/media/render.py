"""HTML for resolved shortcodes through Jinja templates (the site's, then the bundled ones).

Every value from the service or the author is untrusted: templates escape, script values
pass through ``tojson``, and a mediaId must match a strict pattern before it reaches a URL.
"""

from __future__ import annotations

import hashlib
import re
import traceback
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import jinja2
from jinja2 import meta
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError
from markupsafe import Markup

from .. import records
from ..client.redact import redact_urls_in
from ..config import ENV_PLAYER_URL, ENV_STATIC_URL, Config, VideoConfig
from ..errors import ConfigError, MediaShortcodesError, Problem, place
from ..jinja import template_path
from ..language.model import EMBED_VALUES as EMBEDS
from ..language.model import LOAD_VALUES as LOADS
from ..language.model import LOADING_VALUES as LOADING

if TYPE_CHECKING:
    from ..language import Location, Shortcode

__all__ = [
    "TEMPLATE_NAMES",
    "EmbedError",
    "RenderError",
    "Renderer",
    "ResolvedImage",
    "ResolvedVideo",
    "SiteTemplates",
    "default_templates_dir",
    "element_id",
    "failed_template_line",
]

IMAGE_TEMPLATE = "media_image.html"
FIGURE_TEMPLATE = "media_figure.html"
IFRAME_TEMPLATE = "media_video_iframe.html"
SCRIPT_TEMPLATE = "media_video_script.html"
PLACEHOLDER_TEMPLATE = "media_placeholder.html"
CLICK_TEMPLATE = "media_video_click.html"
CLICK_SCRIPT = "media_video_click.js"  # published once per site that has a click-to-load video
TEMPLATE_NAMES = (
    IMAGE_TEMPLATE,
    FIGURE_TEMPLATE,
    IFRAME_TEMPLATE,
    SCRIPT_TEMPLATE,
    PLACEHOLDER_TEMPLATE,
    CLICK_TEMPLATE,
)

MEDIA_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
LANGUAGE = re.compile(r"[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8})*")
JS_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
ASSET_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*")
SERVICE_URL = re.compile(r"https?://[^\s\"'<>\\`]+")
# Words that cannot name a JavaScript class, so a typo in the config fails here, not in a browser.
# fmt: off
_JS_RESERVED = frozenset({
    "await", "break", "case", "catch", "class", "const", "continue", "debugger", "default",
    "delete", "do", "else", "enum", "export", "extends", "false", "finally", "for", "function",
    "if", "implements", "import", "in", "instanceof", "interface", "let", "new", "null",
    "package", "private", "protected", "public", "return", "static", "super", "switch", "this",
    "throw", "true", "try", "typeof", "undefined", "var", "void", "while", "with", "yield",
})
# fmt: on
_PLACEHOLDER_MESSAGE_LIMIT = 500


class RenderError(MediaShortcodesError, ValueError):
    """A shortcode cannot be rendered; the builder reports it at the shortcode's location."""

    def __init__(self, message: str, location: Location | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.location = location

    def problem(self) -> Problem:
        """This error as a content problem at the shortcode's place in the source."""
        loc = self.location
        if loc is None:
            return Problem("<unknown>", 0, 0, self.message)
        return Problem(loc.path, loc.line, loc.col, self.message)


class EmbedError(RenderError):
    """A video cannot be embedded: no mediaId, an unsafe one, or a bad embed option."""


@dataclass(frozen=True)
class ResolvedImage:
    """An image variant published into the site, with the size of its real pixels."""

    file: records.File
    src: str  # URL of the published file, e.g. "/media/12-original-3fa9c1d2e4.jpg"
    width: int
    height: int
    # (URL, pixel width) of each srcset candidate, narrowest first, the base variant last;
    # empty: no srcset. sizes goes with it.
    srcset: tuple[tuple[str, int], ...] = ()
    sizes: str = ""
    # (MIME type, its srcset as above) of each <source> of a <picture>, best first
    sources: tuple[tuple[str, tuple[tuple[str, int], ...]], ...] = ()
    placeholder: str = ""  # CSS: a colour, or a data: URI (media/encode.py)


@dataclass(frozen=True)
class ResolvedVideo:
    """A video, with what a click-to-load embed publishes beside the page."""

    file: records.File
    media_url: str  # URL of the media directory (ends with "/"): the click script lives there
    poster: ResolvedImage | None = None  # the preview image, published; None: a placeholder


class SiteTemplates(ImmutableSandboxedEnvironment):
    """Jinja's sandbox, for every template a site gives (layouts, partials, shortcode
    templates): Python's internals (``__globals__``, ``__subclasses__``) and methods that
    change a value are out of reach, and reaching for one is an error, not a blank."""

    def unsafe_undefined(self, obj: Any, attribute: str) -> jinja2.Undefined:
        raise SecurityError(
            f"{attribute!r} is refused: templates run in a sandbox, without Python's internals "
            "or methods that change a value; use the documented variables and filters"
        )


def problem_note(problem: Problem) -> Markup:
    """A malformed shortcode's place and problem, escaped, styled as a placeholder (previews)."""
    return Markup(
        '<span class="mediashortcodes-missing" data-location="{loc}" style="display:'
        "inline-block;padding:.25em .5em;border:2px dashed #b00020;color:#b00020;"
        'background:#fff4f4;font:.875em/1.4 monospace">{loc}: {message}</span>'
    ).format(loc=place(problem.path, problem.line, problem.col), message=problem.message)


def default_templates_dir() -> Path:
    """The bundled templates: inside the package in a wheel, beside it in a source tree."""
    package = Path(__file__).resolve().parent.parent  # mediashortcodes/
    for candidate in (package / "templates", package.parent / "templates"):
        if (candidate / IMAGE_TEMPLATE).is_file():
            return candidate
    raise ConfigError(
        f"the default templates are missing (looked in {package / 'templates'} and "
        f"{package.parent / 'templates'}); reinstall mediashortcodes"
    )


def element_id(shortcode: Shortcode) -> str:
    """A page element id that is the same on every build of the same source."""
    loc = shortcode.location
    digest = hashlib.sha256(f"{loc.path}:{loc.line}:{loc.col}".encode()).hexdigest()[:8]
    return f"mediashortcodes-video-{shortcode.file_id}-{digest}"


class Renderer:
    """Renders resolved shortcodes with the site's templates first, then the bundled ones."""

    def __init__(
        self,
        video: VideoConfig,
        *,
        player_url: str,
        static_url: str,
        site_templates: Path | None = None,
        auto_reload: bool = True,
    ) -> None:
        """``auto_reload``: Jinja re-checks a template's file before each rendering (a live
        preview wants edits; a build, whose templates do not change, does not)."""
        self.video_config = _checked_video_config(video)
        self.player_url = _checked_url(player_url, "player_url")
        self.static_url = _checked_url(static_url, "static_url")
        self.site_templates = site_templates
        self._default_templates = default_templates_dir()
        loaders = [jinja2.FileSystemLoader(self._default_templates)]
        if site_templates is not None:
            loaders.insert(0, jinja2.FileSystemLoader(site_templates))
        self.environment = SiteTemplates(
            loader=jinja2.ChoiceLoader(loaders),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            auto_reload=auto_reload,
        )
        self._seeing: dict[str, bool] = {}
        self.click_script_used = False  # a click-to-load video was rendered: publish the script

    @classmethod
    def from_config(cls, config: Config) -> Renderer:
        """A renderer for a site: its [video] settings, service URLs and templates folder."""
        templates = config.path(config.site.templates)
        return cls(
            config.video,
            player_url=config.service.player_url,
            static_url=config.service.static_url,
            site_templates=templates if templates.is_dir() else None,
        )

    def render(
        self, shortcode: Shortcode, resolved: ResolvedImage | ResolvedVideo | records.File
    ) -> Markup:
        """Dispatch on what the resolver produced: a published image or a video."""
        if isinstance(resolved, ResolvedImage):
            return self.image(shortcode, resolved)
        return self.video(shortcode, resolved)

    def image(self, shortcode: Shortcode, image: ResolvedImage) -> Markup:
        """``<img>`` with the real pixel size (in a ``<picture>`` with ``sources``), or a
        ``<figure>`` when there is a caption; ``media_url``: the URL alone."""
        if shortcode.is_url:
            return Markup.escape(image.src)
        priority = shortcode.priority
        loading = "eager" if priority else _option(shortcode, "loading", "lazy", LOADING)
        sizes = image.sizes or "100vw"
        if loading == "lazy" and shortcode.option("sizes") is None:
            sizes = f"auto, {sizes}"  # the browser knows a lazy image's laid-out width
        alt = shortcode.option("alt")
        caption = shortcode.option("caption") or None
        css_class = shortcode.option("class") or None
        context: dict[str, Any] = {
            "shortcode": shortcode,
            "file": image.file,
            "src": image.src,
            "alt": image.file.alttext if alt is None else alt,
            "width": image.width,
            "height": image.height,
            "loading": loading,
            "title": shortcode.option("title") or None,
            "css_class": None if caption else css_class,
            "caption": caption,
            "srcset": _srcset(image.srcset) or None,
            "sizes": sizes if image.srcset else None,
            "fetchpriority": "high" if priority else None,
            "sources": [(mime, _srcset(s, bool(image.srcset))) for mime, s in image.sources],
            "placeholder": image.placeholder or None,
        }
        img = self._render(IMAGE_TEMPLATE, context)
        if caption is None:
            return img
        return self._render(FIGURE_TEMPLATE, {**context, "css_class": css_class, "img": img})

    def preload(self, image: ResolvedImage) -> Markup:
        """``<link rel="preload">`` of a priority image, in its best format (a browser that
        cannot show that ``type`` skips it) with the same candidates and sizes."""
        kind, srcset = (image.sources or [("", image.srcset)])[0]
        return Markup('<link rel="preload" as="image" href="{}"{}{} fetchpriority="high">').format(
            srcset[-1][0] if srcset else image.src,
            Markup(' type="{}"').format(kind) if kind else "",
            Markup(' imagesrcset="{}" imagesizes="{}"').format(
                _srcset(srcset), image.sizes or "100vw"
            )
            if image.srcset
            else "",
        )

    def video(self, shortcode: Shortcode, video: ResolvedVideo | records.File) -> Markup:
        """The iframe or script embed of a video, or with ``load="click"`` the poster and
        button that insert it; refuses a missing or unsafe mediaId."""
        resolved = video if isinstance(video, ResolvedVideo) else None
        file = video if resolved is None else resolved.file
        media_id = file.media_id
        if media_id is None:
            raise EmbedError(
                f"file {file.id} is not a video (it has no mediaId); use media_image for images",
                shortcode.location,
            )
        if not MEDIA_ID.fullmatch(media_id):
            raise EmbedError(
                f"file {file.id} has a mediaId the service should not send "
                "(only letters, digits, - and _, at most 64); it was not embedded",
                shortcode.location,
            )
        embed = _option(shortcode, "embed", self.video_config.embed, EMBEDS)
        language = shortcode.option("lang") or self.video_config.language
        if not LANGUAGE.fullmatch(language):
            raise EmbedError(
                f"lang must be a language code such as sv or en-GB, not {language!r}",
                shortcode.location,
            )
        context: dict[str, Any] = {
            "shortcode": shortcode,
            "file": file,
            "media_id": media_id,
            "title": shortcode.option("title") or file.name or file.filename or f"Video {file.id}",
            "language": language,
        }
        script: dict[str, str] = {}
        if embed == "iframe":
            src = f"{self._require('player_url')}/ovp/11/{media_id}"
            eager = self._render(IFRAME_TEMPLATE, {**context, "src": src})
        else:
            static_url = self._require("static_url")
            script = {
                "element_id": element_id(shortcode),
                "player_class": self.video_config.player_class,
                "script_url": f"{static_url}/js/{self.video_config.player_script}",
                "stylesheet_url": f"{static_url}/css/{self.video_config.player_stylesheet}",
            }
            eager = self._render(SCRIPT_TEMPLATE, {**context, **script})
        if self.load(shortcode) == "eager":
            return eager
        if resolved is None:
            raise RenderError(
                'load="click" needs the media folder\'s URL (the click script is published '
                "there): render a ResolvedVideo",
                shortcode.location,
            )
        player_url = self._require("player_url")
        host = urlsplit(player_url).netloc
        poster = resolved.poster
        self.click_script_used = True
        context.update(
            eager=eager,
            player=script,  # a script embed's: the click script constructs its player
            poster_src=poster.src if poster else None,
            poster_width=poster.width if poster else None,
            poster_height=poster.height if poster else None,
            consent=self.video_config.consent_text.replace("{host}", host),
            host=host,
            link=f"{player_url}/ovp/11/{file.media_id}",
            script_src=resolved.media_url + self.click_script[0],
            remember=self.video_config.remember,
        )
        return self._render(CLICK_TEMPLATE, context)

    def load(self, shortcode: Shortcode) -> str:
        """``eager`` or ``click``: the shortcode's ``load=``, else ``[video] load``."""
        return _option(shortcode, "load", self.video_config.load, LOADS)

    @cached_property
    def click_script(self) -> tuple[str, bytes]:
        """The published name and bytes of the click-to-load script (a site's own
        ``media_video_click.js`` in its templates folder replaces the default)."""
        path = self._default_templates / CLICK_SCRIPT
        if self.site_templates is not None and (self.site_templates / CLICK_SCRIPT).is_file():
            path = self.site_templates / CLICK_SCRIPT
        data = path.read_bytes()
        return f"mediashortcodes-click-{hashlib.sha256(data).hexdigest()[:10]}.js", data

    def placeholder(self, shortcode: Shortcode, message: str) -> Markup:
        """A visible stand-in for a shortcode that could not be resolved (on_missing)."""
        text = redact_urls_in(message)
        if len(text) > _PLACEHOLDER_MESSAGE_LIMIT:
            text = text[: _PLACEHOLDER_MESSAGE_LIMIT - 1] + "…"
        return self._render(
            PLACEHOLDER_TEMPLATE,
            {
                "shortcode": shortcode,
                "name": shortcode.name,
                "file_id": shortcode.file_id,
                "location": str(shortcode.location),
                "message": text,
            },
        )

    def element_id(self, shortcode: Shortcode) -> str | None:
        """The page element id in this shortcode's HTML: a script embed's, else None (a page
        showing it twice numbers the copies: ``site.markers.with_markers_replaced``)."""
        embed = shortcode.option("embed") or self.video_config.embed
        if shortcode.name == "media_video" and embed == "script":
            return element_id(shortcode)
        return None

    def same_everywhere(self, shortcode: Shortcode) -> bool:
        """Whether its HTML is the same wherever it is written (rendered once): not when its
        templates see the shortcode or include others, nor for a script embed (place-based id)."""
        if shortcode.name == "media_video":
            embed = shortcode.option("embed") or self.video_config.embed
            names: tuple[str, ...] = (IFRAME_TEMPLATE,) if embed == "iframe" else ()
            if names and self.load(shortcode) == "click":
                names += (CLICK_TEMPLATE,)
        else:
            names = (IMAGE_TEMPLATE, FIGURE_TEMPLATE)
        return bool(names) and not any(self._sees_shortcode(name) for name in names)

    def _sees_shortcode(self, name: str) -> bool:
        if name not in self._seeing:
            try:
                source, _, _ = self.environment.loader.get_source(  # type: ignore[union-attr]
                    self.environment, name
                )
                ast = self.environment.parse(source)
            except jinja2.TemplateError:
                self._seeing[name] = True  # rendering will report it
            else:
                self._seeing[name] = "shortcode" in meta.find_undeclared_variables(ast) or any(
                    True for _ in meta.find_referenced_templates(ast)
                )
        return self._seeing[name]

    def _require(self, key: str) -> str:
        value: str = getattr(self, key)
        if not value:
            raise ConfigError(
                f"no service {key} to embed videos with: set [service] {key} in "
                f"mediashortcodes.toml or the environment variable {_URL_VARIABLES[key]}"
            )
        return value

    def _render(self, name: str, context: dict[str, Any]) -> Markup:
        try:
            html = self.environment.get_template(name).render(context)
        except jinja2.TemplateError as exc:
            where = failed_template_line(exc)  # a syntax error's too
            place = f"{where[0]}:{where[1]}" if where else name
            raise ConfigError(f"{place}: {exc.message}; fix the template") from None
        return Markup(html.strip())


def _srcset(candidates: tuple[tuple[str, int], ...], described: bool = True) -> str:
    """A srcset's text; a comma or space in a URL is percent-encoded (they separate the
    candidates). Not ``described``: the one URL alone (an image without widths)."""
    urls = [url.replace(" ", "%20").replace(",", "%2C") for url, _ in candidates]
    if not described:
        return urls[-1]
    return ", ".join(f"{url} {width}w" for url, (_, width) in zip(urls, candidates, strict=True))


def failed_template_line(exc: BaseException) -> tuple[str, int] | None:
    """The template (its path as shown) and line ``exc`` was raised at: the innermost of the
    frames Jinja's rewritten traceback gives template lines; None outside a template."""
    tb = traceback.walk_tb(exc.__traceback__)
    lines = [(f.f_code.co_filename, n) for f, n in tb if "__jinja_exception__" in f.f_globals]
    return (template_path(None, lines[-1][0]), lines[-1][1]) if lines else None


def _option(shortcode: Shortcode, key: str, default: str, allowed: tuple[str, ...]) -> str:
    value = shortcode.option(key) or default
    if value not in allowed:
        error = RenderError if key == "loading" else EmbedError
        raise error(f"{key} must be {' or '.join(allowed)}, not {value!r}", shortcode.location)
    return value


_URL_VARIABLES = {"player_url": ENV_PLAYER_URL, "static_url": ENV_STATIC_URL}


def _checked_url(url: str, key: str) -> str:
    url = url.strip().rstrip("/")
    if url and not SERVICE_URL.fullmatch(url):
        raise ConfigError(f"[service] {key} must be an http(s) URL, got {url!r}")
    return url


def _checked_video_config(video: VideoConfig) -> VideoConfig:
    for key, allowed in (("embed", EMBEDS), ("load", LOADS)):
        value = getattr(video, key)
        if value not in allowed:
            raise ConfigError(f"[video] {key} must be {' or '.join(allowed)}, got {value!r}")
    if not LANGUAGE.fullmatch(video.language):
        raise ConfigError(
            f"[video] language must be a language code such as sv, got {video.language!r}"
        )
    if not JS_IDENTIFIER.fullmatch(video.player_class) or video.player_class in _JS_RESERVED:
        raise ConfigError(
            "[video] player_class must be the name of a JavaScript class such as MFPlayer, "
            f"got {video.player_class!r}"
        )
    for key in ("player_script", "player_stylesheet"):
        value = getattr(video, key)
        if not ASSET_NAME.fullmatch(value) or ".." in value.split("/"):
            raise ConfigError(
                f"[video] {key} must be a file name under the static host, got {value!r}"
            )
    return video
