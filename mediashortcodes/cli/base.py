"""The ``mediashortcodes`` group, its shared options, and errors as the contract's exit
codes (EPILOG)."""

from __future__ import annotations

import importlib
import signal
import time
from collections.abc import Callable, Mapping
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click

from ..config import MAX_JOBS
from ..errors import (
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    MediaShortcodesError,
    exit_code_for,
    message_for,
)
from .output import OutputGroup, add_output_options, error_line

F = TypeVar("F", bound=Callable[..., Any])


class Terminated(KeyboardInterrupt):
    """SIGTERM (a CI job cancelled) unwinds like Ctrl-C: staging removed, state whole."""


class CommandError(click.ClickException):
    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code

    def show(self, file: Any = None) -> None:
        click.echo(error_line(self.format_message()), err=True)


class Commands(OutputGroup):
    """The group, its subgroups too: the package's errors become the contract's exit codes."""

    # An integration's command (in its own folder), imported only to run: by name, the
    # module that registers it, and the stand-in `--help` lists meanwhile.
    lazy: Mapping[str, tuple[str, click.Command]] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            return self.lazy[cmd_name][1]
        return super().get_command(ctx, cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] in self.lazy:
            importlib.import_module(self.lazy[args[0]][0])
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except MediaShortcodesError as exc:
            raise CommandError(message_for(exc), exit_code_for(exc)) from None
        except Terminated:
            raise CommandError("terminated", EXIT_TERMINATED) from None
        except KeyboardInterrupt:
            raise CommandError("interrupted", EXIT_INTERRUPTED) from None


EPILOG = """\b
Start with: mediashortcodes init SITE   (a new site; it says what to run next)
Credentials come from the environment: MEDIASHORTCODES_CLIENT_ID,
            MEDIASHORTCODES_CLIENT_SECRET, MEDIASHORTCODES_REFRESH_TOKEN.
Exit codes: 0 success; 1 the content or a report has problems (each listed);
            2 usage or configuration error; 3 the service could not be reached
            or refused the credentials; 130 Ctrl-C; 143 SIGTERM."""


base_url_option = click.option(
    "--base-url",
    metavar="URL",
    help="The site's public address for this run only (a deploy preview), instead of "
    "[site] base_url; such a build is not reported unless --report is given.",
)

keep_going_option = click.option(
    "--keep-going",
    is_flag=True,
    help="Render a visible placeholder for a failed file instead of failing.",
)

jobs_option = click.option(
    "-j",
    "--jobs",
    type=click.IntRange(1, MAX_JOBS),
    metavar="N",
    help="Requests at a time (default: [build] jobs, 16).",
)


def site_argument(func: F) -> F:
    """``[SITE]`` (default: the current directory) or the older ``--site PATH``, as one
    ``site``."""

    @wraps(func)
    def wrapper(*args: Any, site: Path, site_flag: Path | None, **kwargs: Any) -> Any:
        if site_flag is not None:
            given = click.get_current_context().get_parameter_source("site")
            if given is not click.core.ParameterSource.DEFAULT and site != site_flag:
                raise click.UsageError(f"give the site once: SITE ({site}) or --site ({site_flag})")
            site = site_flag
        return func(*args, site=site, **kwargs)

    wrapper = click.option(
        "--site",
        "site_flag",
        type=click.Path(path_type=Path),
        metavar="PATH",
        help="The same as SITE.",
    )(wrapper)
    return click.argument(  # type: ignore[no-any-return]
        "site", required=False, default=Path("."), type=click.Path(path_type=Path)
    )(wrapper)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``--version``, the version looked up only when asked (it is slow)."""
    if not value or ctx.resilient_parsing:
        return
    from .. import __version__

    click.echo(f"mediashortcodes, version {__version__}")
    ctx.exit()


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]}, epilog=EPILOG)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version and exit.",
)
def cli() -> None:
    """Use images and videos from the Media Asset Service in static and Jinja sites."""


add_output_options(cli)


def _terminate(signum: int, frame: Any) -> None:
    raise Terminated


def wait_until_interrupted() -> None:
    """Block until Ctrl-C or SIGTERM (:func:`run`) raise KeyboardInterrupt."""
    while True:
        time.sleep(0.5)  # short sleeps: Windows delivers Ctrl-C between them


def run(group: click.Group) -> None:
    """Run the assembled command line: SIGTERM unwinds like Ctrl-C (exit 143)."""
    signal.signal(signal.SIGTERM, _terminate)
    group.main(prog_name="mediashortcodes")
