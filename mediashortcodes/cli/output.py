"""What the command line prints besides its results: ``-v``/``-q`` on every command, text
with its control characters escaped (it quotes the service), colour and progress bars only
on a terminal (never in CI or with ``NO_COLOR``), log lines that leave the bar whole.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

import click

from .listing import printable

__all__ = [
    "OutputGroup",
    "add_output_options",
    "colour",
    "error_line",
    "is_interactive",
    "progress_bar",
    "quiet",
    "say",
    "warn",
]

Progress = Callable[[int, int], None]

_COLOURS = {"error": "red", "warning": "yellow"}
_state: dict[str, Any] = {"quiet": False, "bar": None}


def _stderr() -> TextIO:
    return sys.stderr  # looked up each time: click's test runner swaps it


def is_interactive() -> bool:
    """Whether a person watches stderr (a terminal, no CI)."""
    isatty = getattr(_stderr(), "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("CI")


def colour() -> bool:
    """Whether to colour stderr (interactive, no NO_COLOR)."""
    return not os.environ.get("NO_COLOR") and is_interactive()


def quiet() -> bool:
    return bool(_state["quiet"])


def _plain(text: str) -> str:
    """``text`` with what would steer a terminal escaped, line by line."""
    return "\n".join(printable(line) for line in text.split("\n"))


def _styled(kind: str, text: str) -> str:
    prefix = f"{kind}:"
    if kind in _COLOURS and colour():
        prefix = click.style(prefix, fg=_COLOURS[kind], bold=kind == "error")
    return f"{prefix} {text}"


def error_line(text: str) -> str:
    """``error: text``, the prefix in red on a terminal."""
    return _styled("error", _plain(text))


def warn(text: str) -> None:
    """Print a warning on stderr unless quiet."""
    if quiet():
        return
    place, found, message = _plain(text).partition(": warning: ")
    if found:
        _echo(f"{place}: {_styled('warning', message)}")
    else:
        _echo(_styled("warning", text.removeprefix("warning: ")))


def say(text: str) -> None:
    """Print a summary line on stderr unless quiet."""
    if not quiet():
        _echo(_plain(text))


def _echo(line: str) -> None:
    bar = _state["bar"]
    stream = _stderr()
    if bar is not None:
        stream.write("\r\033[K")  # the bar's line, cleared; the bar is drawn again below
    click.echo(line, file=stream)
    if bar is not None:  # drawn again now, not at its next step
        stream.write("\r" + bar.format_progress_line())
        stream.flush()


@contextmanager
def progress_bar(label: str) -> Iterator[Progress | None]:
    """A ``(done, total)`` callback drawing a bar; None off a terminal or quiet."""
    if quiet() or not is_interactive():
        yield None
        return
    with click.progressbar(length=1, label=label, file=_stderr(), show_pos=True) as bar:

        def progress(done: int, total: int) -> None:
            bar.length = max(total, 1)
            bar.update(done - bar.pos)

        _state["bar"] = bar
        try:
            yield progress
        finally:
            _state["bar"] = None


class _EchoHandler(logging.Handler):
    """Log records as ``warning: ...`` lines, through the bar-aware echo."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            kind = record.levelname.lower()
            _echo(_styled(kind, _plain(self.format(record))))
        except Exception:  # pragma: no cover - logging must never break a command
            self.handleError(record)


_handler = _EchoHandler()


def _configure(verbosity: int, be_quiet: bool) -> None:
    """Route the package's log records (at -vv, httpx's too) to stderr."""
    _state["quiet"] = be_quiet
    if be_quiet:
        level = logging.ERROR
    else:
        level = (logging.WARNING, logging.INFO, logging.DEBUG)[min(verbosity, 2)]
    _handler.setLevel(level)
    package, requests = logging.getLogger("mediashortcodes"), logging.getLogger("httpx")
    if _handler not in package.handlers:
        package.addHandler(_handler)
    # Lowered only when asked: else the levels stay as the host set them.
    package.setLevel(level if level < logging.WARNING else logging.NOTSET)
    if level == logging.DEBUG:  # httpx says each request at INFO, its URL redacted
        requests.setLevel(logging.INFO)
        if _handler not in requests.handlers:
            requests.addHandler(_handler)
    elif _handler in requests.handlers:
        requests.removeHandler(_handler)
        requests.setLevel(logging.NOTSET)


def _set_verbosity(ctx: click.Context, _param: click.Parameter, value: Any) -> None:
    meta = ctx.meta.setdefault("mediashortcodes.output", {"verbose": 0, "quiet": False})
    if _param.name == "verbose":
        meta["verbose"] = max(meta["verbose"], value or 0)
    elif value:
        meta["quiet"] = True
    _configure(meta["verbose"], meta["quiet"])


VERBOSE = click.Option(
    ["-v", "--verbose"],
    count=True,
    expose_value=False,
    callback=_set_verbosity,
    help="Say more: retries and cache decisions; -vv: every request (secrets masked).",
)
QUIET = click.Option(
    ["-q", "--quiet"],
    is_flag=True,
    expose_value=False,
    callback=_set_verbosity,
    help="Print errors only: no summary, warning or progress bar.",
)


class OutputGroup(click.Group):
    """A group whose every command, subgroups' too, takes ``-v`` and ``-q``."""

    group_class = type  # subgroups made with @group.group() are OutputGroups too

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        add_output_options(cmd)
        super().add_command(cmd, name)


def add_output_options(command: click.Command) -> None:
    """Give ``command`` and every command under it ``-v/--verbose`` and ``-q/--quiet``."""
    names = {name for param in command.params for name in param.opts}
    command.params.extend(option for option in (VERBOSE, QUIET) if option.opts[0] not in names)
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            add_output_options(sub)
