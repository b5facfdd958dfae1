"""The code base stays ruff-clean and ruff-formatted: CI fails on either like on a failing test."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CODE = ["mediashortcodes", "tests", "benchmarks"]


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed (it is in the test extra)")
    return subprocess.run(
        [ruff, *args, *CODE], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def test_ruff_check_passes() -> None:
    result = _ruff("check")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    result = _ruff("format", "--check")
    assert result.returncode == 0, result.stdout + result.stderr
