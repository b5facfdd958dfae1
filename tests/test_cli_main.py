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


def test_the_help_footer_starts_a_newcomer_with_init():
    from click.testing import CliRunner

    from mediashortcodes.cli import cli

    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    assert "Start with: mediashortcodes init SITE" in result.output  # build needs a site first


def test_version_prints_the_installed_version():
    from importlib.metadata import version

    result = subprocess.run(
        [sys.executable, "-m", "mediashortcodes", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"mediashortcodes, version {version('mediashortcodes')}\n"


def test_a_build_does_not_look_up_the_installed_version():
    # importlib.metadata scans every installed distribution: tens of milliseconds per build.
    code = "import sys, mediashortcodes.site.builder; print('importlib.metadata' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.stdout.strip() == "False", result.stderr
