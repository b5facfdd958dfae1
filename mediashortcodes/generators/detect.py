"""Which generator a site folder holds, and where it writes its HTML: what the generator's
config names, else its default (``public`` for Hugo, ``_site`` for the others)."""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

# The config files each generator reads, in the order it reads them.
HUGO = ("hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json", "config.toml", "config.yaml")
ELEVENTY = (
    "eleventy.config.js",
    "eleventy.config.mjs",
    "eleventy.config.cjs",
    ".eleventy.js",
)
JEKYLL = ("_config.yml", "_config.yaml", "_config.toml")

_YAML_KEY = r"^{key}:\s*['\"]?([^'\"#\n]+?)['\"]?\s*(?:#.*)?$"
# Eleventy's config is JavaScript: its output folder as most configs write it.
_ELEVENTY_OUTPUT = re.compile(r"\boutput\s*:\s*['\"]([^'\"]+)['\"]")


@dataclass(frozen=True)
class Generator:
    name: str  # "hugo", "eleventy", "jekyll", or "" (none recognised)
    config: Path | None  # the generator's config file
    output: str  # its output folder, relative to the site's folder


def detect(site: Path) -> Generator:
    """The generator of the site in ``site``: the first config file found decides."""
    for name, files, key in (("hugo", HUGO, "publishDir"), ("jekyll", JEKYLL, "destination")):
        for file_name in files:
            file = site / file_name
            if file.is_file():
                default = "public" if name == "hugo" else "_site"
                return Generator(name, file, _value(file, key) or default)
    for file_name in ELEVENTY:
        file = site / file_name
        if file.is_file():
            match = _ELEVENTY_OUTPUT.search(_text(file))
            return Generator("eleventy", file, match.group(1) if match else "_site")
    return Generator("", None, "_site")


def _text(file: Path) -> str:
    try:
        return file.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return ""


def _value(file: Path, key: str) -> str:
    """A top-level string setting of a TOML, JSON or YAML config ("" when absent)."""
    text = _text(file)
    try:
        if file.suffix == ".toml":
            value = tomllib.loads(text).get(key)
        elif file.suffix == ".json":
            value = json.loads(text).get(key)
        else:
            match = re.search(_YAML_KEY.format(key=key), text, re.MULTILINE)
            value = match.group(1) if match else None
    except (ValueError, AttributeError):
        return ""
    return value.strip() if isinstance(value, str) else ""
