"""Smoke test of the benchmark suite: the generator and a minimal run of the runner.

The benchmark itself (timings) is never run by pytest; this only checks that a user's
``python benchmarks/run.py`` works and reports what docs/benchmarks.md promises.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
# benchmarks/ is a folder of scripts, not a package: load the generator by its path.
_spec = importlib.util.spec_from_file_location("benchmarks_generate", BENCHMARKS / "generate.py")
assert _spec is not None and _spec.loader is not None
_generator = sys.modules[_spec.name] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_generator)
generate = _generator.generate
# hugo.py puts benchmarks/ on sys.path itself, for its generate and run imports.
_hugo_spec = importlib.util.spec_from_file_location("benchmarks_hugo", BENCHMARKS / "hugo.py")
assert _hugo_spec is not None and _hugo_spec.loader is not None
hugo = sys.modules[_hugo_spec.name] = importlib.util.module_from_spec(_hugo_spec)
_hugo_spec.loader.exec_module(hugo)
_images_spec = importlib.util.spec_from_file_location("benchmarks_images", BENCHMARKS / "images.py")
assert _images_spec is not None and _images_spec.loader is not None
images = sys.modules[_images_spec.name] = importlib.util.module_from_spec(_images_spec)
_images_spec.loader.exec_module(images)

pytest.importorskip("PIL", reason="the benchmark's sandbox needs the [sandbox] extra")

KEYS = {
    "n",
    "k",
    "latency_ms",
    "jobs",
    "cold_s",
    "warm_s",
    "floor_s",
    "warm_over_floor",
    "warm_over_floor_paired",
    "cold_requests",
    "warm_requests",
    "distinct_downloads",
    "peak_rss_mb",
    "workers",
    "cold_cpu_per_request_ms",
    "parallel_floor_s",
    "warm_over_parallel_floor",
    "example_warm_wall_s",
    "example_warm_cpu_s",
    "help_cpu_s",
}


def test_generated_site_has_three_images_and_a_video_per_page_and_one_in_the_layout(
    tmp_path: Path,
) -> None:
    workload = generate(tmp_path / "site", n=12, k=12)
    pages = sorted((tmp_path / "site" / "content").rglob("*.md"))
    assert len(pages) == 12
    for page in pages:
        text = page.read_text()
        assert text.count("<% media_image") == 3
        assert text.count("<% media_video") == 1
    layout = (tmp_path / "site" / "templates" / "page.html").read_text()
    assert layout.count("<% media_image") == 1
    assert workload.image_shortcodes == 12 * 4
    assert workload.video_shortcodes == 12


def test_images_only_site_holds_each_image_variant_of_w1_once(tmp_path: Path) -> None:
    # images.py's like-for-like site: W1's image shortcodes alone, one per variant.
    workload = generate(tmp_path / "site", n=40, k=12)
    count = images.images_site(tmp_path / "site", tmp_path / "images")
    texts = [p.read_text() for p in sorted((tmp_path / "images" / "content").glob("*.md"))]
    shortcodes = [found for text in texts for found in images.SHORTCODE.findall(text)]
    assert count == len(shortcodes) == workload.variants
    assert len({images.variant_key(found) for found in shortcodes}) == count
    settings = (tmp_path / "site" / "mediashortcodes.toml").read_text()
    assert (tmp_path / "images" / "mediashortcodes.toml").read_text() == settings


def test_floor_site_is_the_same_text_without_shortcodes(tmp_path: Path) -> None:
    generate(tmp_path / "site", n=5, k=12)
    generate(tmp_path / "floor", n=5, k=12, floor=True)
    for page in (tmp_path / "site" / "content").rglob("*.md"):
        twin = tmp_path / "floor" / page.relative_to(tmp_path / "site")
        kept = [line for line in page.read_text().splitlines() if not line.startswith("<%")]
        assert _text(twin.read_text().splitlines()) == _text(kept)
    assert "<%" not in (tmp_path / "floor" / "templates" / "page.html").read_text()


def _text(lines: list[str]) -> list[str]:
    return [line for line in lines if line.strip()]


def test_a_minimal_run_reports_the_figures_and_a_warm_build_makes_no_request(
    tmp_path: Path,
) -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(BENCHMARKS / "run.py"),
            "--n=20",
            "--k=10",
            "--latency-ms=0",
            "--runs=1",
            "--workers=2",
            f"--workdir={tmp_path}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures.keys() >= KEYS
    assert (figures["n"], figures["k"]) == (20, 10)
    assert figures["warm_requests"] == 0
    assert figures["workers"] == 2  # --workers=2: the warm build and the parallel floor
    assert figures["warm_client_imported"] is False
    assert figures["distinct_downloads"] == figures["distinct_variants"]
    assert "warm / floor" in done.stdout


def test_a_tiny_report_benchmark_reports_both_sizes_and_the_ratio() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "report.py"), "--small=4", "--large=12"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert (figures["small_pages"], figures["large_pages"], figures["pages_ratio"]) == (4, 12, 3)
    assert figures["small_s"] > 0 and figures["ratio"] > 0
    assert figures["target"] == 6.0


def test_the_hugo_site_has_the_same_pages_and_shortcodes(tmp_path: Path) -> None:
    generate(tmp_path / "site", n=12, k=12)
    hugo.write_hugo_site(tmp_path / "site", tmp_path / "hugo")
    pages = sorted((tmp_path / "hugo" / "content").rglob("*.md"))
    assert len(pages) == 12
    for page in pages:
        text = page.read_text()
        assert "<%" not in text
        assert text.count("{{< media_image ") == 3
        assert text.count("{{< media_video ") == 1
    layout = (tmp_path / "hugo" / "layouts" / "_default" / "single.html").read_text()
    assert f'"id" "{_generator.LAYOUT_IMAGE}" "format" "thumb"' in layout


def test_shortcodes_become_hugo_shortcodes_with_the_same_arguments() -> None:
    assert hugo.hugo_shortcode("media_image", '5 0 alt=""') == (
        '{{< media_image id="5" format="0" alt="" >}}'
    )
    assert hugo.hugo_shortcode("media_image", '7 "square"') == (
        '{{< media_image id="7" format="square" >}}'
    )
    crop = hugo.hugo_shortcode("media_image", '3 w=480 h=270 x1=0 x2=480 caption="A crop"')
    assert crop == (
        '{{< media_image id="3" caption="A crop" format="-1" crop="w=480&h=270&x1=0&x2=480" >}}'
    )
    assert hugo.hugo_shortcode("media_video", "305") == '{{< media_video id="305" >}}'


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("hugo") is None, reason="hugo is not installed")
def test_side_by_side_with_hugo_reports_both_trees_and_warm_builds_make_no_request(
    tmp_path: Path,
) -> None:
    checkout = BENCHMARKS.parent
    done = subprocess.run(
        [
            sys.executable,
            str(BENCHMARKS / "hugo.py"),
            "--n=8",
            "--k=12",
            "--latency-ms=0",
            "--rounds=1",
            "--large=10:6",
            f"--tree=again={checkout}",
            f"--workdir={tmp_path}",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures.keys() >= {
        "memo",
        "hugo_cold_s",
        "hugo_warm_s",
        "cold_s",
        "warm_s",
        "warm_one_edit_s",
        "warm_layout_edit_s",
        "cold_ratio",
        "warm_ratio",
        "warm_one_edit_ratio",
        "warm_layout_edit_ratio",
        "peak_rss_all_mb",
        "large_warm_ratio",
        "large_peak_rss_all_mb",
        "trees",
    }
    assert (figures["large"]["n"], figures["large"]["k"]) == (10, 6)
    assert figures["memo"] == hugo.has_memo(checkout)
    assert set(figures["trees"]) == {"this", "again"}
    assert figures["hugo_warm_requests"] == figures["hugo_warm_layout_edit_requests"] == 0
    for tree in figures["trees"].values():
        assert tree["warm_requests"] == tree["warm_one_edit_requests"] == 0
        assert tree["warm_layout_edit_requests"] == 0
        assert tree["peak_rss_all_mb"] > 0
        # The same requests: a token (the benchmark fetches Hugo's), the folder tree and
        # listings, the format list, and the download information and download of each variant.
        assert tree["cold_requests"] == figures["hugo_cold_requests"]
    assert figures["cold_ratio"] == figures["trees"]["this"]["cold_ratio"]


def test_the_edits_change_the_same_page_and_both_layouts(tmp_path: Path) -> None:
    generate(tmp_path / "site", n=3, k=12)
    hugo.write_hugo_site(tmp_path / "site", tmp_path / "hugo-site")
    hugo.write_plain_hugo_site(tmp_path / "site", tmp_path / "hugo-plain")  # --mode finish
    before = {p: p.read_text() for p in tmp_path.rglob("*") if p.is_file()}
    hugo.edit(tmp_path, "warm_one_edit", 0)
    changed = {p for p in before if p.read_text() != before[p]}
    assert changed == {
        tmp_path / "site" / hugo.EDITED_PAGE,
        tmp_path / "hugo-site" / hugo.EDITED_PAGE,
        tmp_path / "hugo-plain" / hugo.EDITED_PAGE,
    }
    assert all(p.read_text().endswith("Edited in round 1.\n") for p in changed)
    hugo.edit(tmp_path, "warm_layout_edit", 1)
    layouts = {tmp_path / layout for layout in hugo.LAYOUTS}
    assert {p for p in before if p.read_text() != before[p]} == changed | layouts
    assert all("edit 2</footer>" in p.read_text() for p in layouts)
    plain = (tmp_path / "hugo-plain" / "layouts" / "_default" / "single.html").read_text()
    assert hugo.PLAIN_LOGO in plain and "partial" not in plain


def test_a_tree_has_the_memo_when_its_build_offers_no_memo(tmp_path: Path) -> None:
    for name, option in (("with", "--no-memo"), ("without", "--refresh")):
        package = tmp_path / name / "mediashortcodes"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "__main__.py").write_text(f"print('Options:  {option}  ...')\n")
    assert hugo.has_memo(tmp_path / "with") is True
    assert hugo.has_memo(tmp_path / "without") is False


def test_a_size_is_n_colon_k_or_none() -> None:
    assert hugo.parse_size("10000:3000") == (10000, 3000)
    assert hugo.parse_size("none") is None
    with pytest.raises(argparse.ArgumentTypeError, match="want N:K"):
        hugo.parse_size("10000")


@pytest.mark.slow
def test_the_machinery_benchmark_turns_each_piece_off_and_the_outputs_agree(
    tmp_path: Path,
) -> None:
    pytest.importorskip("moto", reason="the shared tier's server is moto's")
    done = subprocess.run(
        [
            sys.executable,
            str(BENCHMARKS / "machinery.py"),
            "--n=12",
            "--k=8",
            "--latency-ms=0",
            "--rounds=1",
            f"--workdir={tmp_path}",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr  # every fresh output equals the warm one
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(figures["ratios"]) == {
        "cold/workers_off",
        "warm/workers_off",
        "fresh/workers_off",
        "fresh/head_start_off",
        "fresh/packs_off",
    }
    builds = figures["builds"]
    assert builds["warm/on"]["service_requests"] == 0
    assert all(builds[f"fresh/{v}"]["service_requests"] == 0 for v in ("on", "packs_off"))
    # Without the images' packs a fresh runner reads the images one by one: more requests.
    assert builds["fresh/packs_off"]["remote_requests"] > builds["fresh/on"]["remote_requests"]


def test_the_hugo_mode_says_how_to_get_hugo_when_it_is_missing(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "hugo.py"), "--hugo", str(tmp_path / "no-hugo")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "apt-get install hugo" in done.stderr


def test_warm_only_figures_leave_out_the_edits_and_count_the_warm_rounds() -> None:
    def run(s: float) -> dict[str, float]:
        return {"s": s, "cpu_s": s, "requests": 0, "peak_rss_all_mb": 90, "peak_pss_all_mb": 80}

    tools = [hugo.Tool("hugo"), hugo.Tool("this", BENCHMARKS.parent, memo=True)]
    times_of = ((300.0, 100.0, 120.0, 110.0), (200.0, 30.0, 36.0, 33.0))
    for tool, times in zip(tools, times_of, strict=True):
        tool.builds["cold"].append(run(times[0]))  # --warm-only: cold in the first round alone
        tool.builds["warm"] += [run(s) for s in times[1:]]
    figures = hugo.summarise(tools, n=10000, k=3000, latency_ms=20)
    assert figures["rounds"] == 3
    assert (figures["warm_s"], figures["warm_ratio"]) == (33.0, 0.3)
    assert "warm_one_edit_s" not in figures and "warm_layout_edit_ratio" not in figures
    assert hugo.table(figures).splitlines()[-1].split()[1:5] == ["200.000", "33.000", "-", "-"]
