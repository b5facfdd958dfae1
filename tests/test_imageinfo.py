"""imageinfo: real images made with Pillow, cut short, corrupted, mislabelled and random."""

from __future__ import annotations

import contextlib
import io
import struct
import zlib
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mediashortcodes.errors import InvalidResponseError
from mediashortcodes.media import imageinfo
from mediashortcodes.media.imageinfo import ImageError, ImageInfo, matches, probe, verify

Image = pytest.importorskip("PIL.Image")


def _encode(image, fmt: str, **options) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def _noise(mode: str, size: tuple[int, int]):
    # Noise makes the compressed data long enough to hold 0xFF bytes, restart markers etc.
    raw = bytes((i * 7919 + (i >> 3) * 104729) % 251 for i in range(size[0] * size[1] * 4))
    return Image.frombytes("RGBA", size, raw).convert(mode)


@cache
def samples() -> dict[str, tuple[bytes, str, int, int]]:
    """name -> (bytes, kind, width, height)"""
    rgb = _noise("RGB", (37, 23))
    rgba = _noise("RGBA", (16, 9))
    frames = [_noise("RGB", (12, 10)), _noise("RGB", (12, 10)).rotate(90)]
    exif = Image.Exif()
    exif[0x010E] = "a description"
    return {
        "jpeg": (_encode(rgb, "JPEG", quality=90), "jpeg", 37, 23),
        "jpeg-progressive": (_encode(rgb, "JPEG", progressive=True), "jpeg", 37, 23),
        "jpeg-exif-restart": (
            _encode(rgb, "JPEG", exif=exif.tobytes(), restart_marker_blocks=1),
            "jpeg",
            37,
            23,
        ),
        "jpeg-grey": (_encode(rgb.convert("L"), "JPEG"), "jpeg", 37, 23),
        "png": (_encode(rgb, "PNG"), "png", 37, 23),
        "png-alpha": (_encode(rgba, "PNG"), "png", 16, 9),
        "png-palette": (_encode(rgb.convert("P"), "PNG"), "png", 37, 23),
        "gif": (_encode(rgb.convert("P"), "GIF"), "gif", 37, 23),
        "gif-animated": (
            _encode(frames[0], "GIF", save_all=True, append_images=frames[1:], duration=50),
            "gif",
            12,
            10,
        ),
        "webp-lossy": (_encode(rgb, "WEBP", quality=80), "webp", 37, 23),
        "webp-lossless": (_encode(rgb, "WEBP", lossless=True), "webp", 37, 23),
        "webp-alpha": (_encode(rgba, "WEBP", quality=80), "webp", 16, 9),
        "webp-animated": (
            _encode(frames[0], "WEBP", save_all=True, append_images=frames[1:], duration=50),
            "webp",
            12,
            10,
        ),
    }


SAMPLE_NAMES = [
    "jpeg",
    "jpeg-progressive",
    "jpeg-exif-restart",
    "jpeg-grey",
    "png",
    "png-alpha",
    "png-palette",
    "gif",
    "gif-animated",
    "webp-lossy",
    "webp-lossless",
    "webp-alpha",
    "webp-animated",
]


def test_sample_names_cover_every_sample():
    assert sorted(SAMPLE_NAMES) == sorted(samples())


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_probe_reads_kind_and_real_pixel_size(name):
    data, kind, width, height = samples()[name]
    info = probe(data)
    assert info == ImageInfo(kind, width, height, imageinfo.MIME_TYPES[kind])


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_an_image_cut_short_is_refused(name):
    data = samples()[name][0]
    for cut in sorted({1, 2, 8, 13, 20, len(data) // 3, len(data) // 2, len(data) - 1}):
        with pytest.raises(ImageError):
            probe(data[:cut])


@pytest.mark.parametrize("name", SAMPLE_NAMES)
@settings(max_examples=40, deadline=None)
@given(fraction=st.floats(min_value=0.0, max_value=1.0, exclude_max=True))
def test_every_strict_prefix_of_an_image_is_refused(name, fraction):
    data = samples()[name][0]
    with pytest.raises(ImageError):
        probe(data[: int(len(data) * fraction)])


def test_a_png_with_a_flipped_byte_fails_its_checksum():
    data = bytearray(samples()["png"][0])
    data[len(data) // 2] ^= 0x01
    with pytest.raises(ImageError, match="checksum"):
        probe(bytes(data))


def test_a_png_without_image_data_is_refused():
    data = samples()["png"][0]
    ihdr_end = 8 + 8 + 13 + 4
    iend = data[-12:]
    with pytest.raises(ImageError, match="no image data"):
        probe(data[:ihdr_end] + iend)


def test_a_png_whose_first_chunk_is_not_ihdr_is_refused():
    body = b"abcd"
    chunk = len(body).to_bytes(4, "big") + b"tEXt" + body
    chunk += zlib.crc32(b"tEXt" + body).to_bytes(4, "big")
    with pytest.raises(ImageError, match="IHDR"):
        probe(imageinfo._PNG_SIGNATURE + chunk)


def test_a_jpeg_without_a_frame_header_is_refused():
    with pytest.raises(ImageError, match="no frame header"):
        probe(b"\xff\xd8\xff\xd9")


def test_a_jpeg_with_garbage_between_segments_is_refused():
    data = samples()["jpeg"][0]
    with pytest.raises(ImageError, match="expected a marker"):
        probe(data[:2] + b"\x00" + data[2:])


@pytest.mark.parametrize("name", ["jpeg", "png", "gif"])
def test_trailing_bytes_after_the_end_of_a_jpeg_png_or_gif_are_accepted(name):
    """As docs/image-verification.md says (issue 29, item 12): a camera's trailer after EOI,
    bytes after a PNG's IEND or a GIF's trailer; published as they came."""
    data, _, width, height = samples()[name]
    info = probe(data + b"trailing camera data")
    assert (info.width, info.height) == (width, height)


def _png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _png_claiming(width: int, height: int) -> bytes:
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
        + _png_chunk(b"IDAT", zlib.compress(b"\0\0"))
        + _png_chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(("width", "height"), [(100_000, 100_000), (16385, 16384), (1, 2**31)])
def test_a_header_claiming_more_pixels_than_a_page_may_show_is_refused(width, height):
    """issue 29, item 12: a 200-byte PNG claiming 100000 x 100000 pixels."""
    with pytest.raises(ImageError, match=f"the PNG claims {width}x{height} pixels, more than"):
        probe(_png_claiming(width, height))
    assert probe(_png_claiming(16384, 16384)).width == 16384  # the most a page may show


def test_a_webp_with_a_wrong_riff_size_is_refused():
    data = samples()["webp-lossy"][0]
    with pytest.raises(ImageError, match="announces"):
        probe(data + b"\x00\x00")


def test_a_gif_without_a_frame_is_refused():
    screen_without_palette = b"GIF89a" + (4).to_bytes(2, "little") * 2 + b"\x00\x00\x00"
    with pytest.raises(ImageError, match="no image"):
        probe(screen_without_palette + b"\x3b")


@pytest.mark.parametrize(
    ("data", "hint"),
    [
        (b"", "empty"),
        (b"<!DOCTYPE html><html><body>Link expired</body></html>", "HTML page"),
        (b'{"error": "expired"}', "JSON"),
        (b"\x00\x01\x02\x03garbage", "starts with 00 01 02 03"),
    ],
)
def test_something_that_is_not_an_image_is_named_in_the_error(data, hint):
    with pytest.raises(ImageError, match="not a JPEG, PNG, GIF, WebP or AVIF") as caught:
        probe(data)
    assert hint in str(caught.value)


def test_image_errors_are_invalid_responses_of_the_service():
    assert issubclass(ImageError, InvalidResponseError)


@pytest.mark.parametrize(
    ("filetype", "kind", "expected"),
    [
        ("jpg", "jpeg", True),
        ("JPEG", "jpeg", True),
        (".jpg", "jpeg", True),
        ("png", "png", True),
        ("gif", "gif", True),
        ("webp", "webp", True),
        ("png", "jpeg", False),
        ("jpg", "png", False),
        ("tiff", "jpeg", False),
        ("", "png", True),
    ],
)
def test_matches_compares_the_announced_filetype_with_the_real_kind(filetype, kind, expected):
    info = ImageInfo(kind, 1, 1, imageinfo.MIME_TYPES[kind])
    assert matches(info, filetype) is expected


def test_verify_returns_the_info_of_a_matching_download():
    data = samples()["png"][0]
    assert verify(data, "png", expected_length=len(data)) == probe(data)


def test_verify_refuses_an_image_of_another_type_than_announced():
    with pytest.raises(ImageError, match="announced a 'jpg' file but sent a PNG"):
        verify(samples()["png"][0], "jpg")


def test_verify_refuses_a_download_shorter_than_announced():
    data = samples()["gif"][0]
    with pytest.raises(ImageError, match="incomplete download"):
        verify(data, "gif", expected_length=len(data) + 10)


def test_extension_is_the_usual_one_for_the_kind():
    assert probe(samples()["jpeg"][0]).extension == "jpg"
    assert probe(samples()["webp-lossy"][0]).extension == "webp"


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=512))
def test_random_bytes_raise_only_image_error(data):
    with contextlib.suppress(ImageError):
        probe(data)


@settings(max_examples=300, deadline=None)
@given(
    prefix=st.sampled_from(
        [b"\x89PNG\r\n\x1a\n", b"\xff\xd8", b"GIF89a", b"GIF87a", b"RIFF\x20\x00\x00\x00WEBP"]
    ),
    rest=st.binary(max_size=512),
)
def test_random_bytes_behind_a_valid_signature_raise_only_image_error(prefix, rest):
    with contextlib.suppress(ImageError):
        probe(prefix + rest)


@settings(max_examples=200, deadline=None)
@given(
    name=st.sampled_from(SAMPLE_NAMES),
    position=st.floats(min_value=0.0, max_value=1.0, exclude_max=True),
    value=st.integers(min_value=0, max_value=255),
)
def test_a_corrupted_byte_in_a_real_image_raises_only_image_error(name, position, value):
    data = bytearray(samples()[name][0])
    data[int(len(data) * position)] = value
    try:
        info = probe(bytes(data))
    except ImageError:
        return
    assert info.width > 0 and info.height > 0


def test_the_public_names_are_exported():
    assert sorted(imageinfo.__all__) == [
        "ImageError",
        "ImageInfo",
        "kind_for_filetype",
        "matches",
        "probe",
        "verify",
    ]
    assert all(hasattr(imageinfo, name) for name in imageinfo.__all__)


# -- EXIF orientation: the size browsers show ---------------------------------------------


def _camera_original(orientation: int | None, size: tuple[int, int] = (40, 20)) -> bytes:
    """A JPEG as a camera writes it: the stored frame, and an EXIF orientation tag."""
    exif = Image.Exif()
    if orientation is not None:
        exif[0x0112] = orientation
    exif[0x010F] = "Camera maker"  # another tag before it, as cameras write
    return _encode(_noise("RGB", size), "JPEG", exif=exif.tobytes())


@pytest.mark.parametrize("orientation", [None, 1, 2, 3, 4, 5, 6, 7, 8])
def test_the_size_is_the_one_browsers_show_after_exif_orientation(orientation) -> None:
    from PIL import ImageOps

    data = _camera_original(orientation)
    with Image.open(io.BytesIO(data)) as image:
        upright = ImageOps.exif_transpose(image).size  # what a browser draws
    info = probe(data)
    assert (info.width, info.height) == upright
    assert upright == ((20, 40) if orientation in (5, 6, 7, 8) else (40, 20))


def test_a_big_endian_exif_block_is_read_too() -> None:
    plain = _encode(_noise("RGB", (40, 20)), "JPEG")
    tiff = b"MM\x00\x2a\x00\x00\x00\x08" + b"\x00\x01" + b"\x01\x12\x00\x03\x00\x00\x00\x01"
    tiff += b"\x00\x06\x00\x00" + b"\x00\x00\x00\x00"  # orientation 6, no next directory
    segment = b"Exif\x00\x00" + tiff
    data = plain[:2] + b"\xff\xe1" + (len(segment) + 2).to_bytes(2, "big") + segment + plain[2:]
    assert (probe(data).width, probe(data).height) == (20, 40)


@pytest.mark.parametrize(
    "exif",
    [b"Exif\x00\x00", b"Exif\x00\x00XX\x00\x2a", b"Exif\x00\x00II\x2a\x00\xff\xff\xff\x7f"],
    ids=["empty", "unknown-byte-order", "directory-out-of-range"],
)
def test_an_unreadable_exif_block_leaves_the_stored_size(exif: bytes) -> None:
    plain = _encode(_noise("RGB", (40, 20)), "JPEG")
    data = plain[:2] + b"\xff\xe1" + (len(exif) + 2).to_bytes(2, "big") + exif + plain[2:]
    assert (probe(data).width, probe(data).height) == (40, 20)
