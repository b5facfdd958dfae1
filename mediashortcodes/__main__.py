"""``python -m mediashortcodes``: the same command line as the ``mediashortcodes`` script."""

from mediashortcodes.cli import main

main()
