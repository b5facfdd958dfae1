"""An output directory that would swallow the site's own files when replaced is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from mediashortcodes.config import Config, SiteConfig
from mediashortcodes.errors import ConfigError
from mediashortcodes.outputdir import check_output_dir


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Config:
    monkeypatch.setenv("MEDIASHORTCODES_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "site"
    for name in ("content", "templates", "static"):
        (root / name).mkdir(parents=True)
    return Config(root=root, site=SiteConfig(output="_site"))


@pytest.mark.parametrize(
    ("output", "named"),
    [
        (".", "the site itself"),
        ("..", "the site itself"),
        ("content", "[site] content (content)"),
        ("templates", "[site] templates (templates)"),
        ("static", "[site] static (static)"),
        ("../cache", "the media cache"),
    ],
)
def test_an_output_that_is_or_holds_the_sites_files_is_refused(config, output, named):
    with pytest.raises(ConfigError, match="would delete") as caught:
        check_output_dir(config.path(output), config)
    assert named in str(caught.value)
    assert "[site] output (or --output)" in str(caught.value)


def test_an_output_inside_the_static_files_is_refused(config):
    with pytest.raises(ConfigError, match="inside \\[site\\] static"):
        check_output_dir(config.path("static/_site"), config)


def test_a_full_directory_that_no_build_wrote_is_refused(config, tmp_path):
    documents = tmp_path / "Documents"
    documents.mkdir()
    (documents / "thesis.odt").write_text("years of work")
    with pytest.raises(ConfigError, match="not written by a build"):
        check_output_dir(documents, config)


@pytest.mark.parametrize("state", ["missing", "empty", "built before"])
def test_a_new_empty_or_previously_built_output_is_accepted(config, state):
    output = config.path("_site")
    if state != "missing":
        output.mkdir()
    if state == "built before":
        (output / "index.html").write_text("<p>old</p>")
        (output / "media-usage.json").write_text("{}")
    check_output_dir(output, config)
