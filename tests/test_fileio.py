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
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "page.json").stat().st_mode) == 0o644


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


# Locks between processes -------------------------------------------------------------------

_HOLD = """
import sys, time
from pathlib import Path
from mediashortcodes.fileio import file_lock
lock = file_lock(Path(sys.argv[1]))
lock.acquire()
print("held", flush=True)
time.sleep(60)
"""


def _holding(path):
    """Another process holding the lock on ``path`` (killed by the caller)."""
    import subprocess

    process = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(path)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "held"
    return process


@pytest.mark.skipif(sys.platform == "win32", reason="flock is POSIX")
def test_a_lock_another_process_holds_is_refused_at_once_and_taken_once_it_dies(tmp_path):
    from filelock import Timeout as LockTimeout

    from mediashortcodes.fileio import file_lock

    path = tmp_path / "a.lock"
    other = _holding(path)
    try:
        with pytest.raises(LockTimeout):
            file_lock(path).acquire(timeout=0)
    finally:
        other.kill()
        other.wait()
    lock = file_lock(path)
    lock.acquire(timeout=0)  # the dead process's lock went with it
    lock.release()


@pytest.mark.skipif(sys.platform == "win32", reason="flock is POSIX")
def test_a_killed_builds_claim_is_seen_as_unheld_and_a_running_ones_as_held(tmp_path):
    from mediashortcodes.fileio import claimed_by_a_running_process, folder_lock_path

    output = tmp_path / "_site"
    other = _holding(folder_lock_path(output, "-4242424"))  # pid 4242424's claim, held
    try:
        assert claimed_by_a_running_process(output, 4242424)
    finally:
        other.kill()
        other.wait()
    assert not claimed_by_a_running_process(output, 4242424)
    assert not folder_lock_path(output, "-4242424").exists()  # an unheld claim is removed


@pytest.mark.skipif(sys.platform == "win32", reason="flock is POSIX")
def test_a_lock_file_removed_while_it_was_being_locked_is_locked_anew(tmp_path, monkeypatch):
    """Another process removes an unheld claim between our open and our flock: the lock
    taken must be on the file at the name, or a third process could take it too."""
    import fcntl

    from filelock import Timeout as LockTimeout

    from mediashortcodes.fileio import file_lock

    path = tmp_path / "claim.lock"
    real_flock = fcntl.flock
    removed: list[bool] = []

    def flock_after_a_removal(fd, operation):
        if not removed:
            removed.append(True)
            path.unlink()
        return real_flock(fd, operation)

    monkeypatch.setattr(fcntl, "flock", flock_after_a_removal)
    lock = file_lock(path)
    lock.acquire()
    monkeypatch.setattr(fcntl, "flock", real_flock)
    assert removed and path.exists()
    other = file_lock(path)
    with pytest.raises(LockTimeout):  # ours is the lock on the file at the name
        other.acquire(timeout=0)
    lock.release()
    other.acquire(timeout=0)
    other.release()


def test_a_lock_file_that_is_a_symlink_is_refused(tmp_path):
    from mediashortcodes.fileio import file_lock

    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    (tmp_path / "x.lock").symlink_to(target)
    with pytest.raises(ConfigError, match="symlink"):
        file_lock(tmp_path / "x.lock")
    assert target.read_text() == "keep me"


def test_a_tree_removed_by_several_threads_is_gone_and_links_out_of_it_are_not_followed(
    tmp_path,
):
    from mediashortcodes.fileio import remove_tree

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    old = tmp_path / "old"
    for section in range(3):
        for page in range(40):
            folder = old / f"s{section}" / f"p{page}"
            folder.mkdir(parents=True)
            (folder / "index.html").write_text("<p>")
    media = old / "media"
    media.mkdir()
    for n in range(50):
        (media / f"{n}.jpg").write_bytes(b"\xff\xd8")
        os.chmod(media / f"{n}.jpg", 0o444)  # published blobs are read-only
    (old / "s0" / "link").symlink_to(outside, target_is_directory=True)
    (media / "link.txt").symlink_to(outside / "keep.txt")
    (old / "manifest.json").write_text("{}")
    remove_tree(old, threads=4)
    assert not old.exists()
    assert (outside / "keep.txt").read_text() == "keep"
