"""The ``mediashortcodes`` command line: the group and its error handling live in
:mod:`.base`; each command family in its own module registers on that group. Importing this
package assembles them, so nothing below imports it back.
"""

from __future__ import annotations

from . import (  # noqa: F401  (they register on `cli`)
    build,
    finish,
    init,
    pick,
    report,
    sandbox,
    serve,
    service,
)
from .base import cli, run


def main() -> None:
    run(cli)


__all__ = ["cli", "main"]
