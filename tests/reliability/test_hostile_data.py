"""Case 2: hostile data from the service, typed into the DAM by anyone.

Names, alt text, file names, mediaIds and download links come from the service's answers:
none of them may inject markup or script into a page, and nothing may be written outside
the output and cache directories.
"""

from __future__ import annotations

import re
import struct
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from mediashortcodes.sandbox import Sandbox, imaging, media

from .harness import Site, snapshot

HOSTILE = "\"'><script>alert(1)</script><img src=x onerror=alert(2)>&amp; </figure>"
PUBLISHED_NAME = re.compile(
    r"[a-z0-9]+(?:-[a-z0-9]+)*-\d+-[a-z0-9-]+-[0-9a-f]{10}\.(?:jpg|png)"
    r"|mediashortcodes-click-[0-9a-f]{10}\.js"  # the click-to-load script
)

HOSTILE_PAGE = """---
title: Hostile
---
<% media_image 901 %>

<% media_image 901 small caption="A caption" %>

<% media_image 902 %>

<% media_image 903 thumb %>

<% media_image 904 %>

<% media_video 905 %>

<% media_video 905 embed=script %>
"""


class Elements(HTMLParser):
    """Every element of a page with its attributes, and the text of its scripts."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data

    def with_tag(self, tag: str) -> list[dict[str, str | None]]:
        return [attrs for name, attrs in self.elements if name == tag]


def pages(site: Site) -> dict[str, Elements]:
    return {
        path.relative_to(site.output).as_posix(): Elements(path.read_text("utf-8"))
        for path in site.output.rglob("*.html")
    }


def assert_nothing_injected(site: Site) -> None:
    for name, page in pages(site).items():
        handlers = [(tag, a) for tag, attrs in page.elements for a in attrs if a.startswith("on")]
        assert handlers == [], f"{name}: event handler attributes {handlers}"
        assert not any("alert(" in script for script in page.scripts), f"{name}: script injected"
        assert [a for a in page.with_tag("img") if a.get("src") == "x"] == [], name


@pytest.fixture
def hostile_sandbox(own_sandbox: Sandbox) -> Sandbox:
    """The demo library plus files whose metadata was typed by an attacker."""
    library = own_sandbox.library
    library.add_folder("Hostile", id=50)
    library.add_image(50, HOSTILE, id=901, filename="../../../../escape.jpg", alttext=HOSTILE)
    library.add_image(
        50, "back", id=902, filename="..\\..\\..\\windows\\evil.png", alttext="' onmouseover='x"
    )
    library.add_image(50, "absolute", id=903, filename="/etc/cron.d/evil.jpg")
    library.add_image(50, "dots", id=904, filename="..", alttext="")
    library.add_video(50, HOSTILE, id=905, media_id="Ab3De5Gh")
    library.add_video(50, "quote", id=906, media_id='x"</script><script>alert(5)</script>')
    library.add_video(50, "attribute", id=907, media_id="a' onload='alert(6)")
    return own_sandbox


def hostile_site(make_site, sandbox: Sandbox, page: str = HOSTILE_PAGE) -> Site:
    site = make_site(sandbox)
    (site.root / "content" / "hostile.md").write_text(page, encoding="utf-8")
    return site


def outside_output_and_cache(site: Site) -> dict[str, bytes]:
    """Every file of the test's directory except the output, the cache and the state."""
    keep = (site.output, site.cache_dir, site.state_path.parent)
    files = snapshot(site.scan_root)
    return {
        name: data
        for name, data in files.items()
        if not any((site.scan_root / name).is_relative_to(root) for root in keep)
    }


def test_names_and_alt_text_from_the_service_stay_text_in_every_page(make_site, hostile_sandbox):
    site = hostile_site(make_site, hostile_sandbox)
    run = site.run("build")
    assert run.exit_code == 0, str(run)
    assert_nothing_injected(site)
    page = pages(site)["hostile/index.html"]
    assert [a["alt"] for a in page.with_tag("img")].count(HOSTILE) == 2
    assert [a["title"] for a in page.with_tag("iframe")] == [HOSTILE]
    assert len(page.scripts) == 1  # the one script embed, and nothing else


def test_file_names_with_path_parts_are_published_inside_the_media_directory(
    make_site, hostile_sandbox
):
    site = hostile_site(make_site, hostile_sandbox)
    before = outside_output_and_cache(site)
    run = site.run("build")
    assert run.exit_code == 0, str(run)
    assert outside_output_and_cache(site) == before
    media = sorted(p.name for p in (site.output / "media").iterdir())
    assert [n for n in media if not PUBLISHED_NAME.fullmatch(n)] == []
    assert {n.split("-9")[0] for n in media if re.search(r"-90[1-4]-", n)} == {
        "escape",
        "windows-evil",
        "evil",
        "file",
    }


@pytest.mark.parametrize("file_id", [906, 907])
def test_a_media_id_holding_quotes_or_script_is_refused_with_its_place(
    make_site, hostile_sandbox, file_id
):
    site = hostile_site(make_site, hostile_sandbox, f"Watch:\n\n<% media_video {file_id} %>\n")
    run = site.run("build")
    assert run.exit_code == 1, str(run)
    assert f"content/hostile.md:3:1: file {file_id} has a mediaId the service should not send" in (
        run.stderr
    )
    assert not site.output.exists()

    keep_going = site.run("build", "--keep-going")
    assert keep_going.exit_code == 0, str(keep_going)
    assert_nothing_injected(site)
    spans = pages(site)["hostile/index.html"].with_tag("span")
    placeholders = [a for a in spans if a.get("class") == "mediashortcodes-missing"]
    assert [a["data-file-id"] for a in placeholders] == [str(file_id)]


FOREIGN_LINKS = {
    "another https host": ("https://evil.example.net", "allowed_download_hosts"),
    "another http host": ("http://evil.example.net", "allowed_download_hosts"),
    "ftp": ("ftp://evil.example.net", "scheme 'ftp'"),
    "a local file": ("file://", "scheme 'file'"),
    "javascript": ("javascript:alert(1)//", "scheme 'javascript'"),
}


@pytest.mark.parametrize("case", FOREIGN_LINKS)
def test_a_download_link_on_an_unexpected_host_or_scheme_is_refused(case, site, sandbox, reference):
    url, setting = FOREIGN_LINKS[case]
    sandbox.reset_stats()
    sandbox.fault("foreign_link", url=url, path_prefix="/1/file/")
    run = site.run("build")
    assert run.exit_code == 1, str(run)
    assert run.stderr.count(setting) == 27  # every image, at its shortcode
    assert sandbox.stats.get("download", 0) == 0
    assert not site.output.exists()


def test_a_download_host_named_in_the_settings_is_accepted(site, sandbox, reference):
    port = site.media_url.rsplit(":", 1)[1]
    sandbox.fault("foreign_link", url=f"http://localhost:{port}", path_prefix="/1/file/")
    refused = site.run("build")
    assert refused.exit_code == 1
    assert "download link on host localhost" in refused.stderr

    site.configure(service={"allowed_download_hosts": ["localhost"]})
    run = site.run("build")
    assert run.exit_code == 0, str(run)
    assert site.snapshot() == reference


def test_a_download_larger_than_the_configured_cap_is_refused(site, sandbox):
    site.configure(images={"max_bytes": 1_000_000})
    sandbox.fault("oversize", size=3_000_000, path_prefix="/dn/")
    run = site.run("build")
    assert run.exit_code == 1, str(run)
    assert run.stderr.count("larger than the limit of 1000000 bytes") == 27
    assert "raise [images] max_bytes" in run.stderr
    # Nothing from /dn/ was stored: the one blob is the click-to-load video's poster.
    stored = list(Path(site.cache_dir).rglob("blobs/*/*"))
    assert len(stored) == 1 and stored[0].stat().st_size < 1_000_000


def test_a_download_larger_than_any_image_should_be_is_refused_by_default(site, sandbox):
    sandbox.fault("oversize", size=50 * 2**20 + 1, count=1, path_prefix="/dn/")
    run = site.run("build")
    assert run.exit_code == 1, str(run)
    assert run.stderr.count("larger than the limit of 52428800 bytes") == 1


def png_claiming(width: int, height: int) -> bytes:
    """A well-formed PNG whose header claims a size its few bytes of pixels never fill."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00" * 64)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def test_an_image_claiming_more_pixels_than_a_page_may_show_is_a_problem(
    make_site, own_sandbox, monkeypatch
):
    # The sandbox reads sizes with Pillow, which refuses such a claim: tell it the claim.
    huge, real = png_claiming(100_000, 100_000), imaging.size_of
    for module in (imaging, media):
        monkeypatch.setattr(module, "size_of", lambda d: (100_000,) * 2 if d == huge else real(d))
    own_sandbox.library.add_folder("Huge", id=60)
    own_sandbox.library.add_image(60, "huge", id=960, filename="huge.png", data=huge)
    site = make_site(own_sandbox, service={"timeout": 60.0})  # the machine may be busy
    (site.root / "content" / "huge.md").write_text("<% media_image 960 original %>\n")
    run = site.run("build")
    assert run.exit_code == 1, str(run)
    assert "file 960" in run.stderr and "claims 100000x100000 pixels" in run.stderr
    assert not site.output.exists() or not list(site.output.rglob("huge*"))
