"""Files written whole, with a plain file's mode, and no temporary file left behind."""

from __future__ import annotations

import os
import stat
import sys

import pytest

from mediashortcodes.errors import ConfigError
from mediashortcodes.fileio import Confined, write_atomic


def test_a_file_is_replaced_whole_and_no_temporary_file_is_left(tmp_path):
    target = tmp_path / "deep" / "media-usage.json"
    write_atomic(target, b"old")
    write_atomic(target, b"new", durable=True)
    assert target.read_bytes() == b"new"
    assert [p.name for p in target.parent.iterdir()] == ["media-usage.json"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_the_mode_is_a_plain_files_less_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "page.json", b"{}")
        write_atomic(tmp_path / "blob.jpg", b"x", mode=0o444)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "page.json").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "blob.jpg").stat().st_mode) == 0o444


def test_a_failed_write_keeps_the_old_file_and_leaves_nothing(tmp_path, monkeypatch):
    target = tmp_path / "state.json"
    write_atomic(target, b"kept")

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        write_atomic(target, b"lost")
    assert target.read_bytes() == b"kept"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


@pytest.mark.parametrize(
    "relative", ["/etc/passwd", "/a/b", "../x", "a/../../x", "a//b", "...", "a/..", "a/"]
)
def test_a_confined_write_never_names_a_path_outside_its_root(tmp_path, relative):
    root = tmp_path / "output"
    with pytest.raises(ConfigError, match="is not a plain path inside it"):
        Confined(root).file(relative)
    assert [p.name for p in tmp_path.iterdir()] == ["output"]


def test_a_confined_write_never_goes_through_a_linked_folder(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "output" / "blog").mkdir(parents=True)
    os.symlink(elsewhere, tmp_path / "output" / "blog" / "post")
    confined = Confined(tmp_path / "output")
    assert confined.file("blog/index.html") == tmp_path / "output" / "blog" / "index.html"
    with pytest.raises(ConfigError, match=r"blog/post: is a symlink, so nothing is read"):
        confined.file("blog/post/index.html")
    assert list(elsewhere.iterdir()) == []
