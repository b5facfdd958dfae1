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
    # The site builds against the sandbox (Pillow, the sandbox extra); serve needs watchfiles.
    needs = ",".join(
        e for e, m in (("sandbox", "PIL"), ("serve", "watchfiles")) if not find_spec(m)
    )
    install = f"pip install 'mediashortcodes[{needs}]' (in a checkout: pip install -e '.[{needs}]')"
    if "sandbox" in needs:
        click.echo(f"Next: {install}, then mediashortcodes serve{where}")
    elif needs:
        out = folder / "_site"
        click.echo(f"Next: mediashortcodes build{where}   (writes {out}; for serve: {install})")
    else:
        click.echo(f"Next: mediashortcodes serve{where}   (then edit content/index.md)")
