"""``mediashortcodes report`` against the sandbox over real sockets on 127.0.0.1."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from mediashortcodes.cli import cli
from mediashortcodes.usage.manifest import Manifest

SITE = "https://www.example.org"
USAGES = "/1/files/multiple/usages"


class Site:
    """A built site: its config points at the sandbox, its manifest is set per test."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.output = root / "_site"
        self.state = root / ".mediashortcodes" / "usage-state.json"

    def build(self, **pages: tuple[str, list[int]]) -> Manifest:
        manifest = Manifest.from_pages(
            SITE, [(f"{SITE}/{name}/", title, ids) for name, (title, ids) in pages.items()]
        )
        manifest.write_atomic(self.output / "media-usage.json")
        return manifest

    def report(self, *args: str) -> Result:
        return CliRunner().invoke(cli, ["report", str(self.root), *args])


@pytest.fixture
def site(sandbox: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    for name, value in sandbox.env().items():
        monkeypatch.setenv(name, value)
    (tmp_path / "mediashortcodes.toml").write_text(
        f'[service]\nmax_retries = 0\n[site]\nbase_url = "{SITE}"\n'
        '[usage]\ncontact = "Ann Editor"\nproject = "Website"\n',
        encoding="utf-8",
    )
    sandbox.clear_usages()
    try:
        yield Site(tmp_path)
    finally:
        sandbox.clear_usages()


@pytest.fixture
def static_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """An http server on 127.0.0.1 serving a folder, like the live site would."""
    root = tmp_path / "live"
    root.mkdir()
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(root))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def in_service(manifest: Manifest) -> dict[str, list[int]]:
    return {url: list(page.files) for url, page in manifest.pages.items() if page.files}


def test_a_first_report_tells_the_service_every_page(sandbox: Any, site: Site) -> None:
    manifest = site.build(blog=("Blog", [12, 3]), about=("About", [3]), empty=("Empty", []))
    result = site.report()
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == (
        "2 pages reported (2 additions, 0 removals), 1 unchanged"
    )
    assert sandbox.pages() == in_service(manifest)
    body = next(u for u in sandbox.usages if u["web"]["page"] == f"{SITE}/blog/")
    assert body == {
        "id": [3, 12],
        "contact": "Ann Editor",
        "date": body["date"],
        "amount": "1",
        "description": "",
        "project": "Website",
        "types": ["web"],
        "removed": "false",
        "web": {"page": f"{SITE}/blog/", "pageName": "Blog"},
    }
    assert Manifest.load(site.state).pages == {
        url: page for url, page in manifest.pages.items() if page.files
    }


def test_a_changed_site_sends_only_what_changed(sandbox: Any, site: Site) -> None:
    site.build(a=("A", [1, 2]), b=("B", [3]), gone=("Gone", [4, 5]), same=("Same", [6]))
    assert site.report().exit_code == 0
    sandbox.clear_usages()

    manifest = site.build(a=("A", [1]), b=("B", [3, 7]), same=("Same", [6]))
    result = site.report()
    assert result.exit_code == 0, result.output
    sent = sorted((u["web"]["page"], u["id"], u["removed"]) for u in sandbox.usages)
    assert sent == [
        (f"{SITE}/a/", [2], "true"),
        (f"{SITE}/b/", [7], "false"),
        (f"{SITE}/gone/", [4, 5], "true"),
    ]
    assert result.stdout.splitlines()[-1] == (
        "3 pages reported (1 addition, 2 removals), 1 unchanged"
    )
    assert Manifest.load(site.state).pages == manifest.pages


def test_a_page_that_failed_is_listed_and_sent_on_the_next_run(sandbox: Any, site: Site) -> None:
    manifest = site.build(a=("A", [1]), b=("B", [2]), c=("C", [3]))
    sandbox.fail(503, count=1, path_prefix=USAGES)
    result = site.report("--jobs", "1")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == (
        "2 pages reported (2 additions, 0 removals), 0 unchanged, 1 page failed"
    )
    assert f"  {SITE}/a/: " in result.stderr
    assert "503" in result.stderr
    assert sorted(sandbox.pages()) == [f"{SITE}/b/", f"{SITE}/c/"]

    result = site.report()
    assert result.exit_code == 0, result.output
    assert [u["web"]["page"] for u in sandbox.usages][-1] == f"{SITE}/a/"
    assert sandbox.pages() == in_service(manifest)
    assert site.report().stdout.splitlines()[-1].endswith(", 3 unchanged")


def test_a_passing_error_is_retried_by_the_client(sandbox: Any, site: Site) -> None:
    (site.root / "mediashortcodes.toml").write_text(
        (site.root / "mediashortcodes.toml").read_text().replace("max_retries = 0", "")
    )
    manifest = site.build(a=("A", [1]))
    sandbox.fail(503, count=1, retry_after=0, path_prefix=USAGES)
    result = site.report()
    assert result.exit_code == 0, result.output
    assert sandbox.pages() == in_service(manifest)


def report_the_live_site_then_forget_the_state(site: Site) -> Manifest:
    live = site.build(a=("A", [1, 2]), b=("B", [3]), gone=("Gone", [4]))
    assert site.report().exit_code == 0
    site.state.unlink()  # an ephemeral CI runner starts without it
    return live


def test_previous_from_a_file_replaces_the_state(sandbox: Any, site: Site) -> None:
    live = report_the_live_site_then_forget_the_state(site)
    live.write_atomic(site.root / "live-media-usage.json")
    before = len(sandbox.usages)

    manifest = site.build(a=("A", [1]), b=("B", [3, 5]))
    result = site.report("--previous", str(site.root / "live-media-usage.json"))
    assert result.exit_code == 0, result.output
    assert len(sandbox.usages) - before == 3
    assert sandbox.pages() == in_service(manifest)
    assert Manifest.load(site.state).pages == manifest.pages


def test_previous_from_an_http_url_replaces_the_state(
    sandbox: Any, site: Site, static_server: tuple[str, Path]
) -> None:
    url, live_root = static_server
    live = report_the_live_site_then_forget_the_state(site)
    live.write_atomic(live_root / "media-usage.json")
    before = len(sandbox.usages)

    manifest = site.build(a=("A", [1, 2]), b=("B", [3]), new=("New", [9]))
    result = site.report("--previous", f"{url}/media-usage.json")
    assert result.exit_code == 0, result.output
    sent = [(u["web"]["page"], u["removed"]) for u in sandbox.usages[before:]]
    assert sorted(sent) == [(f"{SITE}/gone/", "true"), (f"{SITE}/new/", "false")]
    assert sandbox.pages() == in_service(manifest)


def test_a_previous_url_that_is_not_published_stops_the_report(
    sandbox: Any, site: Site, static_server: tuple[str, Path]
) -> None:
    url, _ = static_server
    site.build(a=("A", [1]))
    result = site.report("--previous", f"{url}/media-usage.json")
    assert result.exit_code == 2
    assert "the server answered 404" in result.stderr
    assert sandbox.usages == []


def test_a_first_deploy_says_previous_missing_ok_and_reports_every_page(
    sandbox: Any, site: Site, static_server: tuple[str, Path]
) -> None:
    url, _ = static_server  # the live site answers 404: it has no manifest yet
    manifest = site.build(a=("A", [1]), b=("B", [2]))
    result = site.report("--previous", f"{url}/media-usage.json", "--previous-missing", "ok")
    assert result.exit_code == 0, result.output
    assert "the server answered 404" in result.stderr  # said, not fatal
    assert sandbox.pages() == in_service(manifest)


def test_dry_run_sends_nothing(sandbox: Any, site: Site) -> None:
    site.build(a=("A", [1]), b=("B", [2]))
    result = site.report("--dry-run")
    assert result.exit_code == 0, result.output
    assert result.stdout.count(f"POST {USAGES} ") == 2
    assert sandbox.usages == []
    assert sandbox.stats.get("token", 0) == 0
    assert not site.state.exists()


def test_refused_credentials_exit_3_and_confirm_nothing(
    sandbox: Any, site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEDIASHORTCODES_REFRESH_TOKEN", "not-the-refresh-token")
    site.build(a=("A", [1]))
    result = site.report()
    assert result.exit_code == 3
    assert "not-the-refresh-token" not in result.output + result.stderr
    # The addition was about to be sent: pending, never held, so the next run sends it.
    assert [(p.files, p.pending) for p in Manifest.load(site.state).pages.values()] == [((), (1,))]


def test_a_report_whose_answer_was_cut_off_is_removed_once_the_page_goes(
    sandbox: Any, site: Site
) -> None:
    manifest = site.build(a=("A", [101]))
    assert site.report().exit_code == 0
    site.build(a=("A", [101]), teaser=("Teaser", [117]))
    sandbox.fault("truncate", path_prefix=USAGES)
    assert site.report().exit_code == 3
    assert sorted(sandbox.pages()) == [f"{SITE}/a/", f"{SITE}/teaser/"]  # recorded all the same
    sandbox.clear_failures()

    site.build(a=("A", [101]))
    result = site.report()
    assert result.exit_code == 0, result.output
    assert sandbox.pages() == in_service(manifest)
    assert Manifest.load(site.state).pages == manifest.pages
