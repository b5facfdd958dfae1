"""The service commands: folders, files, search, formats, download; and the tables and JSON
they print, control characters escaped (names come from the service)."""

from __future__ import annotations

import contextlib
import os
import re
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.shell_completion import CompletionItem

from .. import config as config_module
from ..config import Config
from ..errors import EXIT_CONFIG, InvalidResponseError, NotFoundError, shown
from ..fileio import write_atomic
from ..records import Crop, File, Folder, FolderNode, Format, folder_tree
from .base import CommandError, cli, site_argument
from .output import json_text

if TYPE_CHECKING:  # the client (httpx) is imported when a command connects
    from ..client.sync_client import Client

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")


@contextmanager
def unknown_id_is_a_usage_error() -> Iterator[None]:
    """A FOLDER_ID or FILE_ID the service does not show is a wrong argument: exit 2."""
    try:
        yield
    except NotFoundError as exc:
        raise CommandError(str(exc), EXIT_CONFIG) from None


@contextmanager
def connected(site: Path) -> Iterator[tuple[Config, Client]]:
    """The config's service (the sandbox if configured) and a client on it."""
    from ..client.service import open_service
    from ..client.sync_client import sync_client_from_config

    with (
        open_service(config_module.load(site)) as (served, credentials),
        sync_client_from_config(served, credentials) as client,
    ):
        yield served, client


@cli.command()
@site_argument
@json_option
def folders(site: Path, as_json: bool) -> None:
    """List the folders this integration may see, as a tree."""
    with connected(site) as (_, client):
        found = client.folders()
    click.echo(to_json(found) if as_json else folders_text(found))


@cli.command()
@click.argument("folder_id", type=int)
@site_argument
@json_option
def files(folder_id: int, site: Path, as_json: bool) -> None:
    """List the files of folder FOLDER_ID."""
    with connected(site) as (_, client), unknown_id_is_a_usage_error():
        found = client.files(folder_id)
    click.echo(to_json(found) if as_json else files_text(found))


@cli.command()
@click.argument("query")
@site_argument
@json_option
def search(query: str, site: Path, as_json: bool) -> None:
    """Search files by a text QUERY."""
    if not query.strip():
        raise click.BadParameter("give a non-empty text to search for", param_hint="QUERY")
    with connected(site) as (_, client):
        found = client.search(query)
    click.echo(to_json(found) if as_json else files_text(found))


@cli.command()
@site_argument
@json_option
def formats(site: Path, as_json: bool) -> None:
    """List the predefined formats (ids and names usable as FORMAT)."""
    with connected(site) as (_, client):
        found = client.formats()
    click.echo(to_json(found) if as_json else formats_text(found))


def complete_format(
    ctx: click.Context, _param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """Complete FORMAT from the site's cache, never the service."""
    names = ["original"]
    with contextlib.suppress(Exception):  # no site, no cache: original alone
        from ..media.cache import cache_for

        config = config_module.load(ctx.params.get("site_flag") or ctx.params.get("site") or ".")
        cached = cache_for(config, read_only=True).get_formats()
        names += [f.name for f in cached.value] if cached is not None else []
    prefix = incomplete.lower()
    return [CompletionItem(name) for name in names if name.lower().startswith(prefix)]


def crop_from_options(options: dict[str, Any], stretch: bool) -> Crop | None:
    """A Crop when any crop option is given; every required one must be then."""
    from ..language.model import REQUIRED_CROP_KEYS

    given = {k: v for k, v in options.items() if v is not None}
    if not given and not stretch:
        return None
    missing = [f"--{k}" for k in REQUIRED_CROP_KEYS if k not in given]
    if missing:
        raise click.UsageError(
            "a custom crop needs --w, --h, --x1, --x2, --y1 and --y2; missing: "
            + ", ".join(missing)
        )
    return Crop(stretch=stretch, **given)


def format_from_spec(spec: str | None, client: Client) -> int:
    """FORMAT as an id: original, an id, or a name looked up on the service."""
    from ..media.resolver import format_id_for, names_a_format

    if spec is None:
        return 0
    known = client.formats() if names_a_format(spec) else None
    found = format_id_for(spec, known)
    if isinstance(found, str):
        raise click.BadParameter(found, param_hint="FORMAT")
    if found < 0:
        raise click.BadParameter(
            "use the crop options (--w --h --x1 --x2 --y1 --y2) for a custom format",
            param_hint="FORMAT",
        )
    return found


@cli.command(short_help="Save one file: the original, a FORMAT or a custom crop.")
@click.argument("file_id", type=int)
@click.argument("format_spec", metavar="[FORMAT]", required=False, shell_complete=complete_format)
@click.option("--w", type=int, help="Width of the output (custom crop).")
@click.option("--h", type=int, help="Height of the output (custom crop).")
@click.option("--sw", type=int, help="Width of the surface the crop is scaled against.")
@click.option("--sh", type=int, help="Height of the surface the crop is scaled against.")
@click.option("--x1", type=int, help="Left edge of the crop.")
@click.option("--x2", type=int, help="Right edge of the crop.")
@click.option("--y1", type=int, help="Top edge of the crop.")
@click.option("--y2", type=int, help="Bottom edge of the crop.")
@click.option("--stretch", is_flag=True, help="Stretch the image to the given format.")
@click.option(
    "-o",
    "--output",
    default=Path("."),
    type=click.Path(path_type=Path),
    help="File to write, or an existing folder to write <id>-<format>.<ext> into, never "
    "replacing a file there.  [default: the current folder]",
)
@site_argument
def download(
    file_id: int,
    format_spec: str | None,
    stretch: bool,
    output: Path,
    site: Path,
    **crop_options: int | None,
) -> None:
    """Download file FILE_ID: the original, a FORMAT (id or name), or a custom crop.

    SITE comes after FORMAT: ``download 101 original example_site``."""
    crop = crop_from_options(crop_options, stretch)
    if format_spec is not None and (Path(format_spec) / config_module.CONFIG_NAME).is_file():
        raise click.UsageError(  # `download 101 example_site`: SITE comes after FORMAT
            f"{format_spec!r} is a site, not a FORMAT: give the format first "
            f"(download {file_id} original {format_spec}) or use --site {format_spec}"
        )
    if crop is not None and format_spec is not None and format_spec.strip() != "-1":
        raise click.UsageError("give either FORMAT or the crop options, not both")
    with connected(site) as (served, client):
        format_id = -1 if crop is not None else format_from_spec(format_spec, client)
        with unknown_id_is_a_usage_error():
            infos = client.download_info(file_id, format_id, crop)
        if not infos:
            raise InvalidResponseError(
                f"the service sent no download information for file {file_id}; "
                "try another format, or tell the service operator"
            )
        info = infos[0]
        data = client.download(info.download_url, max_bytes=served.images.max_bytes)
    # The build's check: an expired link's HTML page or a cut or padded body must not be saved.
    from ..media import imageinfo

    try:
        image = imageinfo.verify(data, info.filetype)
    except imageinfo.ImageError as exc:
        raise imageinfo.ImageError(f"file {file_id}: {exc}; nothing was written") from None
    if output.is_dir():  # the name is the service's (untrusted) format name: never a path
        label = "crop" if crop else re.sub(r"[^A-Za-z0-9_-]+", "-", info.format)[:64].strip("-")
        output = output / f"{file_id}-{label or format_id}.{image.extension}"
        if os.path.lexists(output):  # a name the user did not give replaces nothing
            raise CommandError(
                f"{output} already exists; remove it, or give -o PATH to write elsewhere",
                EXIT_CONFIG,
            )
    try:
        write_atomic(output, data)  # never a partial file at ``output``
    except OSError as exc:
        raise CommandError(
            f"cannot write {output}: {exc.strerror or exc}; choose another -o path", EXIT_CONFIG
        ) from None
    what = shown(info.format) or format_id  # the service's text
    click.echo(f"wrote {shown(str(output))} ({len(data)} bytes, format {what})")


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: wide 2, combining and format characters 0."""
    width = 0
    for char in text:
        if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Left-aligned columns separated by two spaces; numbers right-aligned."""
    cells = [[shown(str(c)) for c in headers]]
    cells += ([shown(str(c)) for c in row] for row in rows)
    sizes = [[display_width(cell) for cell in row] for row in cells]
    widths = [max(row[i] for row in sizes) for i in range(len(headers))]
    numeric = [
        bool(rows) and all(isinstance(row[i], int) for row in rows) for i in range(len(headers))
    ]
    lines = []
    for row, row_sizes in zip(cells, sizes, strict=True):
        parts = []
        for i, (cell, size) in enumerate(zip(row, row_sizes, strict=True)):
            pad = " " * (widths[i] - size)
            parts.append(pad + cell if numeric[i] else cell + pad)
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def folder_rows(nodes: Sequence[FolderNode], depth: int = 0) -> list[tuple[int, Folder]]:
    """Folders in tree order with their depth."""
    rows: list[tuple[int, Folder]] = []
    for node in nodes:
        rows.append((depth, node.folder))
        rows.extend(folder_rows(node.children, depth + 1))
    return rows


def folders_text(folders: Sequence[Folder]) -> str:
    if not folders:
        return "no folders are visible to this integration"
    rows = [
        (f.id, "  " * depth + f.name + (" (archived)" if f.archived else ""))
        for depth, f in folder_rows(folder_tree(folders))
    ]
    return table(("ID", "NAME"), rows)


def files_text(files: Sequence[File]) -> str:
    if not files:
        return "no files"
    rows = [
        (
            f.id,
            "video" if f.is_video else (f.type.type or "image"),
            f.name,
            f.filename,
            f.filesize,
            f.gdpr_status,
        )
        for f in files
    ]
    return table(("ID", "KIND", "NAME", "FILENAME", "SIZE", "GDPR"), rows)


def formats_text(formats: Sequence[Format]) -> str:
    rows: list[tuple[object, ...]] = [(0, "original", "")]
    for f in formats:
        size = f"{f.width or '?'}x{f.height or '?'}" if f.width or f.height else ""
        rows.append((f.id, f.name, size))
    return table(("ID", "NAME", "SIZE"), rows)


def to_json(records: Sequence[Folder | File | Format]) -> str:
    """The records in the service's own camelCase shape, for scripts."""
    data = [r.to_api() if isinstance(r, (Folder, File)) else asdict(r) for r in records]
    return json_text(data)
