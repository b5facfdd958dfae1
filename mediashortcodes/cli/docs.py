"""CLI: ``docs``, the documentation on the user's disk: the wheel ships docs/ (and the
changelog) as ``mediashortcodes/docs/``; a checkout has docs/ beside the package. Help texts
and messages name a doc as ``mediashortcodes docs NAME``."""

from __future__ import annotations

from pathlib import Path

import click

from .base import cli

_PACKAGE = Path(__file__).resolve().parents[1]
DOCS = next(
    (d for d in (_PACKAGE / "docs", _PACKAGE.parent / "docs") if d.is_dir()), _PACKAGE / "docs"
)


@cli.command(short_help="Print a doc, or list the docs and where they are.")
@click.argument("name", metavar="[NAME]", required=False)
def docs(name: str | None) -> None:
    """Print the doc NAME (e.g. `ci`: CI and the shared cache), or without NAME the folder
    that holds the docs, and each doc's name and title."""
    found = {path.stem: path for path in sorted(DOCS.glob("*.md"))}
    if name is None:
        click.echo(DOCS)
        for stem, path in found.items():
            title = path.read_text(encoding="utf-8").partition("\n")[0].lstrip("# ")
            click.echo(f"  {stem:<20} {title}")
    elif name.removesuffix(".md") in found:
        click.echo(found[name.removesuffix(".md")].read_text(encoding="utf-8"), nl=False)
    else:
        raise click.BadParameter(
            f"no doc {name!r}; the docs: {', '.join(found)}", param_hint="NAME"
        )
