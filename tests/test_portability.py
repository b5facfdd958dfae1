"""What Windows and macOS users meet: no POSIX-only call on the paths a build or a report
takes, and builds in other processes recognised by their claims, not by their process ids."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from mediashortcodes.cli import cli
from mediashortcodes.media.assets import published_name
from mediashortcodes.media.cache import Stored
from mediashortcodes.records import File
from mediashortcodes.site.outputdir import remove_leftovers
from mediashortcodes.site.pages import unportable_name

# Run in a fresh interpreter where what Windows lacks is gone: fcntl cannot be imported,
# os.kill does not exist (on Windows os.kill(pid, 0) would stop the process) and a folder
# cannot be opened with os.open (Windows raises PermissionError).
WITHOUT_POSIX = """
import builtins, os, sys
sys.modules["fcntl"] = None  # import fcntl raises ImportError
del os.kill
_open = os.open
def open_no_folders(path, *args, **kwargs):
    if os.path.isdir(path):
        raise PermissionError(13, "Permission denied", str(path))
    return _open(path, *args, **kwargs)
os.open = open_no_folders
"""

SCRIPT = """
import json, sys
from pathlib import Path
from click.testing import CliRunner
from mediashortcodes.cli import cli
from mediashortcodes.usage.manifest import PageUsage
from mediashortcodes.usage.state import UsageState

site = Path(sys.argv[1])
results = []
for _ in range(2):  # the second build replaces the first: staging, turns, swap, leftovers
    result = CliRunner().invoke(cli, ["build", str(site), "--offline"])
    results.append([result.exit_code, result.output, repr(result.exception)])
state = UsageState(site / ".mediashortcodes" / "usage-state.json")
state.update({"https://www.example.org/": PageUsage("Home", (7,))}, "https://www.example.org")
print(json.dumps({"builds": results, "state": sorted(state.load().pages)}))
"""


def dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_building_and_reporting_need_no_posix_only_call(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "content").mkdir(parents=True)
    (site / "templates").mkdir()
    (site / "mediashortcodes.toml").write_text("[service]\nsandbox = true\n")
    (site / "templates" / "page.html").write_text("{{ page.content }}")
    (site / "content" / "index.md").write_text("---\ntitle: Home\n---\nHello\n")
    leftover = site / f"._site.staging-{dead_pid()}"  # of a build that was killed
    (leftover / "media").mkdir(parents=True)

    code = WITHOUT_POSIX + textwrap.dedent(SCRIPT)
    env = {"MEDIASHORTCODES_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", code, str(site)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    for exit_code, output, exception in report["builds"]:
        assert exit_code == 0, (output, exception)
    assert report["state"] == ["https://www.example.org/"]
    assert (site / "_site" / "index.html").read_text() == "<p>Hello</p>\n"
    assert not leftover.exists(), "a killed build's staging folder is removed"
    assert sorted(p.name for p in site.iterdir()) == [
        ".mediashortcodes",
        "_site",
        "content",
        "mediashortcodes.toml",
        "templates",
    ], "no lock file is left in the site"


def test_a_staging_folder_of_a_build_running_in_another_process_is_kept(
    tmp_path: Path,
) -> None:
    output = tmp_path / "_site"
    # Another build: it claims the names beside the output, writes its staging, then waits.
    code = textwrap.dedent(
        f"""
        import os, sys
        from pathlib import Path
        from mediashortcodes.site.outputdir import remove_leftovers
        output = Path({str(output)!r})
        remove_leftovers(output)
        (output.parent / f"._site.staging-{{os.getpid()}}").mkdir()
        print("staged", flush=True)
        sys.stdin.read()
        """
    )
    other = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert other.stdout is not None and other.stdout.readline() == "staged\n"
        staging = tmp_path / f"._site.staging-{other.pid}"
        assert remove_leftovers(output) == [] and staging.is_dir()
    finally:
        other.kill()  # killed mid-build: its staging folder is a leftover now
        other.wait()
    assert remove_leftovers(output) == [staging] and not staging.exists()


# -- names: everything a build publishes can be written on Windows and macOS -------------


@settings(max_examples=300, deadline=None)
@given(
    filename=st.text(max_size=60),
    ids=st.tuples(st.integers(1, 10**9), st.integers(1, 10**9)).filter(lambda t: t[0] != t[1]),
    formats=st.tuples(st.integers(0, 99), st.integers(0, 99)),
)
def test_published_image_names_are_portable_and_distinct_in_any_letter_case(
    filename: str, ids: tuple[int, int], formats: tuple[int, int]
) -> None:
    # File names come from the service: "CON.jpg", "aux.", "Photo?.JPG", "名前 .png"...
    stored = Stored("ab" * 32, "jpg", 1, 1, 1)
    names = [
        published_name(File(id=file_id, filename=filename), format_id, None, stored)
        for file_id, format_id in zip(ids, formats, strict=True)
    ]
    for name in names:
        assert unportable_name(name) is None, name
    assert names[0].casefold() != names[1].casefold()


@pytest.mark.parametrize(
    "name", ["CON", "con.md", "aux.jpg", "Nul.tar.gz", "COM1", "lpt9.txt", "x.", "x ", "a?b", "a:b"]
)
def test_names_windows_cannot_write_are_recognised(name: str) -> None:
    assert unportable_name(name)


@pytest.mark.parametrize("name", ["console", "auxiliary.md", "com10", "index.html", "x.y", "日本"])
def test_ordinary_names_pass(name: str) -> None:
    assert unportable_name(name) is None


def small_site(root: Path, pages: dict[str, str]) -> Path:
    for name, text in pages.items():
        (root / "content" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "content" / name).write_text(text)
    (root / "templates").mkdir()
    (root / "templates" / "page.html").write_text("{{ page.content }}")
    (root / "mediashortcodes.toml").write_text("[service]\nsandbox = true\n")
    return root


def test_pages_whose_urls_differ_only_in_case_fail_the_build_naming_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Both sources can exist on Windows and macOS too (a file and a folder), and there the
    # second page written would silently replace the first.
    monkeypatch.setenv("MEDIASHORTCODES_CACHE_DIR", str(tmp_path / "cache"))
    site = small_site(tmp_path / "site", {"About.md": "one", "about/index.md": "other"})
    monkeypatch.chdir(site)  # problems name pages relative to here
    result = CliRunner().invoke(cli, ["build", "--offline"], catch_exceptions=False)
    assert result.exit_code == 2, result.output
    assert "1 URL that Windows and macOS would write into one folder" in result.output
    assert (
        "content/About.md: its URL /About/ differs only in letter case from that of "
        "content/about/index.md" in result.output
    )
    assert not (site / "_site").exists()


def test_pages_windows_cannot_write_are_built_with_a_warning_naming_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEDIASHORTCODES_CACHE_DIR", str(tmp_path / "cache"))
    pages = {"index.md": "Home", "aux.md": "x", "notes./first.md": "y", "what?.md": "z"}
    site = small_site(tmp_path / "site", pages)
    monkeypatch.chdir(site)
    result = CliRunner().invoke(cli, ["build", "--offline"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    for expected in [
        "content/aux.md: warning: its output folder 'aux' is a device name Windows reserves",
        "content/notes./first.md: warning: its output folder 'notes.' ends with a dot or",
        "content/what?.md: warning: its output folder 'what?' holds a character Windows",
    ]:
        assert expected in result.output
    assert "content/index.md: warning" not in result.output


def test_a_rebuild_removes_the_old_output_where_read_only_files_cannot_be_deleted(
    tmp_path: Path, sandbox: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Windows refuses to delete a read-only file; the published images are hard links to the
    # cache's read-only blobs. Here os.unlink refuses them the same way.
    real_unlink = os.unlink

    def unlink_as_windows(path: Any, *args: Any, **kwargs: Any) -> None:
        mode = os.stat(path, dir_fd=kwargs.get("dir_fd"), follow_symlinks=False).st_mode
        if not mode & stat.S_IWRITE:
            raise PermissionError(13, "Access is denied", str(path))
        real_unlink(path, *args, **kwargs)

    monkeypatch.setenv("MEDIASHORTCODES_CACHE_DIR", str(tmp_path / "cache"))
    for name, value in sandbox.env().items():
        monkeypatch.setenv(name, value)
    site = small_site(tmp_path / "site", {"index.md": '<% media_image 101 alt="x" %>\n'})
    (site / "mediashortcodes.toml").write_text(
        f'[service]\ndownload_url = "{sandbox.download_url}"\nallow_http_downloads = true\n'
    )
    monkeypatch.setattr(os, "unlink", unlink_as_windows)
    for _ in range(2):  # the second build replaces the first output
        result = CliRunner().invoke(cli, ["build", str(site)], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    assert list((site / "_site" / "media").iterdir())
    assert not list(site.glob("._site.*")), "the replaced output is gone, not left beside it"
