"""What the command line prints besides its results: ``-v``/``-q`` on every command, text
with its control characters escaped (it quotes the service), colour and progress bars only
on a terminal, log lines that leave the bar whole; and one :class:`Outcome` per command as
CI reads it, JSON or GitHub Actions workflow commands (docs/ci.md).
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

import click

from ..errors import (
    STEERING,
    CacheMissError,
    ConfigError,
    MediaShortcodesError,
    Problem,
    ServiceError,
    exit_code_for,
    shown,
)

if TYPE_CHECKING:
    from ..site.builder import BuildResult
    from ..usage.reporting import ReportResult


Progress = Callable[[int, int], None]

_COLOURS = {"error": "red", "warning": "yellow"}
_STEERING_IN_JSON = re.compile(f"[{STEERING}]")  # json.dumps escapes C0 itself
_TRACES = logging.Formatter()
_state: dict[str, Any] = {"quiet": False, "bar": None}


def json_text(data: Any, indent: int | None = 2) -> str:
    """``data`` as JSON, what would steer a terminal escaped."""
    text = json.dumps(data, ensure_ascii=False, indent=indent)
    return _STEERING_IN_JSON.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


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
    """``text`` with what would steer a terminal escaped, line by line (Problem: names too)."""
    return "\n".join(shown(line) for line in text.split("\n"))


def _styled(kind: str, text: str) -> str:
    prefix = f"{kind}:"
    if kind in _COLOURS and colour():
        prefix = click.style(prefix, fg=_COLOURS[kind], bold=kind == "error")
    return f"{prefix} {text}"


def error_line(text: str) -> str:
    """``error: text``, the prefix in red on a terminal."""
    return _styled("error", _plain(text))


def warn(text: str) -> None:
    """Print a warning, on one line, on stderr unless quiet."""
    if quiet():
        return
    place, found, message = shown(text).partition(": warning: ")
    if found:
        _echo(f"{place}: {_styled('warning', message)}")
    else:
        _echo(_styled("warning", place.removeprefix("warning: ")))


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
            kind = record.levelname.lower()  # a message on one line, its traceback below
            trace = f"\n{_TRACES.formatException(record.exc_info)}" if record.exc_info else ""
            _echo(_styled(kind, shown(record.getMessage()) + _plain(trace)))
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
    """Give ``command`` ``-v/--verbose`` and ``-q/--quiet``."""
    names = {name for param in command.params for name in param.opts}
    command.params.extend(option for option in (VERBOSE, QUIET) if option.opts[0] not in names)


format_option = click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="json: every problem and warning, and a summary, as one JSON object on stdout "
    "(mediashortcodes docs ci).",
)


@dataclass
class Outcome:
    """What a command found and did."""

    command: str
    json: bool = False  # --format json: nothing else on stdout
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    report: dict[str, Any] | None = None
    exit_code: int = 0

    def built(self, result: BuildResult) -> None:
        """A build's or check's result; its placeholders (--keep-going) are errors."""
        self.errors += result.problems
        self.warnings += result.warnings
        self.counted(result)

    def counted(self, result: BuildResult) -> None:
        """The summary of a build or check, also of one a problem stopped."""
        self.summary = {
            "pages": result.pages,
            "images": result.images,
            "videos": result.videos,
            "placeholders": len(result.problems),
            "requests": result.requests,
            "downloads": result.downloads,
            "cache_hits": result.cache_hits,
            "remote_hits": result.remote_hits,
            "encodes": result.encodes,
            "seconds": round(result.seconds, 3),
        }

    def reported(self, result: ReportResult, warnings: list[str]) -> None:
        """A report's result (``build --report`` puts it beside the build's summary)."""
        self.warnings += [Problem("", 0, 0, w, "usage") for w in (*warnings, *result.warnings)]
        self.errors += [Problem("", 0, 0, f"{f.url}: {f.error}", "report") for f in result.failed]
        additions = sum(not r.removed for r in result.requests)
        report: dict[str, Any] = {
            "disabled": result.disabled,
            "dry_run": result.dry_run,
            "pages_reported": result.pages_reported,
            "additions": additions,
            "removals": len(result.requests) - additions,
            "unchanged": result.unchanged,
            "failed": [{"page": f.url, "error": f.error} for f in result.failed],
        }
        if result.dry_run:
            report["requests"] = [r.body for r in result.requests]
        if self.command == "report":
            self.summary = report
        else:
            self.report = report

    def stopped_by(self, exc: MediaShortcodesError) -> None:
        self.exit_code = exit_code_for(exc)
        listed: list[Problem] = list(getattr(exc, "problems", ()))  # content, pages
        self.errors += listed or [Problem("", 0, 0, str(exc), _code_of(exc))]
        self.errors += exc.content_problems
        self.warnings += exc.warnings

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "command": self.command,
            "ok": self.exit_code == 0,
            "exit_code": self.exit_code,
            "problems": [
                *(_as_dict(p, "error") for p in self.errors),
                *(_as_dict(p, "warning") for p in self.warnings),
            ],
            "summary": self.summary,
        }
        if self.report is not None:
            data["report"] = self.report
        return json_text(data)

    def annotations(self) -> list[str]:
        """The GitHub Actions workflow commands of every problem, errors first."""
        return [
            *(_annotation("error", p) for p in self.errors),
            *(_annotation("warning", p) for p in self.warnings),
        ]


def _code_of(exc: MediaShortcodesError) -> str:
    kinds = ((ConfigError, "config"), (ServiceError, "service"), (CacheMissError, "cache-miss"))
    return next((code for kind, code in kinds if isinstance(exc, kind)), "content")


def _as_dict(problem: Problem, severity: str) -> dict[str, Any]:
    return {
        "path": problem.path or None,
        "line": problem.line or None,
        "column": problem.col or None,
        "severity": severity,
        "code": problem.code or ("content" if severity == "error" else "warning"),
        "message": problem.message,
    }


def _escape(text: str, *, in_property: bool = False) -> str:
    """Escaped as GitHub's workflow commands need, what would steer a terminal too."""
    text = _plain(text).replace("%", "%25").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if in_property else text


def _annotation(kind: str, problem: Problem) -> str:
    code = problem.code or ("content" if kind == "error" else "warning")
    props = []
    if problem.path:
        props.append(f"file={_escape(problem.path, in_property=True)}")
        if problem.line:
            props.append(f"line={problem.line}")
            if problem.col:
                props.append(f"col={problem.col}")
    props.append(f"title={_escape(f'mediashortcodes ({code})', in_property=True)}")
    return f"::{kind} {','.join(props)}::{_escape(problem.message)}"


def _emit(outcome: Outcome, output_format: str) -> None:
    if output_format == "json":
        click.echo(outcome.to_json())
    elif os.environ.get("GITHUB_ACTIONS") == "true":
        for line in outcome.annotations():
            click.echo(line)


@contextmanager
def reported(command: str, output_format: str) -> Iterator[Outcome]:
    """Run a command's body, then print its outcome, the error that stopped it included."""
    outcome = Outcome(command, json=output_format == "json")
    try:
        yield outcome
    except MediaShortcodesError as exc:
        outcome.stopped_by(exc)
        _emit(outcome, output_format)
        raise  # the error on stderr and its exit code, from base.Commands
    except click.exceptions.Exit as exc:  # a report with failed pages: exit 1, listed
        outcome.exit_code = exc.exit_code
        _emit(outcome, output_format)
        raise
    else:
        _emit(outcome, output_format)
