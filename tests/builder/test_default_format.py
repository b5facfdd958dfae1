"""``[images] default_format`` is checked in every build, against the service's formats,
whether or not a shortcode relies on it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli

from .conftest import small_site


def site_with(tmp_path: Path, sandbox: Any, default_format: str) -> Path:
    root = small_site(
        tmp_path / "site",
        sandbox,
        {
            "templates/page.html": "{{ page.content }}",
            # The page names its format: the default is relied on nowhere.
            "content/index.md": "<% media_image 101 medium %>\n",
        },
        player=False,
    )
    with (root / "mediashortcodes.toml").open("a") as toml:
        toml.write(f'[images]\ndefault_format = "{default_format}"\n')
    return root


@pytest.mark.parametrize(
    ("command", "default"),
    [("build", "meduim"), ("check", "meduim"), ("build", "99"), ("build", "-1")],
)
def test_an_unknown_default_format_fails_the_build_naming_the_file_and_key(
    tmp_path: Path, env: Path, sandbox: Any, command: str, default: str
) -> None:
    site = site_with(tmp_path, sandbox, default)
    result = CliRunner().invoke(cli, [command, str(site)])
    assert result.exit_code == 2, result.output
    assert f"mediashortcodes.toml: [images] default_format: unknown format '{default}'" in (
        result.output
    )
    assert "medium" in result.output  # the formats it could be
    assert not (site / "_site").exists()


def test_a_default_format_the_service_lists_is_accepted(
    tmp_path: Path, env: Path, sandbox: Any
) -> None:
    site = site_with(tmp_path, sandbox, "Thumb")
    result = CliRunner().invoke(cli, ["build", str(site)])
    assert result.exit_code == 0, result.output
    assert (site / "_site" / "index.html").exists()
