"""``python -m mediashortcodes.cli``, as the console script."""

from . import main

main()
