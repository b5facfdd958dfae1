"""Problems as CI reads them (docs/ci.md): one :class:`Outcome` per ``build``, ``check``
or ``report``, printed as one JSON object (``--format json``) or, under GitHub Actions, as
workflow commands (``::error file=...,line=3,col=1,title=...::message``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import click

from ..errors import (
    CacheMissError,
    ConfigError,
    MediaShortcodesError,
    Problem,
    ServiceError,
    exit_code_for,
)

if TYPE_CHECKING:
    from ..site.builder import BuildResult
    from ..usage.reporting import ReportResult

__all__ = ["Outcome", "format_option", "reported"]

format_option = click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="json: every problem and warning, and a summary, as one JSON object on stdout "
    "(docs/ci.md).",
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
        return json.dumps(data, ensure_ascii=False, indent=2)

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
    """Escaped as GitHub's workflow commands need."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
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


def in_github_actions() -> bool:
    return os.environ.get("GITHUB_ACTIONS") == "true"


def _emit(outcome: Outcome, output_format: str) -> None:
    if output_format == "json":
        click.echo(outcome.to_json())
    elif in_github_actions():
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
        raise  # the error on stderr and its exit code, from handle_errors
    except click.exceptions.Exit as exc:  # a report with failed pages: exit 1, listed
        outcome.exit_code = exc.exit_code
        _emit(outcome, output_format)
        raise
    else:
        _emit(outcome, output_format)
