"""The package installs and runs on every Python that pyproject.toml says it supports."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
SOURCES = sorted((ROOT / "mediashortcodes").rglob("*.py"))


def test_python_3_10_installs_tomli_for_the_config_file() -> None:
    assert PROJECT["requires-python"] == ">=3.10"
    assert "tomli>=2.0; python_version < '3.11'" in PROJECT["dependencies"]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_is_python_3_10_syntax(path: Path) -> None:
    ast.parse(path.read_text(encoding="utf-8"), filename=str(path), feature_version=(3, 10))
