"""Configuration: ``mediashortcodes.toml`` plus the environment (DESIGN.md). Credentials
come from the environment only; every key but the service URLs has a default.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from .errors import ConfigError

CONFIG_NAME = "mediashortcodes.toml"

ENV_CLIENT_ID = "MEDIASHORTCODES_CLIENT_ID"
ENV_CLIENT_SECRET = "MEDIASHORTCODES_CLIENT_SECRET"
ENV_REFRESH_TOKEN = "MEDIASHORTCODES_REFRESH_TOKEN"
ENV_BASE_URL = "MEDIASHORTCODES_BASE_URL"
ENV_PLAYER_URL = "MEDIASHORTCODES_PLAYER_URL"
ENV_STATIC_URL = "MEDIASHORTCODES_STATIC_URL"
ENV_CACHE_DIR = "MEDIASHORTCODES_CACHE_DIR"
ENV_CACHE_READ_ONLY = "MEDIASHORTCODES_CACHE_READ_ONLY"
ENV_CACHE_REMOTE = "MEDIASHORTCODES_CACHE_REMOTE"
ENV_CACHE_REMOTE_ENDPOINT = "MEDIASHORTCODES_CACHE_REMOTE_ENDPOINT"
ENV_CACHE_REMOTE_WRITE = "MEDIASHORTCODES_CACHE_REMOTE_WRITE"

# srcset widths: a wider one is a typo, not a screen, and each costs a download.
MAX_WIDTH = 8000
MAX_WIDTHS = 16
AUTO_WIDTHS = (320, 640, 960, 1280, 1920, 2560)  # widths = "auto", cut at the base's width
ENCODINGS = ("avif", "webp")  # [images] formats / formats=: the encodings made at build time
MAX_JOBS = 256  # requests at a time: [build] jobs and -j alike


@dataclass(frozen=True)
class Credentials:
    client_id: str
    client_secret: str = field(repr=False)
    refresh_token: str = field(repr=False)

    def secrets(self) -> tuple[str, ...]:
        return tuple(s for s in (self.client_secret, self.refresh_token) if s)


@dataclass(frozen=True)
class ServiceConfig:
    base_url: str = ""
    player_url: str = ""
    static_url: str = ""
    sandbox: bool = False
    download_url: str = ""  # set by the sandbox; a real service's download host is any https host
    # Hosts (besides the download host the service names) a downloadURL may point to.
    allowed_download_hosts: tuple[str, ...] = ()
    allow_http_downloads: bool = False
    timeout: float = 30.0
    # A whole image download, retries included: a link that trickles never stalls a build.
    download_timeout: float = 120.0
    max_retries: int = 5
    retry_total_seconds: float = 60.0

    @property
    def identity(self) -> str:
        """The service as the usage state names it (the sandbox's port changes each run)."""
        return "sandbox" if self.sandbox else self.base_url.rstrip("/")


@dataclass(frozen=True)
class SiteConfig:
    # No default: a made-up address would report pages of a site that is not ours.
    base_url: str = ""
    content: str = "content"
    templates: str = "templates"
    static: str = "static"
    output: str = "_site"
    media_dir: str = "media"


@dataclass(frozen=True)
class ImagesConfig:
    default_format: str = "original"
    gdpr: str = "warn"  # fail | warn | ignore
    warn_missing_alt: bool = True
    max_bytes: int = 50 * 1024 * 1024
    widths: tuple[int, ...] = ()  # srcset candidate widths of every image (docs/shortcodes.md)
    sizes: str = "100vw"
    formats: tuple[str, ...] = ()  # extra encodings in <picture>, best first (shortcodes.md)
    placeholder: str = "none"  # none | color | blur
    avif_quality: int = 50
    webp_quality: int = 75


@dataclass(frozen=True)
class BuildConfig:
    on_missing: str = "fail"  # fail | placeholder
    jobs: int = 16
    memo: bool = True  # reuse a page's HTML from an earlier build when no input changed


@dataclass(frozen=True)
class VideoConfig:
    embed: str = "iframe"  # iframe | script
    language: str = "sv"
    player_class: str = "MFPlayer"
    player_script: str = "mediaflowplayer.min.js"
    player_stylesheet: str = "mediaflowplayer.min.css"
    load: str = "eager"  # eager | click: nothing from the player's hosts before a click
    remember: bool = False  # click: a visitor's consent is kept for later embeds
    consent_text: str = "Playing this video loads the player from {host}."


@dataclass(frozen=True)
class UsageConfig:
    enabled: bool = True
    contact: str = ""
    project: str = ""
    description: str = ""
    amount: str = "1"
    state: str = ".mediashortcodes/usage-state.json"
    # The spec's sample sends removed as text ("true"); set true to send a JSON boolean.
    removed_as_bool: bool = False


@dataclass(frozen=True)
class CacheConfig:
    dir: str = ""
    # Metadata (file records, folder locations, formats) is re-checked after this long.
    metadata_ttl: int = 3600
    # Read the (restored) cache, never write it: for untrusted builds (fork pull requests).
    read_only: bool = False
    # The shared tier (docs/ci.md): an fsspec URL, an S3-compatible endpoint, whether this
    # (trusted) build may write it, and how long one call may take.
    remote: str = ""
    remote_endpoint: str = ""
    remote_write: bool = False
    remote_timeout: float = 10.0


@dataclass(frozen=True)
class Config:
    root: Path = field(default_factory=Path.cwd)
    service: ServiceConfig = field(default_factory=ServiceConfig)
    site: SiteConfig = field(default_factory=SiteConfig)
    images: ImagesConfig = field(default_factory=ImagesConfig)
    build: BuildConfig = field(default_factory=BuildConfig)
    video: VideoConfig = field(default_factory=VideoConfig)
    usage: UsageConfig = field(default_factory=UsageConfig)
    cache: CacheConfig = field(default_factory=CacheConfig)
    source: str = "<defaults>"

    def path(self, relative: str) -> Path:
        return (self.root / relative).resolve()

    @property
    def output_dir(self) -> Path:
        return self.path(self.site.output)

    @property
    def cache_dir(self) -> Path:
        env = os.environ.get(ENV_CACHE_DIR)
        if env:
            return Path(env).expanduser().resolve()
        if self.cache.dir:
            return self.path(self.cache.dir)
        return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mediashortcodes"

    @property
    def usage_state_path(self) -> Path:
        return self.path(self.usage.state)

    def with_service(self, **changes: Any) -> Config:
        return replace(self, service=replace(self.service, **changes))


_SECTIONS: dict[str, type] = {
    "service": ServiceConfig,
    "site": SiteConfig,
    "images": ImagesConfig,
    "build": BuildConfig,
    "video": VideoConfig,
    "usage": UsageConfig,
    "cache": CacheConfig,
}

SECTION_NAMES = tuple(_SECTIONS)  # the TOML's tables, in order

_TYPE_NAMES = {int: "a whole number", float: "a number", bool: "true or false", str: "text"}


def remote_url_problem(url: str) -> str:
    """Why ``url`` cannot name the remote cache ("" if it can)."""
    parts = urlsplit(url)
    if not url:
        return ""
    if "://" not in url or not re.fullmatch(r"[a-z][a-z0-9+.-]*", parts.scheme):
        return "must be a URL such as s3://bucket/prefix"
    if "@" in parts.netloc or parts.query:
        return (
            "must not hold credentials: they come from the storage library's own chain "
            "(for s3://: the AWS_* environment variables, a profile, an instance role)"
        )
    return ""


def endpoint_url_problem(url: str) -> str:
    """Why ``url`` cannot be an S3-compatible endpoint ("" if it can)."""
    parts = urlsplit(url)
    if url and (parts.scheme not in ("http", "https") or not parts.netloc or "@" in parts.netloc):
        return "must be an http(s) URL without credentials, such as https://s3.example.com"
    return ""


def _positive(value: Any) -> str:
    return "" if value > 0 else f"must be greater than 0, got {value!r}"


def _not_negative(value: Any) -> str:
    return "" if value >= 0 else f"must be 0 or more, got {value!r}"


def _jobs(value: Any) -> str:
    return "" if 0 < value <= MAX_JOBS else f"must be from 1 to {MAX_JOBS} (as -j), got {value!r}"


def _one_of(*choices: str) -> Callable[[Any], str]:
    return lambda value: (
        "" if value in choices else f"must be one of {', '.join(choices)}; got {value!r}"
    )


def _quality(value: Any) -> str:
    return "" if 1 <= value <= 100 else f"must be from 1 to 100, got {value!r}"


def _encodings(value: Any) -> str:
    if all(v in ENCODINGS for v in value) and len(set(value)) == len(value):
        return ""
    return f'must list {" and/or ".join(ENCODINGS)}, each once, best first, like ["avif", "webp"]'


def _inside_output(value: str) -> str:
    path = PurePosixPath(value.replace("\\", "/"))
    if value.strip() and not path.is_absolute() and ".." not in path.parts:
        return ""
    return (
        'must be a folder inside the output, such as "media" (relative, without ".."), '
        f"got {value!r}"
    )


# A key's check beyond its type: "" or why not (a URL is not repeated: it may hold a secret).
_CHECKS: dict[tuple[str, str], Callable[[Any], str]] = {
    ("service", "timeout"): _positive,
    ("service", "download_timeout"): _positive,
    ("service", "max_retries"): _not_negative,
    ("service", "retry_total_seconds"): _not_negative,
    ("site", "media_dir"): _inside_output,
    ("images", "gdpr"): _one_of("fail", "warn", "ignore"),
    ("images", "max_bytes"): _positive,
    ("images", "formats"): _encodings,
    ("images", "placeholder"): _one_of("none", "color", "blur"),
    ("images", "avif_quality"): _quality,
    ("images", "webp_quality"): _quality,
    ("build", "on_missing"): _one_of("fail", "placeholder"),
    ("build", "jobs"): _jobs,
    ("video", "embed"): _one_of("iframe", "script"),
    ("video", "load"): _one_of("eager", "click"),
    ("cache", "metadata_ttl"): _not_negative,
    ("cache", "remote"): remote_url_problem,
    ("cache", "remote_endpoint"): endpoint_url_problem,
    ("cache", "remote_timeout"): _positive,
}


def _check_value(name: str, key: str, value: Any, source: str) -> None:
    problem = _CHECKS[name, key](value) if (name, key) in _CHECKS else ""
    if problem:
        raise ConfigError(f"{source}: [{name}] {key} {problem}")


def _widths(value: Any, source: str, what: str) -> tuple[int, ...]:
    if (
        not isinstance(value, list)
        or len(value) > MAX_WIDTHS
        or not all(
            isinstance(v, int) and not isinstance(v, bool) and 0 < v <= MAX_WIDTH for v in value
        )
    ):
        raise ConfigError(
            f"{source}: {what} must be a list of at most {MAX_WIDTHS} pixel widths from 1 to "
            f'{MAX_WIDTH}, like [480, 960, 1440], or "auto" ([] for no srcset), got {value!r}'
        )
    return tuple(sorted(set(value)))


def _section(name: str, cls: type, data: Any, where: Callable[[str, str], str]) -> Any:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where(name, '')}: [{name}] must be a table")
    known = {f.name: f for f in fields(cls)}
    values: dict[str, Any] = {}
    for key, value in data.items():
        source = where(name, key)
        if key not in known:
            raise ConfigError(
                f"{source}: unknown key {key!r} in [{name}]; known keys: {', '.join(known)}"
            )
        default = getattr(cls(), key)
        expected = type(default)
        if (name, key) == ("images", "widths"):  # the one list of numbers (or "auto")
            value = AUTO_WIDTHS if value == "auto" else _widths(value, source, f"[{name}] {key}")
        elif isinstance(default, tuple):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{source}: [{name}] {key} must be a list of strings")
            value = tuple(value)
        elif expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        elif not isinstance(value, expected) or (
            expected in (int, float) and isinstance(value, bool)
        ):
            raise ConfigError(
                f"{source}: [{name}] {key} must be {_TYPE_NAMES[expected]}, got {value!r}"
            )
        _check_value(name, key, value, source)
        values[key] = value
    return cls(**values)


def from_mapping(
    data: Mapping[str, Any], root: Path, source: str = "<settings>", text: str = ""
) -> Config:
    """A Config from the TOML's keys (or Django's MEDIASHORTCODES); ``text``, the TOML,
    lets an error name its key's line."""
    lines = _key_lines(text)

    def where(section: str, key: str) -> str:
        line = lines.get((section, key)) or lines.get((section, ""))
        return f"{source}:{line}" if line else source

    sections: dict[str, Any] = {}
    for name, value in data.items():
        if name not in _SECTIONS:
            raise ConfigError(
                f"{where(name, '')}: unknown section [{name}]; known sections: "
                f"{', '.join(_SECTIONS)}"
            )
        sections[name] = _section(name, _SECTIONS[name], value, where)
    config = Config(root=root.resolve(), source=source, **sections)
    return apply_env(config)


_TABLE = re.compile(r"\s*\[\s*([A-Za-z0-9_-]+)\s*\]\s*(?:#.*)?$")
_KEY = re.compile(r"\s*([A-Za-z0-9_-]+)\s*=")


def _key_lines(text: str) -> dict[tuple[str, str], int]:
    """The line of each ``[section]`` and ``key =`` of a plain TOML file (best effort)."""
    found: dict[tuple[str, str], int] = {}
    section = ""
    for number, line in enumerate(text.splitlines(), start=1):
        if table := _TABLE.match(line):
            section = table[1]
            found.setdefault((section, ""), number)
        elif section and (key := _KEY.match(line)):
            found.setdefault((section, key[1]), number)
    return found


_TRUTHS = {
    **dict.fromkeys(("1", "true", "yes", "on"), True),
    **dict.fromkeys(("0", "false", "no", "off"), False),
}
_ENV_VALUES = (
    ("service", "base_url", ENV_BASE_URL),
    ("service", "player_url", ENV_PLAYER_URL),
    ("service", "static_url", ENV_STATIC_URL),
    ("cache", "remote", ENV_CACHE_REMOTE),
    ("cache", "remote_endpoint", ENV_CACHE_REMOTE_ENDPOINT),
)
_ENV_FLAGS = (("read_only", ENV_CACHE_READ_ONLY), ("remote_write", ENV_CACHE_REMOTE_WRITE))


def apply_env(config: Config) -> Config:
    """The service URLs and cache settings from the environment, checked like the file's."""
    changes: dict[str, dict[str, Any]] = {"service": {}, "cache": {}}
    for name, key, var in _ENV_VALUES:
        if value := os.environ.get(var, "").strip():
            _check_value(name, key, value, var)
            changes[name][key] = value
    for key, var in _ENV_FLAGS:
        if flag := os.environ.get(var, "").strip().lower():
            if flag not in _TRUTHS:
                raise ConfigError(
                    f"{var} must be 1, true, yes or on (or 0, false, no, off), "
                    f"got {os.environ[var]!r}"
                )
            changes["cache"][key] = _TRUTHS[flag]
    return replace(config, **{n: replace(getattr(config, n), **c) for n, c in changes.items()})


def load(site: str | Path | None = None) -> Config:
    """Load ``mediashortcodes.toml`` from the site folder (or the file); none: defaults."""
    path = Path(site or ".")
    if path.is_dir():
        root, file = path, path / CONFIG_NAME
    elif path.name.endswith(".toml"):
        root, file = path.parent, path
    else:
        raise ConfigError(
            f"{path}: no such site directory; pass the folder that holds {CONFIG_NAME}"
        )
    if not file.exists():
        return apply_env(Config(root=root.resolve(), source=str(file)))
    data, text = read_toml(file)
    return from_mapping(data, root, source=str(file), text=text)


def read_toml(file: Path) -> tuple[dict[str, Any], str]:
    """The TOML's sections and text."""
    try:
        text = file.read_text(encoding="utf-8-sig")  # a BOM, as Windows editors write it
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: invalid TOML: {exc}; fix the file and run again") from None
    except OSError as exc:
        raise ConfigError(f"{file}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{file}: not UTF-8 text ({exc.reason}); save it as UTF-8") from None


def require_service_urls(config: Config) -> None:
    """A ConfigError naming what to set when the API's URL is missing."""
    _require_urls(config, (("base_url", ENV_BASE_URL),), "")


def require_embed_urls(config: Config, video_at: str) -> None:
    """A ConfigError naming what to set when the video at ``video_at`` lacks the player or
    static URL."""
    _require_urls(
        config,
        (("player_url", ENV_PLAYER_URL), ("static_url", ENV_STATIC_URL)),
        f" to embed videos (the first is at {video_at})",
    )


def _require_urls(config: Config, keys: tuple[tuple[str, str], ...], purpose: str) -> None:
    if config.service.sandbox:
        return
    where = _shown_source(config)
    for key, var in keys:
        if not getattr(config.service, key):
            raise ConfigError(
                f"no service {key}{purpose}: set [service] {key} in {where} or the environment "
                f"variable {var} (or set [service] sandbox = true to use the local sandbox)"
            )


def with_site_base_url(config: Config, base_url: str) -> Config:
    """``config`` with ``[site] base_url`` replaced for one build (a deploy preview)."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(
            "--base-url must be an absolute http(s) URL such as https://preview.example.org, "
            f"got {base_url!r}"
        )
    return replace(config, site=replace(config.site, base_url=base_url))


def require_site_base_url(config: Config) -> None:
    """Refuse to report usage for a site without a public address."""
    if config.site.base_url.strip():
        return
    raise ConfigError(
        f"[site] base_url is not set in {_shown_source(config)}: usage is reported per page "
        "URL, so reporting needs the site's public address; set it there, for example "
        '[site] base_url = "https://www.your-site.example"'
    )


def _shown_source(config: Config) -> str:
    where = config.source
    if where.endswith(".toml") and not Path(where).exists():
        where += " (create it)"
    return where


def credentials_from_env() -> Credentials:
    """The three credentials; the missing ones are named, all in one message."""
    names = (ENV_CLIENT_ID, ENV_CLIENT_SECRET, ENV_REFRESH_TOKEN)
    values = {var: os.environ.get(var, "").strip() for var in names}
    missing = [var for var in names if not values[var]]
    if missing:
        plural = "s" if len(missing) > 1 else ""
        listed = ", ".join(missing[:-1]) + " and " if plural else ""
        raise ConfigError(
            f"missing credential{plural}: set the environment variable{plural} "
            f"{listed}{missing[-1]} (credentials come from the environment, never from files)"
        )
    return Credentials(values[ENV_CLIENT_ID], values[ENV_CLIENT_SECRET], values[ENV_REFRESH_TOKEN])
