"""``mediashortcodes pick``: the picker on 127.0.0.1 until Ctrl-C."""

from __future__ import annotations

from pathlib import Path

import click

from .. import config as config_module
from ..cli.base import cli, wait_until_interrupted
from .i18n import DEFAULT_LOCALE, LOCALES


@cli.command("pick", short_help="Browse files in a local page and copy their shortcodes.")
@click.argument("site", required=False, type=click.Path(path_type=Path), default=Path("."))
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="Port on 127.0.0.1; 0 picks a free one.",
)
@click.option("--no-browser", is_flag=True, help="Only print the address; do not open a browser.")
@click.option(
    "--locale",
    type=click.Choice(LOCALES),
    default=DEFAULT_LOCALE,
    show_default=True,
    help="Language of the page.",
)
def pick(site: Path, port: int, no_browser: bool, locale: str) -> None:
    """Browse the service's files in a local page and copy their shortcodes.

    The page talks only to this process, which holds the credentials; stop it with Ctrl-C.
    """
    from ..client.service import open_service
    from .launch import running_picker

    config = config_module.load(site)
    with (
        open_service(config) as (served, credentials),
        running_picker(served, credentials, port=port, locale=locale) as server,
    ):
        click.echo(f"Media picker running at {server.url}")
        click.echo("Press Ctrl-C to stop.")
        if not no_browser:
            import webbrowser  # costs ~5 ms at start

            webbrowser.open(server.url)
        try:
            wait_until_interrupted()
        except KeyboardInterrupt:
            click.echo("Stopped.")
