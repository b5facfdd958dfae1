"""Where each generator writes, and what `finish` says before any request."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli
from mediashortcodes.generators.detect import detect
from mediashortcodes.generators.finish import page_url


@pytest.mark.parametrize(
    ("files", "name", "output"),
    [
        ({"hugo.toml": 'title = "x"\n'}, "hugo", "public"),
        ({"hugo.toml": 'publishDir = "out"\n'}, "hugo", "out"),
        ({"config.yaml": "publishDir: 'www'  # the web root\n"}, "hugo", "www"),
        ({"_config.yml": "title: x\n"}, "jekyll", "_site"),
        ({"_config.yml": "destination: build\n"}, "jekyll", "build"),
        (
            {"eleventy.config.js": "export default { dir: { output: 'dist' } };\n"},
            "eleventy",
            "dist",
        ),
        ({".eleventy.js": "module.exports = () => ({});\n"}, "eleventy", "_site"),
        ({}, "", "_site"),
    ],
)
def test_the_output_folder_is_what_the_generator_config_names(
    tmp_path: Path, files: dict[str, str], name: str, output: str
) -> None:
    for file, text in files.items():
        (tmp_path / file).write_text(text)
    found = detect(tmp_path)
    assert (found.name, found.output) == (name, output)


def test_a_page_address_comes_from_its_file_path() -> None:
    assert page_url("index.html") == ""
    assert page_url("a/index.html") == "a/"
    assert page_url("b.html") == "b.html"
    assert page_url("a/b.html") == "a/b.html"


def test_finish_without_a_built_site_names_the_folder_and_what_to_do(tmp_path: Path) -> None:
    (tmp_path / "hugo.toml").write_text('title = "x"\n')
    result = CliRunner().invoke(cli, ["finish", str(tmp_path), "--format", "json"])
    assert result.exit_code == 2
    assert "public: no built site here; run the generator first" in result.output
