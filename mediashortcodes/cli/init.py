"""CLI: ``init``, a new site."""

from __future__ import annotations

from pathlib import Path

import click

from ..site.scaffold import write_new_site
from .base import cli


@cli.command(short_help="Write a minimal working site into DIR.")
@click.argument(
    "folder", metavar="[DIR]", required=False, default=".", type=click.Path(path_type=Path)
)
def init(folder: Path) -> None:
    """Write a minimal working site into DIR (default: the current directory): a config that
    builds against the built-in sandbox, a layout, a stylesheet, a page with an image and a
    video, and a .gitignore. Nothing is overwritten: if any of these files exists, nothing is
    written."""
    for path in write_new_site(folder):
        click.echo(f"wrote {path}")
    where = "" if folder == Path(".") else f" {folder}"
    click.echo(f"Next: mediashortcodes serve{where}   (then edit content/index.md)")
