"""The page memo (docs/site-builder.md): a page no input of which changed comes from the memo,
signed; an entry another key signed, or a damaged one, is never published."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from mediashortcodes import config as config_mod
from mediashortcodes.cli import cli
from mediashortcodes.site.builder import BuildOptions, build_site

PAYLOAD = '<script>alert("memo")</script>'
PAGES = 7  # the example site's pages, drafts left out


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def entries(cache: Path) -> list[Path]:
    return sorted((cache / "memo").rglob("*.json"))


def page_of(entry: Path) -> dict:
    return json.loads(entry.read_bytes())["page"]


def written(entry: Path, page: dict, key: bytes | None = None) -> None:
    """``page`` as ``entry``, signed with ``key``, else under the signature it had."""
    body = json.dumps(page).encode()
    signature = json.loads(entry.read_bytes())["sig"].encode()
    if key is not None:
        signature = hmac.new(key, entry.stem.encode() + b"\n" + body, hashlib.sha256)
        signature = signature.hexdigest().encode()
    entry.write_bytes(b'{"v":1,"sig":"' + signature + b'","page":' + body + b"}")


def with_payload(page: dict) -> dict:
    return {**page, "texts": [PAYLOAD + page["texts"][0], *page["texts"][1:]]}


def local_key(cache: Path) -> bytes:
    return (cache.parent / "config" / "mediashortcodes" / "cache-key").read_bytes()


def memo_warnings(warnings: list) -> list[str]:
    return [str(w) for w in warnings if "page memo" in str(w)]


def published(output: Path, text: str) -> list[str]:
    return [name for name, data in tree(output).items() if text.encode() in data]


def test_a_signed_entry_is_used_unless_the_build_renders_every_page(make_site, env) -> None:
    site = make_site()
    build_site(config_mod.load(site))
    assert len(entries(env)) == PAGES
    about = next(e for e in entries(env) if "small team" in e.read_text())
    written(about, with_payload(page_of(about)), local_key(env))  # as a build with the key

    build_site(config_mod.load(site))
    assert published(site / "_site", PAYLOAD) == ["about/index.html"], "the memo is used"

    build_site(config_mod.load(site), BuildOptions(memo=False))
    assert published(site / "_site", PAYLOAD) == []
    config = site / "mediashortcodes.toml"
    config.write_text(config.read_text() + "\n[build]\nmemo = false\n")
    build_site(config_mod.load(site))
    assert published(site / "_site", PAYLOAD) == []


@pytest.mark.parametrize("key", ["environment", "local"])
def test_a_tampered_entry_is_never_published(make_site, env, monkeypatch, key) -> None:
    if key == "environment":
        monkeypatch.setenv("MEDIASHORTCODES_CACHE_KEY", "a CI secret of at least 32 characters")
    site = make_site()
    first = build_site(config_mod.load(site))
    reference = tree(site / "_site")
    assert memo_warnings(first.warnings) == []
    for entry in entries(env):  # the HTML changed, the signature kept
        written(entry, with_payload(page_of(entry)))
    entries(env)[0].write_bytes(b'{"v":1,"sig":"00')  # and one cut short

    result = build_site(config_mod.load(site))
    assert published(site / "_site", "alert(") == []
    assert tree(site / "_site") == reference
    assert memo_warnings(result.warnings) == [
        f"{PAGES} page memo entries failed the signature check and were not used; pages rendered"
    ]
    assert memo_warnings(build_site(config_mod.load(site)).warnings) == [], (
        "rendered: written again"
    )


def test_a_cache_from_another_machine_is_never_published(make_site, env, monkeypatch) -> None:
    monkeypatch.setenv(
        "MEDIASHORTCODES_CACHE_KEY", "the other machine's key, 32 characters or more"
    )
    site = make_site()
    build_site(config_mod.load(site))
    reference = tree(site / "_site")
    other = os.environ["MEDIASHORTCODES_CACHE_KEY"].encode()
    for entry in entries(env):  # signed by that machine: sound there
        written(entry, with_payload(page_of(entry)), other)
    monkeypatch.delenv("MEDIASHORTCODES_CACHE_KEY")  # this machine: its own key

    result = build_site(config_mod.load(site))
    assert published(site / "_site", "alert(") == []
    assert tree(site / "_site") == reference
    assert memo_warnings(result.warnings) == [
        f"{PAGES} page memo entries failed the signature check and were not used; pages rendered"
    ]


def test_refresh_and_cache_clear_drop_the_memo(make_site, env) -> None:
    site = make_site()
    build_site(config_mod.load(site))
    for entry in entries(env):
        written(entry, with_payload(page_of(entry)), local_key(env))
    build_site(config_mod.load(site), BuildOptions(refresh=True))
    assert published(site / "_site", PAYLOAD) == []
    assert len(entries(env)) == PAGES, "written again"

    for entry in entries(env):
        written(entry, with_payload(page_of(entry)), local_key(env))
    done = CliRunner().invoke(cli, ["cache", "clear", str(site)], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    assert entries(env) == []
    build_site(config_mod.load(site))
    assert published(site / "_site", PAYLOAD) == []


def aged(cache: Path, days: float) -> None:
    """Every entry (and when the memo was pruned) last used ``days`` ago."""
    then = time.time() - days * 86400
    for path in (cache / "memo").rglob("*"):
        if path.is_file():
            os.utime(path, (then, then))


def test_entries_no_build_used_for_30_days_are_removed(make_site, env) -> None:
    site = make_site()
    build_site(config_mod.load(site))
    aged(env, 31)
    build_site(config_mod.load(site))
    assert len(entries(env)) == PAGES, "used by this build: kept"

    (site / "content" / "gallery.md").unlink()  # every page's key changes (site.pages)
    aged(env, 29)
    build_site(config_mod.load(site))
    assert len(entries(env)) == 2 * PAGES - 1, "not used for 29 days: kept"
    aged(env, 31)
    build_site(config_mod.load(site))
    assert len(entries(env)) == PAGES - 1


LAYOUT = """<h1>{{ page.subtitle }}</h1>{{ page.content }}"""
PAGE = """---\ntitle: {title}\n---\n# Heading <% media_image 101 caption="A lake" %>\n\ntext\n"""


def test_a_page_from_the_memo_gives_the_warnings_rendering_it_gives(make_site, env) -> None:
    site = make_site(
        {
            "templates/page.html": LAYOUT,
            "content/one.md": PAGE.format(title="One"),
            "content/two.md": PAGE.format(title="Two"),
        }
    )
    rendered = build_site(config_mod.load(site)).warnings
    assert any("subtitle" in str(w) for w in rendered) and any(
        "heading" in str(w) for w in rendered
    )
    memo = build_site(config_mod.load(site)).warnings
    assert len(entries(env)) == PAGES + 2, "every page from the memo"
    assert [str(w) for w in memo] == [str(w) for w in rendered]
    every = build_site(config_mod.load(site), BuildOptions(memo=False)).warnings
    assert [str(w) for w in every] == [str(w) for w in rendered]
