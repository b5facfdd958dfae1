"""CLI: ``finish``, the shortcodes of the HTML a generator (or Zensical) wrote resolved."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..cli.base import base_url_option, cli, keep_going_option
from ..cli.build import SITE, echo_outcome
from ..cli.output import Outcome, format_option, progress_bar, reported, say, warn
from ..errors import counted, display_path


@cli.command("finish", short_help="Resolve the shortcodes in the HTML a generator wrote.")
@SITE
@click.option(
    "--output",
    type=click.Path(file_okay=False, path_type=Path),
    help="The generator's output (default: what its config names, else public for Hugo, "
    "_site for the others).",
)
@click.option("--offline", is_flag=True, help="Use only the cache; name every miss.")
@click.option("--refresh", is_flag=True, help="Re-check every file's metadata with the service.")
@keep_going_option
@base_url_option
@format_option
def finish(
    site: str,
    output: Path | None,
    offline: bool,
    refresh: bool,
    keep_going: bool,
    base_url: str | None,
    output_format: str,
) -> None:
    """Resolve every shortcode of the site a generator (Hugo, Eleventy, Jekyll...) wrote for
    SITE (the folder of mediashortcodes.toml, or of a Zensical project's mkdocs.yml or
    zensical.toml), publish the media there and write media-usage.json. Run it after the
    generator; a second run over the same output changes nothing and sends nothing."""
    from ..generators.finish import finish_generated
    from ..mkdocs.project import find_project

    with reported("finish", output_format) as outcome:
        found = find_project(Path(site)) if output is None else None
        if found is not None:
            _finish_zensical(found, outcome, offline, refresh)
            return
        with progress_bar("resolving media"):
            done = finish_generated(Path(site), output, base_url, offline, refresh, keep_going)
        if done.resolved is None:
            say(f"{display_path(done.output)}: already finished; nothing to do")
            return
        outcome.built(done.result)
        echo_outcome(done.result)
        for note in done.notes():
            warn(note)
        say(f"finished {done.result.summary()}; {counted(done.rewritten, 'page')} rewritten")


def _finish_zensical(found: Any, outcome: Outcome, offline: bool, refresh: bool) -> None:
    """Zensical's finish: resolve the extension's ``<mediashortcodes-ref>`` elements."""
    from ..site.pipeline import PageEntry
    from .zensical import finish_site

    config = found.config()
    pages = [PageEntry(p.output_file, p.url, display_path(p.source)) for p in found.pages()]
    resolved = finish_site(
        config, found.site_dir, pages, site_name=found.site_name, offline=offline, refresh=refresh
    )
    if resolved is None:
        if not outcome.json:
            click.echo(f"{found.site_dir}: already finished; nothing to do")
        return
    outcome.built(resolved.result)
    for warning in resolved.warnings:
        click.echo(warning, err=True)
    if not outcome.json:
        click.echo(resolved.result.summary())
