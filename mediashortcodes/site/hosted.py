"""What MkDocs, Pelican, Sphinx and the generators' ``finish`` share around the one
pipeline."""

from __future__ import annotations

import html as htmllib
import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from ..config import CONFIG_NAME, Config, from_mapping, read_toml
from ..errors import ConfigError, ContentError
from ..fileio import Confined, write_atomic
from ..usage.manifest import MANIFEST_NAME
from .pipeline import Pipeline, Resolved, depth_prefix


def resolved_for_host(
    pipeline: Pipeline, *, keep_going: bool = False, sources: Mapping[str, str] | None = None
) -> Resolved:
    """Resolve every place at once; raise ContentError listing every problem (unless
    previewing, or ``keep_going`` and only files failed), naming each page's ``sources``."""
    try:
        resolved = pipeline.resolve(depth_prefix("", pipeline.config.site.media_dir))
        for i, problem in enumerate(resolved.problems):
            if sources and (source := sources.get(problem.path)):
                message = f"{problem.message} (source: {source})"
                resolved.problems[i] = replace(problem, message=message)
        stops = resolved.found or not keep_going
        if resolved.problems and not pipeline.preview and stops:
            raise ContentError(resolved.problems)
    except BaseException:
        pipeline.close()
        raise
    return resolved


def host_config(
    options: Mapping[str, object],
    root: Path,
    where: str,
    *,
    site_url: str,
    site_url_key: str,
    require_site_url: bool = True,
) -> Config:
    """The config of a host's site: ``options["config"]`` names the TOML file (default:
    ``root``'s), other keys are sections whose keys win over the file's; ``[site]
    base_url`` is the host's ``site_url`` (named ``site_url_key`` in errors)."""
    sections = {k: v for k, v in options.items() if k != "config"}
    named = options.get("config")
    file = root / str(named or CONFIG_NAME)
    found = file.is_file()
    if named and not found:
        raise ConfigError(f"{where}: config: {file} does not exist; create it or fix the path")
    data, text = read_toml(file) if found else ({}, "")
    for name, values in sections.items():
        if isinstance(values, Mapping) and isinstance(data.get(name), Mapping):
            values = {**data[name], **values}  # type: ignore[dict-item]
        if values is not None:
            data[name] = values
    source = (f"{file} and {where}" if sections else str(file)) if found else where
    config = from_mapping(data, root, source=source, text="" if sections else text)
    if site_url:
        return replace(config, site=replace(config.site, base_url=site_url))
    if require_site_url and config.usage.enabled:
        raise ConfigError(
            f"{site_url_key} is not set: the usage manifest lists every page by its public "
            f"address; set {site_url_key} (e.g. https://docs.example.org/), or turn usage off "
            f"with usage: {{enabled: false}} in {where}"
        )
    return config


_TAGS = re.compile(r"<[^>]*>")
_TITLE = re.compile(r"<title>(.*?)</title>", re.IGNORECASE | re.DOTALL)


def page_title(html: str, site_name: str = "") -> str:
    """A built page's title without the `` - site name`` themes add."""
    match = _TITLE.search(html)
    if match is None:
        return ""
    title = " ".join(htmllib.unescape(_TAGS.sub("", match.group(1))).split())
    suffix = f" - {site_name}"
    if site_name and title.endswith(suffix) and title != suffix.strip():
        title = title[: -len(suffix)]
    return title


def write_finished(
    site_dir: Path, build: Pipeline, resolved: Resolved, texts: dict[str, str], site_name: str = ""
) -> int:
    """Write the built pages ``texts`` (by output file), publish the media and write the
    manifest; the pages rewritten."""
    titles: dict[str, str] = {}
    rewritten = 0
    confined = Confined(site_dir, what="the built site")  # a page's folder may be a link
    for output_file, text in texts.items():
        html = resolved.html(text, output_file)
        titles[output_file] = page_title(html, site_name)
        if html != text:
            write_atomic(confined.file(output_file), html.encode("utf-8"))
            rewritten += 1
    resolved.publish(confined)
    if build.config.site.base_url:
        pages_used = [(p.url, titles.get(p.output_file, ""), p.used) for p in build.pages]
        resolved.manifest(pages_used).write_atomic(site_dir / MANIFEST_NAME)
    return rewritten
