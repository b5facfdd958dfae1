"""A camera original (a JPEG stored sideways with an EXIF orientation) is published with the
width and height browsers show it at, so the layout keeps its aspect ratio."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli

from .conftest import small_site

Image = pytest.importorskip("PIL.Image")


def sideways_photo() -> bytes:
    """A 60x40 frame that a camera held upright tagged "rotate 90 degrees" (orientation 6)."""
    exif = Image.Exif()
    exif[0x0112] = 6
    out = io.BytesIO()
    Image.new("RGB", (60, 40), (30, 90, 150)).save(out, "JPEG", exif=exif.tobytes())
    return out.getvalue()


@pytest.mark.usefixtures("env")
def test_a_rotated_camera_original_gets_the_size_browsers_show(tmp_path: Path) -> None:
    from mediashortcodes.sandbox import Library, Sandbox

    library = Library.demo()
    photo = library.add_image(1, "Portrait", data=sideways_photo(), filename="portrait.jpg")
    with Sandbox(library=library) as sandbox:
        page = f'<% media_image {photo.id} original alt="A portrait" %>\n'
        files = {"templates/page.html": "{{ page.content }}", "content/index.md": page}
        site = small_site(tmp_path / "site", sandbox, files, player=False)
        result = CliRunner().invoke(cli, ["build", str(site)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    html = (site / "_site" / "index.html").read_text()
    (img,) = re.findall(r"<img [^>]*>", html)
    assert 'width="40"' in img and 'height="60"' in img, img
