"""An output directory that would swallow the site's own files when replaced is refused."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from mediashortcodes.config import CacheConfig, Config, SiteConfig, UsageConfig
from mediashortcodes.errors import ConfigError
from mediashortcodes.site.outputdir import check_output_dir, refuse_escapes, remove_leftovers


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
        (".mediashortcodes", "the usage state"),
    ],
)
def test_an_output_that_is_or_holds_the_sites_files_is_refused(config, output, named):
    with pytest.raises(ConfigError, match="would delete") as caught:
        check_output_dir(config.path(output), config)
    assert named in str(caught.value)
    assert "[site] output (or --output)" in str(caught.value)


@pytest.mark.parametrize("folder", ["static", "content"])
def test_an_output_inside_the_static_files_or_the_content_is_refused(config, folder):
    with pytest.raises(ConfigError, match=f"inside \\[site\\] {folder}"):
        check_output_dir(config.path(f"{folder}/_site"), config)


@pytest.mark.parametrize(("key", "setting"), [("cache", "[cache] dir"), ("state", "[usage] state")])
def test_a_cache_or_usage_state_inside_the_output_names_its_setting(
    config, key, setting, monkeypatch
):
    if key == "cache":
        monkeypatch.delenv("MEDIASHORTCODES_CACHE_DIR")
        config = replace(config, cache=CacheConfig(dir="_site/cache"))
    else:
        config = replace(config, usage=UsageConfig(state="_site/usage-state.json"))
    with pytest.raises(ConfigError, match="would delete") as caught:
        check_output_dir(config.path("_site"), config)
    assert f"or move {setting} out of it" in str(caught.value)


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


def dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_directories_a_killed_build_left_beside_the_output_are_removed(tmp_path):
    output = tmp_path / "_site"
    pid = dead_pid()
    staging, old = tmp_path / f"._site.staging-{pid}", tmp_path / f"._site.old-{pid}"
    for leftover in (staging, old):
        (leftover / "media").mkdir(parents=True)
    assert sorted(remove_leftovers(output)) == sorted([staging, old])
    assert not staging.exists() and not old.exists()


def test_a_running_builds_directories_and_unrelated_ones_are_kept(tmp_path):
    output = tmp_path / "_site"
    keep = [
        tmp_path / f"._site.staging-{os.getpid()}",
        tmp_path / f".other.staging-{dead_pid()}",
        tmp_path / "._site.staging-notapid",
    ]
    for path in keep:
        path.mkdir()
    assert remove_leftovers(output) == []
    assert all(path.exists() for path in keep)


def test_builds_swapping_into_one_output_at_once_take_turns(tmp_path):
    # Two builds of one site (a CI retry beside a manual run) finish at the same moment:
    # each must find the output it replaces, never the other's half-made swap.
    from concurrent.futures import ThreadPoolExecutor

    from mediashortcodes.site.outputdir import swap_into_place

    output = tmp_path / "_site"

    def build(worker: int) -> None:
        for i in range(40):
            staging = tmp_path / f"staging-{worker}-{i}"
            staging.mkdir()
            (staging / "index.html").write_text(f"{worker}-{i}")
            swap_into_place(staging, output)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(build, range(4)))  # re-raises the first error of any worker
    assert [p.name for p in output.iterdir()] == ["index.html"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["_site"]


def test_output_paths_outside_the_output_are_counted_and_named():
    with pytest.raises(ConfigError, match=r"^1 output path would lie outside .*: \.\./x$"):
        refuse_escapes(["a.html", "../x"])
    with pytest.raises(ConfigError, match=r"^2 output paths would lie outside"):
        refuse_escapes(["../x", "/etc/y"])
