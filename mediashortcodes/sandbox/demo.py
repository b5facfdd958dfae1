"""The data of the demo library (ids documented in docs/sandbox.md) and of synthetic
benchmark libraries, as the fields of ``library.LibraryFolder`` and ``library.LibraryFile``
(``library.Library.demo`` and ``.synthetic`` make the records: data never imports them).

The ids are part of the sandbox's contract: the example site and the tests use them.
"""

from __future__ import annotations

import random
from typing import Any

HIDDEN_FOLDER_ID = 8

Fields = dict[str, Any]

DEMO_FOLDERS: tuple[Fields, ...] = (
    {"id": 1, "name": "Nature"},
    {"id": 2, "name": "Forests", "parent": 1},
    {"id": 3, "name": "Autumn", "parent": 2},
    {"id": 4, "name": "Coast", "parent": 1},
    {"id": 5, "name": "City"},
    {"id": 6, "name": "People"},
    {"id": 7, "name": "Videos"},
    {"id": HIDDEN_FOLDER_ID, "name": "Restricted", "visible": False},
)

_NO_PERSON, _CONTRACT = "NO_PERSON", "EXTERN_CONTRACT"

# fmt: off
# id, folder, name, filename, width, height, alt text, uploaded, gdprStatus, gdprType
_IMAGES: tuple[tuple[int, int, str, str, int, int, str, str, str, str], ...] = (
    (101, 1, "Mountain lake at dawn", "mountain-lake.jpg", 1600, 1067,
     "A calm mountain lake reflecting pink clouds at dawn",
     "2023-03-14T07:12:05.120+01:00", "OK", _NO_PERSON),
    (102, 1, "Meadow flowers", "meadow-flowers.jpg", 1200, 1200,
     "Yellow and white wildflowers in a green meadow",
     "2023-05-02T11:40:31.407+02:00", "OK", _NO_PERSON),
    (103, 1, "Waterfall", "waterfall.jpg", 800, 1200,
     "A narrow waterfall falling over dark rocks",
     "2023-06-21T16:05:59.981+02:00", "OK", _NO_PERSON),
    (104, 2, "Pine forest", "pine-forest.jpg", 1600, 1067,
     "Tall pine trunks in the morning mist",
     "2023-08-09T06:30:12.002+02:00", "OK", _NO_PERSON),
    (105, 2, "Moss close-up", "moss.png", 640, 640,
     "",
     "2023-08-09T06:41:47.550+02:00", "OK", _NO_PERSON),
    (106, 2, "Forest path", "forest-path.jpg", 1200, 800,
     "A gravel path curving through a birch forest",
     "2023-09-17T13:22:08.314+02:00", "OK", _NO_PERSON),
    (107, 3, "Autumn leaves", "autumn-leaves.jpg", 1600, 1067,
     "Red and orange maple leaves on wet ground",
     "2023-10-28T10:11:19.765+02:00", "OK", _NO_PERSON),
    (108, 3, "Mushrooms", "mushrooms.png", 800, 600,
     "Three brown mushrooms growing from a fallen log",
     "2023-10-30T15:47:33.090+01:00", "OK", _NO_PERSON),
    (109, 4, "Lighthouse", "lighthouse.jpg", 1067, 1600,
     "A white lighthouse on a granite cliff",
     "2023-07-04T19:58:41.233+02:00", "OK", _NO_PERSON),
    (110, 4, "Harbour boats", "harbour-boats.jpg", 1600, 900,
     "Fishing boats moored in a small harbour",
     "2023-07-05T08:03:27.871+02:00", "OK", _NO_PERSON),
    (111, 4, "Beach stones", "beach-stones.png", 1000, 1000,
     "",
     "2023-07-06T12:15:00.000+02:00", "OK", _NO_PERSON),
    (112, 5, "Skyline at night", "skyline-night.jpg", 1920, 1080,
     "City skyline with lit office towers at night",
     "2024-01-19T21:34:56.789+01:00", "OK", _NO_PERSON),
    (113, 5, "Tram stop", "tram-stop.jpg", 1200, 800,
     "A blue tram arriving at a covered stop",
     "2024-02-03T09:17:44.610+01:00", "OK", _NO_PERSON),
    (114, 5, "Old town map", "old-town-map.png", 1200, 1200,
     "Map of the old town with the main square marked",
     "2024-02-11T14:02:10.005+01:00", "OK", _NO_PERSON),
    (115, 5, "Café terrace", "cafe-terrace.jpg", 1600, 1067,
     'Café "Lilla Hörnan" & its terrace <in spring>',
     "2024-04-22T17:45:03.338+02:00", "OK", _NO_PERSON),
    (116, 6, "Team meeting", "team-meeting.jpg", 1600, 1067,
     "Four colleagues around a table with laptops",
     "2024-03-07T10:00:00.500+01:00", "OK", _CONTRACT),
    (117, 6, "Portrait in red", "portrait-red.jpg", 800, 1200,
     "Portrait of a smiling woman in a red coat",
     "2022-11-30T12:30:45.125+01:00", "EXPIRED", _CONTRACT),
    (118, 6, "Workshop", "workshop.png", 1200, 800,
     "Hands assembling a wooden chair",
     "2024-05-15T08:45:12.777+02:00", "OK", _CONTRACT),
    (119, 1, "Northern lights", "northern-lights.jpg", 1600, 1067,
     "Green northern lights above a snowy ridge",
     "2024-01-02T23:59:59.999+01:00", "OK", _NO_PERSON),
    (120, 5, "Company logo", "logo.png", 600, 200,
     "",
     "2022-06-01T09:00:00.000+02:00", "OK", _NO_PERSON),
)

# id, folder, name, filename, mediaId, alt text, uploaded
_VIDEOS: tuple[tuple[int, int, str, str, str, str, str], ...] = (
    (201, 7, "Welcome to the park", "welcome.mp4", "Xk7Pq2Lm",
     "A guide welcoming visitors at the park gate", "2023-04-01T10:00:00.000+02:00"),
    (202, 7, "Drone flight over the coast", "coast-drone.mp4", "Rt5Vn8Wz",
     "", "2023-07-08T18:20:31.442+02:00"),
    (203, 7, "Interview with the gardener", "gardener-interview.mp4", "Hd3Fs9Qa",
     "The head gardener talking in the greenhouse", "2023-09-12T14:10:09.308+02:00"),
    (204, 7, "City traffic time-lapse", "traffic-timelapse.mov", "Mb6Jc4Ty",
     "Evening traffic streaming across the main bridge", "2024-02-20T20:05:55.016+01:00"),
    (205, 2, "How to plant a tree", "planting.mp4", "Ge2Uo7Nr",
     "Step by step: planting a young oak", "2024-04-10T09:30:00.250+02:00"),
)
# fmt: on


def _demo_files() -> tuple[Fields, ...]:
    files = [
        dict(
            id=fid,
            folder_id=folder,
            name=name,
            filename=filename,
            width=w,
            height=h,
            alttext=alt,
            uploaded=uploaded,
            gdpr_status=status,
            gdpr_type=kind,
            uploaded_by=7 if folder == 6 else 3,
        )
        for fid, folder, name, filename, w, h, alt, uploaded, status, kind in _IMAGES
    ]
    files += [
        dict(
            id=fid,
            folder_id=folder,
            name=name,
            filename=filename,
            media_id=media_id,
            alttext=alt,
            uploaded=uploaded,
            width=640,
            height=360,
            filesize=8_000_000 + fid * 12_345,
            uploaded_by=5,
        )
        for fid, folder, name, filename, media_id, alt, uploaded in _VIDEOS
    ]
    files += [
        dict(
            id=301,
            folder_id=HIDDEN_FOLDER_ID,
            name="Unreleased product",
            filename="unreleased-product.jpg",
            width=1200,
            height=800,
            alttext="Prototype of the next product",
            uploaded="2024-06-01T08:00:00.000+02:00",
        ),
        dict(
            id=302,
            folder_id=HIDDEN_FOLDER_ID,
            name="Board meeting recording",
            filename="board-meeting.mp4",
            media_id="Zz9Yy8Xx",
            width=640,
            height=360,
            filesize=52_000_000,
            uploaded="2024-06-02T08:00:00.000+02:00",
        ),
    ]
    return tuple(files)


DEMO_FILES = _demo_files()

_MEDIA_ID_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"


def _synthetic_folders(rng: random.Random, folders: int) -> list[Fields]:
    """Folders 1..folders, up to depth 2."""
    parents: dict[int, int | None] = {}
    for fid in range(1, folders + 1):
        parent = None
        if fid > 3 and rng.random() < 0.6:  # a child of a folder at depth 0 or 1
            candidates = [f for f, up in parents.items() if up is None or parents[up] is None]
            parent = rng.choice(candidates)
        parents[fid] = parent
    return [
        {"id": fid, "name": f"Folder {fid:03d}", "parent": parent}
        for fid, parent in parents.items()
    ]


def synthetic(
    images: int, videos: int, folders: int, seed: int, size: tuple[int, int]
) -> tuple[list[Fields], list[Fields]]:
    """Many small, distinct files for benchmarks, cheap to list and quick to draw.

    Folder ids are 1..folders (up to depth 2) plus one invisible folder; image ids are
    1..images, video ids follow. Sizes report a nominal filesize so that listing does
    not draw images; each image's bytes are drawn on first download.
    """
    if images < 0 or videos < 0 or folders < 1:
        raise ValueError("synthetic library: images and videos >= 0, folders >= 1")
    rng = random.Random(seed)
    folder_list = _synthetic_folders(rng, folders)
    hidden = folders + 1
    folder_list.append({"id": hidden, "name": "Restricted", "visible": False})
    width, height = size
    files: list[Fields] = []
    for n in range(1, images + 1):
        extension = "png" if n % 4 == 0 else "jpg"
        w, h = (width, height) if n % 3 else (height, width)
        files.append(
            dict(
                id=n,
                folder_id=(n - 1) % folders + 1,
                name=f"Image {n}",
                filename=f"image-{n:05d}.{extension}",
                width=w,
                height=h,
                alttext=f"Synthetic image number {n}" if n % 5 else "",
                uploaded=f"2024-01-{(n % 28) + 1:02d}T12:00:00.{n % 1000:03d}+01:00",
                filesize=w * h // 8,
                seed=seed * 1_000_003 + n,
                detail=False,
            )
        )
    media_ids: set[str] = set()
    for k in range(1, videos + 1):
        fid = images + k
        media_id = ""
        while not media_id or media_id in media_ids:
            media_id = "".join(rng.choice(_MEDIA_ID_ALPHABET) for _ in range(8))
        media_ids.add(media_id)
        files.append(
            dict(
                id=fid,
                folder_id=(fid - 1) % folders + 1,
                name=f"Video {k}",
                filename=f"video-{k:04d}.mp4",
                media_id=media_id,
                width=320,
                height=180,
                alttext=f"Synthetic video number {k}",
                filesize=5_000_000 + k,
                uploaded="2024-02-01T12:00:00.000+01:00",
                seed=seed * 1_000_003 + fid,
                detail=False,
            )
        )
    files.append(
        dict(
            id=images + videos + 1,
            folder_id=hidden,
            name="Hidden image",
            filename="hidden.jpg",
            width=320,
            height=240,
            filesize=9_600,
            detail=False,
        )
    )
    return folder_list, files
