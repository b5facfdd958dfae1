"""The ``mediashortcodes`` command line: each command module registers on the group in
:mod:`.base` when imported; an integration's own, in ``cli.lazy``, only when it runs."""

from __future__ import annotations

import gc

import click

from . import build, docs, init, report, service  # noqa: F401  (they register on `cli`)
from .base import cli, run

cli.lazy = {
    "finish": (
        "mediashortcodes.generators.cli",
        click.Command("finish", short_help="Resolve the shortcodes in the HTML a generator wrote."),
    ),
    "pick": (
        "mediashortcodes.picker.cli",
        click.Command("pick", short_help="Browse files in a local page and copy their shortcodes."),
    ),
    "sandbox": (
        "mediashortcodes.sandbox.cli",
        click.Command(
            "sandbox", help="Run the local emulator of the Media Asset Service until Ctrl-C."
        ),
    ),
    "serve": (
        "mediashortcodes.serve.cli",
        click.Command(
            "serve", short_help="Preview the site on 127.0.0.1, rebuilt and reloaded on every save."
        ),
    ),
}


def main() -> None:
    # This process runs one command and ends. What it imported lives until then, and a
    # build keeps most of what it makes (pages, records, HTML) to its end: the collector
    # leaves the first alone and goes over the rest less often. A warm build of 1,000
    # pages spent 0.15 s of its 1.5 s collecting (docs/benchmarks.md).
    gc.freeze()
    gc.set_threshold(20_000, 10, 10)
    try:
        run(cli)
    finally:
        gc.freeze()  # and the interpreter's last collection, as it exits, has nothing to do


__all__ = ["cli", "main"]
