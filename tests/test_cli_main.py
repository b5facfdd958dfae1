"""The command line runs as ``python -m mediashortcodes`` and ``-m mediashortcodes.cli``."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize("module", ["mediashortcodes", "mediashortcodes.cli"])
def test_running_the_package_as_a_module_offers_every_command(module):
    result = subprocess.run(
        [sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Usage: mediashortcodes ")
    for command in ("build", "check", "report", "sandbox"):
        assert f"\n  {command} " in result.stdout
