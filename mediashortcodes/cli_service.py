"""CLI commands: see mediashortcodes.cli."""

from __future__ import annotations

from .cli import cli, handle_errors  # noqa: F401
