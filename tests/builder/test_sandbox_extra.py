"""``[service] sandbox = true`` in an install without the sandbox extra: one configuration
error naming the extra, before anything is rendered."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli

from .conftest import EXAMPLE


@pytest.mark.parametrize("args", [["build"], ["build", "--keep-going"], ["check"]])
def test_a_sandbox_without_pillow_is_one_error_naming_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    site = tmp_path / "site"
    shutil.copytree(EXAMPLE, site, ignore=shutil.ignore_patterns("_site", ".mediashortcodes"))
    monkeypatch.setenv("MEDIASHORTCODES_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setitem(sys.modules, "PIL", None)  # as in a core-only install
    result = CliRunner().invoke(cli, [*args, str(site)])
    assert result.exit_code == 2, result.output
    assert result.output.splitlines() == [
        f"error: [service] sandbox = true in {site / 'mediashortcodes.toml'} needs the sandbox "
        "extra (Pillow is not installed): pip install 'mediashortcodes[sandbox]'"
    ]
    assert not (site / "_site").exists()
