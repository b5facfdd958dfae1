"""CLI: ``init``, a new site."""

from __future__ import annotations

from importlib.util import find_spec
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
    if find_spec("watchfiles") is None:  # the serve extra is missing: a build still works
        click.echo(
            f"Next: mediashortcodes build{where}   (writes _site/; for serve, the live preview, "
            "install the serve extra: pip install 'mediashortcodes[serve]', or in a checkout "
            "pip install -e '.[serve]')"
        )
        return
    click.echo(f"Next: mediashortcodes serve{where}   (then edit content/index.md)")
