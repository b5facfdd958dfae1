"""``mediashortcodes sandbox``: run the local service emulator (its demo credentials are
public values), and look into a running one (``usages``, ``stats``)."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from typing import Any

import click
from click.core import ParameterSource

from ..cli.base import cli, wait_until_interrupted
from ..cli.service import table
from ..config import ENV_BASE_URL
from ..errors import ServiceError, ServiceUnreachableError

DEFAULT_PORT = 8765


@cli.group("sandbox", invoke_without_command=True)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="Port of the API host (0: any free port).",
)
@click.option(
    "--media-port",
    type=click.IntRange(0, 65535),
    default=None,
    help="Port of the media host (downloads, player, static files). Default: --port + 1.",
)
@click.option(
    "--latency-ms",
    type=click.FloatRange(min=0),
    default=0.0,
    show_default=True,
    help="Delay before every answer, to imitate a distant service.",
)
@click.option(
    "--token-lifetime",
    type=click.IntRange(min=1),
    default=7200,
    show_default=True,
    help="Seconds an access token lives (expires_in).",
)
@click.option(
    "--link-lifetime",
    type=click.IntRange(min=1),
    default=300,
    show_default=True,
    help="Seconds a download link lives (expiresIn).",
)
@click.option(
    "--synthetic",
    type=click.IntRange(min=1),
    default=None,
    metavar="IMAGES",
    help="Serve a synthetic library of IMAGES small images (for benchmarks) instead of the demo.",
)
@click.pass_context
def sandbox(
    ctx: click.Context,
    port: int,
    media_port: int | None,
    latency_ms: float,
    token_lifetime: int,
    link_lifetime: int,
    synthetic: int | None,
) -> None:
    """Run the local emulator of the Media Asset Service until Ctrl-C.

    It serves the demo library on 127.0.0.1 and prints the environment variables that
    point a build at it. See: mediashortcodes docs sandbox.
    """
    if ctx.invoked_subcommand is not None:
        return
    from . import Library, Sandbox

    library = None
    if synthetic is not None:
        library = Library.synthetic(
            images=synthetic, videos=synthetic // 6, folders=max(1, min(50, synthetic // 15))
        )
    if media_port is None:
        if port == 65535:
            raise click.BadParameter(
                "give --media-port too when --port is 65535", param_hint="--port"
            )
        media_port = port + 1 if port else 0
    emulator = Sandbox(
        port=port,
        media_port=media_port,
        latency_ms=latency_ms,
        token_lifetime=token_lifetime,
        link_lifetime=link_lifetime,
        library=library,
    )
    with emulator:
        click.echo(banner(emulator))
        sys.stdout.flush()
        with contextlib.suppress(KeyboardInterrupt):
            wait_until_interrupted()
    click.echo("sandbox stopped", err=True)


def banner(emulator: Any) -> str:
    """Where the sandbox listens and how to point a build at it."""
    lines = [
        "Media Asset Service sandbox",
        f"  API host:   {emulator.base_url}   (paths /1/...)",
        f"  media host: {emulator.media_url}   (downloads, player, static files)",
        f"  usages:     {emulator.base_url}/_sandbox/usages",
        f"  library:    {len(emulator.library)} files",
        "",
        "# Demo credentials (public values, not secrets) and URLs:",
        *(f"export {name}={value}" for name, value in emulator.env().items()),
        "",
        "Press Ctrl-C to stop.",
    ]
    return "\n".join(lines)


def _fetch(ctx: click.Context, port: int | None, url: str | None, path: str) -> Any:
    parent = ctx.parent
    if parent is not None and parent.get_parameter_source("port") == ParameterSource.COMMANDLINE:
        port = port or parent.params["port"]
    if not url and not port:  # the export line the sandbox printed, once pasted
        url = os.environ.get(ENV_BASE_URL, "").strip() or None
    base = (url or f"http://127.0.0.1:{port or DEFAULT_PORT}").rstrip("/")
    import httpx  # here: the command line starts without the HTTP client

    try:
        response = httpx.get(f"{base}{path}", timeout=10.0)
    except httpx.HTTPError as exc:
        raise ServiceUnreachableError(
            f"no sandbox answers at {base} ({type(exc).__name__}); start one with "
            "`mediashortcodes sandbox`, or pass --port or --url"
        ) from None
    if response.status_code != 200:
        raise ServiceError(
            f"{base}{path} answered {response.status_code}: is this a mediashortcodes sandbox?",
            status=response.status_code,
        )
    try:
        return response.json()
    except ValueError:
        raise ServiceError(f"{base}{path} did not answer JSON: is this a sandbox?") from None


_PORT = click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=None,
    help=f"API port of the running sandbox (default {DEFAULT_PORT}).",
)
_URL = click.option(
    "--url",
    default=None,
    help=f"API URL of the running sandbox instead of --port (default: ${ENV_BASE_URL} if set).",
)
_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


@sandbox.command("usages")
@_PORT
@_URL
@click.option("--pages", is_flag=True, help="Show which page uses which files now.")
@_JSON
@click.pass_context
def usages(
    ctx: click.Context, port: int | None, url: str | None, pages: bool, as_json: bool
) -> None:
    """Show the usage reports a running sandbox has received."""
    data = _fetch(ctx, port, url, "/_sandbox/pages" if pages else "/_sandbox/usages")
    if as_json:
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
    elif pages:
        click.echo(pages_table(data))
    else:
        click.echo(usages_table(data))


@sandbox.command("stats")
@_PORT
@_URL
@_JSON
@click.pass_context
def stats(ctx: click.Context, port: int | None, url: str | None, as_json: bool) -> None:
    """Show how many requests a running sandbox has answered, per endpoint."""
    data = _fetch(ctx, port, url, "/_sandbox/stats")
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    if not data:
        click.echo("no requests yet")
    for name, count in sorted(data.items()):
        click.echo(f"{name:<14} {count:>8}")


def usages_table(reports: list[dict[str, Any]]) -> str:
    if not reports:
        return "no usage reports yet"
    rows: list[tuple[str, ...]] = []
    for number, report in enumerate(reports, 1):
        removed = str(report.get("removed", "false")).lower() == "true"
        rows.append(
            (
                str(number),
                "removed" if removed else "used",
                ",".join(str(i) for i in report.get("id", [])),
                str(report.get("web", {}).get("page", "")),
                str(report.get("project", "")),
                str(report.get("date", "")),
            )
        )
    return table(("#", "action", "files", "page", "project", "date"), rows)


def pages_table(pages: dict[str, list[int]]) -> str:
    if not pages:
        return "no page uses any file"
    rows = [(page, ",".join(str(i) for i in ids)) for page, ids in pages.items()]
    return table(("page", "files"), rows)
