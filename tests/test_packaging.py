"""The package installs and runs on every Python that pyproject.toml says it supports."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
SOURCES = sorted((ROOT / "mediashortcodes").rglob("*.py"))


def test_python_3_11_or_newer_is_required_and_reads_the_config_with_tomllib() -> None:
    assert PROJECT["requires-python"] == ">=3.11"
    assert not [d for d in PROJECT["dependencies"] if d.startswith("tomli")]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_is_python_3_11_syntax(path: Path) -> None:
    ast.parse(path.read_text(encoding="utf-8"), filename=str(path), feature_version=(3, 11))
