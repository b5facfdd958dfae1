"""A live page publishes its images only inside MEDIA_ROOT: a link planted there (the media
folder, or an image's name) is never written through, nor left to serve what it points to."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mediashortcodes.errors import ConfigError

from .conftest import Make, shortcode

SECRET = b"export MEDIASHORTCODES_CLIENT_SECRET=planted-secret\n"


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "bashrc").write_bytes(SECRET)
    return folder


def test_a_media_folder_that_is_a_link_out_of_media_root_is_refused_and_nothing_written(
    make: Make, tmp_path: Path, elsewhere: Path
) -> None:
    (tmp_path / "media_root").mkdir()
    os.symlink(elsewhere, tmp_path / "media_root" / "media")

    with pytest.raises(ConfigError) as raised:
        make().render(shortcode("<% media_image 10 %>"))
    assert str(raised.value).startswith(
        f"{tmp_path / 'media_root' / 'media'}: is a symlink, so nothing is read or written "
        "through it"
    )
    assert sorted(p.name for p in elsewhere.iterdir()) == ["bashrc"]


def test_an_image_name_that_is_a_link_to_a_private_file_is_replaced_by_the_image(
    make: Make, tmp_path: Path, elsewhere: Path, jpeg: bytes
) -> None:
    live = make()
    live.render(shortcode("<% media_image 10 %>"))
    (published,) = (tmp_path / "media_root" / "media").iterdir()
    published.unlink()
    os.symlink(elsewhere / "bashrc", published)  # what a web server would now serve

    html = live.render(shortcode("<% media_image 10 %>"))
    assert f"/media/media/{published.name}" in html
    assert not published.is_symlink()
    assert published.read_bytes() == jpeg
    assert (elsewhere / "bashrc").read_bytes() == SECRET
