"""media/encode.py: what an encoding keeps and drops, and when formats are left out."""

from __future__ import annotations

import asyncio
import io
import struct
import sys
import zlib
from pathlib import Path

import pytest

from mediashortcodes.config import Config, ImagesConfig
from mediashortcodes.errors import ConfigError
from mediashortcodes.language import Location, Shortcode
from mediashortcodes.media import encode
from mediashortcodes.media.cache import MediaCache
from mediashortcodes.media.resolver import ImageOutcome, Resolution
from mediashortcodes.records import File

Image = pytest.importorskip("PIL.Image")


def jpeg_with_orientation_icc_and_gps() -> bytes:
    image = Image.new("RGB", (60, 40), (200, 30, 30))
    exif = image.getexif()
    exif[0x0112] = 6  # stored on its side: upright it is 40 x 60
    exif[0x8825] = {1: "N", 2: (59.0, 20.0, 0.0)}  # GPS
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif, icc_profile=b"an-icc-profile")
    return out.getvalue()


@pytest.mark.parametrize("kind", ["avif", "webp"])
def test_an_encoding_is_upright_keeps_its_icc_profile_and_never_its_location(kind: str):
    data = encode.work(jpeg_with_orientation_icc_and_gps(), kind, 50)
    assert isinstance(data, bytes)
    made = Image.open(io.BytesIO(data))
    assert (made.format.lower(), made.size) == (kind, (40, 60))
    assert made.info.get("icc_profile") == b"an-icc-profile"
    assert not made.getexif().get_ifd(0x8825) and b"GPS" not in data


def test_an_animated_image_is_never_encoded_and_a_placeholder_is_small():
    frames = [Image.new("RGB", (20, 20), c) for c in ((255, 0, 0), (0, 0, 255))]
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:])
    assert encode.work(out.getvalue(), "webp", 75) is None
    photo = jpeg_with_orientation_icc_and_gps()
    colour = str(encode.work(photo, "color", 0))
    rgb = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]  # "#rrggbb", near the red it is
    assert all(abs(a - b) <= 4 for a, b in zip(rgb, (200, 30, 30), strict=True)), colour
    blur = encode.work(photo, "blur", 0)
    assert isinstance(blur, str) and blur.startswith("data:image/webp;base64,")
    assert len(blur) <= encode.MAX_PREVIEW


def test_formats_without_pillow_name_what_to_install(monkeypatch: pytest.MonkeyPatch):
    encode.codecs.cache_clear()
    monkeypatch.setitem(sys.modules, "PIL", None)
    try:
        with pytest.raises(ConfigError, match=r'pip install "mediashortcodes\[images\]"'):
            encode.codecs(("avif",))
    finally:
        encode.codecs.cache_clear()


def test_an_encoding_no_smaller_than_the_original_leaves_that_format_out(tmp_path: Path):
    """A 2 x 2 PNG: its AVIF (a container of some 300 bytes) is larger, so no AVIF source;
    made once, then answered from the cache: a second build encodes nothing."""
    out = io.BytesIO()
    Image.new("RGB", (2, 2), (10, 200, 10)).save(out, "PNG")
    cache = MediaCache(tmp_path / "cache", "test", ttl=60)
    stored = cache.put_variant("variant:1", out.getvalue(), ext="png", width=2, height=2)
    file = File(id=1, name="Dot", filename="dot.png")
    sc = Shortcode("media_image", 1, None, (("formats", "avif"),), Location("p.md", 1, 1), "x")
    config = Config(images=ImagesConfig())
    made = []
    for _build in (1, 2):
        resolution = Resolution([sc], [ImageOutcome(file, stored, "dot-1-original-aaaa.png")])
        made.append(asyncio.run(encode.add_encodings(resolution, config, cache, print)))
        [outcome] = resolution.results
        assert isinstance(outcome, ImageOutcome) and outcome.sources == ()
    assert made == [1, 0]


def test_an_image_pillow_cannot_decode_is_a_warning_and_its_format_left_out(tmp_path: Path):
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", 40, 40, 8, 0, 0, 0, 0)
    broken = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", b"no zlib")
        + chunk(b"IEND", b"")
    )
    cache = MediaCache(tmp_path / "cache", "test", ttl=60)
    stored = cache.put_variant("variant:1", broken, ext="png", width=40, height=40)
    sc = Shortcode("media_image", 1, None, (("formats", "webp"),), Location("p.md", 1, 1), "x")
    image = ImageOutcome(File(id=1, name="Grey", filename="grey.png"), stored, "grey-1-a.png")
    resolution = Resolution([sc], [image])
    warnings: list[str] = []
    asyncio.run(encode.add_encodings(resolution, Config(), cache, warnings.append))
    [outcome] = resolution.results
    assert isinstance(outcome, ImageOutcome) and outcome.sources == ()
    [warning] = warnings
    assert "its webp could not be made" in warning and "left out" in warning
