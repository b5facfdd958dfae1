"""The ``mediashortcodes`` command line: each command module registers on the group in
:mod:`.base`; importing this package assembles them (nothing imports it back)."""

from __future__ import annotations

from . import (  # noqa: F401  (they register on `cli`)
    build,
    docs,
    init,
    report,
    sandbox,
    serve,
    service,
)
from .base import cli, run


def main() -> None:
    run(cli)


__all__ = ["cli", "main"]
