"""CLI: ``serve``, the live-reloading preview."""

from __future__ import annotations

from dataclasses import replace

import click

from ..cli.base import cli, jobs_option
from ..cli.build import SITE, load_site
from . import LOOPBACK  # the package alone: the server is imported when it runs


@cli.command(short_help="Preview the site on 127.0.0.1, rebuilt and reloaded on every save.")
@SITE
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    metavar="N",
    help="Port to serve on; 0 picks a free one.",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the site in a browser.")
@jobs_option
@click.option(
    "--bind",
    default=LOOPBACK,
    show_default=True,
    metavar="ADDRESS",
    help="Interface to listen on. Any other than 127.0.0.1 lets other machines see the preview.",
)
def serve(site: str, port: int, open_browser: bool, jobs: int | None, bind: str) -> None:
    """Build SITE, serve it on 127.0.0.1, and rebuild it and reload the open pages whenever a
    file in content/, templates/, static/ or mediashortcodes.toml changes.

    Pages are built into a folder of serve's own with URLs under the local address; the
    site's output is not touched and nothing is ever reported to the service.
    """
    from .session import serve as run

    config = load_site(site)
    if jobs is not None:
        config = replace(config, build=replace(config.build, jobs=jobs))
    if bind != LOOPBACK:
        click.echo(
            f"warning: serving on {bind}: other machines that reach it can see the preview",
            err=True,
        )
    try:
        run(
            config,
            port=port,
            host=bind,
            open_browser=open_browser,
            echo=lambda line: click.echo(line, err=True),
            banner=click.echo,
        )
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the usual way a preview ends, exit 0
        click.echo("Stopped.", err=True)
