"""Synthetic site generator for the benchmarks (workload W1 and its variations).

    python benchmarks/generate.py OUT [--n 1000] [--k 300] [--seed 0] [--floor] [--widths 160,320]

Writes a site for the built-in builder: ``n`` Markdown pages of about 300 words, each
with three image shortcodes (the original, a predefined format, a custom crop) and one
video, plus a layout holding one more image shortcode. The ids match the library of
``mediashortcodes sandbox --synthetic K``: images ``1..K``, videos ``K+1..K+K//6``.

``--floor`` writes the same pages and layout with every shortcode deleted: the render
floor, what the builder costs with no media at all. ``--widths`` sets ``[images] widths``:
every original and custom crop gets a srcset of those widths (W1 with widths).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from dataclasses import dataclass
from pathlib import Path

_VOCABULARY = (
    "media service image video page build cache layout archive garden river forest city "
    "harbour morning evening winter summer light shadow stone bridge tower market square "
    "street window museum library station coast island valley meadow field mountain lake "
    "north south east west small large quiet busy early late open closed old new bright "
    "dark green blue red yellow white black warm cold walk read write visit travel gather "
    "show tell carry follow build plant grow share the a of and in on to with for from by "
    "at is are was were has have had this that these those each every some many few"
)
WORDS = _VOCABULARY.split()

# One predefined format per image, chosen by id: by name, by id and quoted, so that the
# builder's format handling is part of the measurement.
FORMAT_SPECS = ("medium", "thumb", "2", '"square"')
FORMAT_IDS = {"medium": 3, "thumb": 1, "2": 2, '"square"': 5}
# One custom crop per image; the box fits the synthetic images in both orientations
# (640x480 and 480x640).
CROP = "w=480 h=270 x1=0 x2=480 y1=60 y2=330"
LAYOUT_IMAGE = 1  # the layout's image: the same variant on every page


@dataclass(frozen=True)
class Workload:
    """What a generated site asks of the service; the runner checks the build against it."""

    n: int
    k: int
    videos: int
    variants: int  # distinct image variants (file, format, crop) across the site
    image_shortcodes: int
    video_shortcodes: int
    folders: int  # folders of the matching synthetic library

    def as_dict(self) -> dict[str, int]:
        return {
            "n": self.n,
            "k": self.k,
            "videos": self.videos,
            "variants": self.variants,
            "image_shortcodes": self.image_shortcodes,
            "video_shortcodes": self.video_shortcodes,
            "folders": self.folders,
        }


def library_shape(k: int) -> tuple[int, int]:
    """(videos, folders) of ``mediashortcodes sandbox --synthetic k``."""
    return k // 6, max(1, min(50, k // 15))


def format_spec(image_id: int) -> str:
    return FORMAT_SPECS[image_id % len(FORMAT_SPECS)]


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 16))]
    return " ".join(words).capitalize() + "."


def _paragraph(rng: random.Random, words: int) -> str:
    sentences: list[str] = []
    count = 0
    while count < words:
        sentence = _sentence(rng)
        count += sentence.count(" ") + 1
        sentences.append(sentence)
    text = " ".join(sentences)
    first, _, rest = text.partition(" ")
    second, _, rest = rest.partition(" ")
    return f"{first} *{second}* {rest}"


def page_text(
    number: int, rng: random.Random, images: list[tuple[int, str]], video: int | None
) -> str:
    """One page: front matter, about 300 words, the given shortcodes between paragraphs."""
    blocks = [
        "---",
        f"title: Page {number} about {rng.choice(WORDS)} and {rng.choice(WORDS)}",
        f"date: 2024-{number % 12 + 1:02d}-{number % 28 + 1:02d}",
        "---",
        "",
        _paragraph(rng, 60),
        "",
    ]
    shortcodes = [f"<% media_image {i} {spec} %>" for i, spec in images]
    if video is not None:
        shortcodes.append(f"<% media_video {video} %>")
    body = [
        f"## {_sentence(rng)[:-1]}",
        _paragraph(rng, 70),
        f"- {_sentence(rng)}\n- {_sentence(rng)}\n- [{rng.choice(WORDS)}](/page-{number}/)",
        _paragraph(rng, 70),
        f"### {_sentence(rng)[:-1]}",
        _paragraph(rng, 60),
    ]
    for index, block in enumerate(body):
        blocks += [block, ""]
        if index < len(shortcodes):
            blocks += [shortcodes[index], ""]
    return "\n".join(blocks)


LAYOUT = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>{{ page.title }} | Benchmark site</title></head>
<body>
<header><a href="/">%(logo)s Benchmark site</a></header>
<main>
<h1>{{ page.title }}</h1>
<p class="date">{{ page.date }}</p>
{{ page.content }}
</main>
<footer>{{ site.pages | length }} pages</footer>
</body>
</html>
"""

CONFIG = """[site]
base_url = "https://bench.example.org"

[images]
gdpr = "ignore"

[usage]
contact = "bench@example.org"
project = "Benchmark"
"""


def generate(
    root: Path,
    *,
    n: int = 1000,
    k: int = 300,
    seed: int = 0,
    floor: bool = False,
    widths: tuple[int, ...] = (),
) -> Workload:
    """Write the site into ``root`` (replacing it) and describe what it needs.

    ``widths`` (each below 480, the narrowest synthetic image and the crop's width) become
    the site's srcset widths: a candidate of each original and crop for each width."""
    if any(not 0 < w < 480 for w in widths):
        raise ValueError("the workload's srcset widths must be below 480 pixels")
    if n < 1 or k < 6:
        raise ValueError("the workload needs n >= 1 page and k >= 6 images (k // 6 videos)")
    videos, folders = library_shape(k)
    if root.exists():
        shutil.rmtree(root)
    content = root / "content"
    (root / "templates").mkdir(parents=True)
    logo = "" if floor else f'<% media_image {LAYOUT_IMAGE} thumb alt="Logo" %>'
    (root / "templates" / "page.html").write_text(LAYOUT % {"logo": logo}, encoding="utf-8")
    config = CONFIG
    if widths:
        config = config.replace("[images]\n", f"[images]\nwidths = {list(widths)}\n")
    (root / "mediashortcodes.toml").write_text(config, encoding="utf-8")

    rng = random.Random(seed)
    variants: set[tuple[int, int | str]] = {(LAYOUT_IMAGE, FORMAT_IDS["thumb"])}
    image_count = video_count = 0
    for number in range(n):
        original, formatted, cropped = (rng.randrange(k) + 1 for _ in range(3))
        images = [
            (original, "original" if number % 2 else '0 alt=""'),
            (formatted, format_spec(formatted)),
            (cropped, CROP + (' caption="A crop"' if number % 3 == 0 else "")),
        ]
        variants |= {(original, 0), (formatted, FORMAT_IDS[format_spec(formatted)])}
        variants.add((cropped, "crop"))
        video = k + rng.randrange(videos) + 1
        image_count += 3
        video_count += 1
        page_rng = random.Random(seed * 1_000_003 + number)
        text = page_text(number, page_rng, [] if floor else images, None if floor else video)
        path = content / f"section-{number // 100:03d}" / f"page-{number:05d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if floor:
        return Workload(n, k, videos, 0, 0, 0, folders)
    # Each original and crop has a candidate per width (the formats, as the layout's, none).
    scaled = sum(1 for _, variant in variants if variant in (0, "crop"))
    total = len(variants) + scaled * len(widths)
    # The layout's shortcode is one more image on every page.
    return Workload(n, k, videos, total, image_count + n, video_count, folders)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="site directory to write (replaced)")
    parser.add_argument("--n", type=int, default=1000, help="pages (default 1000)")
    parser.add_argument("--k", type=int, default=300, help="distinct images (default 300)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--floor", action="store_true", help="delete every shortcode")
    parser.add_argument("--widths", default="", help="[images] widths, e.g. 160,320")
    args = parser.parse_args(argv)
    widths = tuple(int(w) for w in args.widths.split(",") if w.strip())
    workload = generate(
        args.out, n=args.n, k=args.k, seed=args.seed, floor=args.floor, widths=widths
    )
    print(json.dumps(workload.as_dict()))


if __name__ == "__main__":
    main()
