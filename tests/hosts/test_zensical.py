"""Zensical runs the extension but no MkDocs plugin: `zensical build` then
`mediashortcodes finish` gives the same pages, media and manifest as the MkDocs plugin."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .sites import (
    broken_media,
    media_links,
    mkdocs_project,
    mkdocs_yml,
    pictures,
    requests,
    run,
    tree,
    write_files,
)

pytest.importorskip("zensical")
pytest.importorskip("mkdocs")

pytestmark = pytest.mark.slow


@dataclass
class Both:
    project: Path
    mkdocs: Path  # the site MkDocs built with the plugin
    cold_requests: int
    warm_requests: int
    cold: dict[str, bytes]
    warm: dict[str, bytes]
    finish_log: str


def zensical_and_finish(project: Path, env: dict[str, str]) -> str:
    built = run(["zensical", "build"], project, env)
    assert built.returncode == 0, built.stdout + built.stderr
    finished = run(["mediashortcodes", "finish"], project, env)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    return finished.stdout


@pytest.fixture(scope="module")
def both(
    tmp_path_factory: pytest.TempPathFactory, host_env: dict[str, str], sandbox_server: Any
) -> Both:
    project = tmp_path_factory.mktemp("zensical")
    mkdocs_project(project, sandbox_server)
    done = run(["mkdocs", "build"], project, host_env)
    assert done.returncode == 0, done.stderr
    shutil.move(project / "site", project / "site-mkdocs")
    sandbox_server.reset_stats()
    zensical_and_finish(project, host_env)  # its cache is MkDocs' cache: none is needed
    cold_requests = requests(sandbox_server)
    cold = tree(project / "site")
    sandbox_server.reset_stats()
    log = zensical_and_finish(project, host_env)
    return Both(
        project,
        project / "site-mkdocs",
        cold_requests,
        requests(sandbox_server),
        cold,
        tree(project / "site"),
        log,
    )


def _pages(site: Path) -> list[str]:
    return sorted(
        p.relative_to(site).as_posix() for p in site.rglob("index.html") if "media" not in p.parts
    )


def test_the_same_media_and_manifest_as_the_mkdocs_plugin(both: Both) -> None:
    site = both.project / "site"
    assert sorted(p.name for p in (site / "media").iterdir()) == sorted(
        p.name for p in (both.mkdocs / "media").iterdir()
    )
    assert json.loads((site / "media-usage.json").read_text()) == json.loads(
        (both.mkdocs / "media-usage.json").read_text()
    )
    for page in ("index.html", "guide/setup/index.html", "guide/deeper/page/index.html"):
        ours = media_links((site / page).read_text())
        assert ours and ours == media_links((both.mkdocs / page).read_text()), page
    assert broken_media(site) == []
    urls = pictures((site / "index.html").read_text())  # a formats= image: a <picture>
    assert urls and all((site / u).resolve().is_file() for u in urls)
    html = (site / "guide/setup/index.html").read_text()
    assert "<mediashortcodes-ref" not in html and "<figure" in html and "media_image 998" in html


def test_a_warm_build_makes_no_request_and_finishing_twice_changes_nothing(
    both: Both, host_env: dict[str, str]
) -> None:
    assert both.warm_requests == 0 and "0 requests" in both.finish_log
    assert both.warm == both.cold
    again = run(["mediashortcodes", "finish"], both.project, host_env)
    assert again.returncode == 0 and "already finished" in again.stdout
    assert tree(both.project / "site") == both.warm


def test_finish_lists_every_problem_and_writes_nothing(
    tmp_path: Path, host_env: dict[str, str], sandbox_server: Any
) -> None:
    write_files(
        tmp_path / "docs",
        {"index.md": "# Home\n\n<% media_image 99999 %>\n\n<% media_image 1 x=1 %>\n"},
    )
    write_files(tmp_path, {"mkdocs.yml": mkdocs_yml(sandbox_server)})
    assert run(["zensical", "build"], tmp_path, host_env).returncode == 0
    before = tree(tmp_path / "site")
    failed = run(["mediashortcodes", "finish"], tmp_path, host_env)
    assert failed.returncode == 1
    assert re.findall(r"^docs/index\.md:\d+:\d+", failed.stderr, re.M) == [
        "docs/index.md:3:1",
        "docs/index.md:5:18",
    ]
    assert tree(tmp_path / "site") == before


def test_report_output_reports_the_zensical_site(
    both: Both, host_env: dict[str, str], sandbox_server: Any
) -> None:
    sandbox_server.clear_usages()
    state = both.project / ".mediashortcodes"
    shutil.rmtree(state, ignore_errors=True)
    done = run(["mediashortcodes", "report", "--output", "site"], both.project, host_env)
    assert done.returncode == 0, done.stderr
    assert {u["web"]["page"] for u in sandbox_server.usages} == {
        "https://example.org/docs/",
        "https://example.org/docs/guide/setup/",
        "https://example.org/docs/guide/deeper/page/",
    }
    assert _pages(both.project / "site")
