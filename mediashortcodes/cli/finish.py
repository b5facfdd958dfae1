"""``mediashortcodes finish``: the media step of a site Zensical built (no plugins there)."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import ConfigError
from .base import cli


@cli.command("finish", short_help="Resolve the shortcodes of a site Zensical built.")
@click.argument("project", required=False, default=".", type=click.Path(path_type=Path))
@click.option("--offline", is_flag=True, help="Use only the cache; name every miss.")
@click.option("--refresh", is_flag=True, help="Re-check every file's metadata with the service.")
def finish(project: Path, offline: bool, refresh: bool) -> None:
    """Finish the site built from PROJECT (the folder of mkdocs.yml or zensical.toml) with
    the Python-Markdown extension: resolve every shortcode of every page at once, publish
    the media under site_dir, write site_dir/media-usage.json. Run it after `zensical build`.
    """
    from ..mkdocs.project import find_project
    from ..site.finish import finish_site
    from ..site.pages import display_path
    from ..site.pipeline import PageEntry

    found = find_project(project)
    if found is None:
        raise ConfigError(
            f"{project}: no mkdocs.yml or zensical.toml here; pass the project's folder"
        )
    config = found.config()
    pages = [PageEntry(p.output_file, p.url, display_path(p.source)) for p in found.pages()]
    resolved = finish_site(
        config, found.site_dir, pages, site_name=found.site_name, offline=offline, refresh=refresh
    )
    if resolved is None:
        click.echo(f"{found.site_dir}: already finished; nothing to do")
        return
    for warning in resolved.warnings:
        click.echo(warning, err=True)
    click.echo(resolved.result.summary())
