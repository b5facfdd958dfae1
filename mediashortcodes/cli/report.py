"""``mediashortcodes report``: tell the service which pages use which files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from .. import config as config_module
from ..config import Config
from ..errors import EXIT_PROBLEMS
from .base import cli, jobs_option
from .output import Outcome, format_option, json_text, progress_bar, quiet, reported, warn


def run_report(config: Config, *, outcome: Outcome | None = None, **options: Any) -> None:
    """Report (``options`` of :func:`report_site`), print it, exit 1 when a page failed;
    with ``--format json``, the warnings and failures only, on stderr."""
    from ..usage.reporting import USAGES_PATH, report_site, usage_warnings

    warnings = usage_warnings(config)
    for warning in warnings:
        warn(warning)
    with progress_bar("reporting pages") as progress:
        result = report_site(config, progress=progress, **options)
    if outcome is not None:
        outcome.reported(result, warnings)
    stdout = outcome is None or not outcome.json
    for warning in result.warnings:
        warn(warning)
    if result.dry_run and stdout:
        for request in result.requests:
            click.echo(f"POST {USAGES_PATH} {json_text(request.body, indent=None)}")
    if not quiet() and stdout:
        click.echo(result.summary())
    if result.failed:
        click.echo("failed pages (run the report again to send them):", err=True)
        for failure in result.failed:
            click.echo(f"  {failure.url}: {failure.error}", err=True)
        raise click.exceptions.Exit(EXIT_PROBLEMS)


def site_config(site: Path) -> tuple[Config, Path | None]:
    """The config of SITE (MkDocs, Zensical, Pelican, a generator's or built-in) and where
    it is built."""
    from ..mkdocs.project import find_project

    project = find_project(site) if site.is_dir() else None
    if project is not None:
        return project.config(), project.site_dir
    if site.is_dir() and (site / "pelicanconf.py").is_file():
        from ..pelican import project_config

        found = project_config(site)
        if found is not None:
            return found
    from ..generators.detect import detect

    generator = detect(site) if site.is_dir() else None  # Hugo, Eleventy, Jekyll: their output
    built = site / generator.output if generator is not None and generator.name else None
    return config_module.load(site), built


@cli.command("report", short_help="Report which page uses which file to the service.")
@click.argument("site", required=False, default=".", type=click.Path(path_type=Path))
@click.option(
    "--dry-run", is_flag=True, help="Print the requests it would send; send nothing, keep state."
)
@click.option("--all", "send_all", is_flag=True, help="Send every page's files again.")
@click.option(
    "--previous",
    metavar="PATH_OR_URL",
    help="Diff against this manifest (the live site's media-usage.json) instead of the state.",
)
@click.option(
    "--previous-missing",
    type=click.Choice(["fail", "ok"]),
    default="fail",
    show_default=True,
    help="ok: a --previous that is not there (404, no such file: the first deploy) is no "
    "error; the report diffs against the usage state instead.",
)
@click.option(
    "--output",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where the build was written (default: [site] output, _site).",
)
@click.option(
    "--state",
    "state_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The last reported state (default: [usage] state, .mediashortcodes/usage-state.json).",
)
@jobs_option
@format_option
def report(site: Path, output: Path | None, output_format: str, **options: Any) -> None:
    """Report which files each page of the built SITE uses, and which it stopped using."""
    with reported("report", output_format) as outcome:
        config, built = site_config(site)
        run_report(config, output=output or built, outcome=outcome, **options)
