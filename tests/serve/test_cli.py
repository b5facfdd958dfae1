"""``mediashortcodes serve`` at the command line: what it refuses before serving anything."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli
from mediashortcodes.site.scaffold import write_new_site


def test_a_port_in_use_is_a_usage_error_that_names_a_way_out(tmp_path: Path) -> None:
    write_new_site(tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(cli, ["serve", str(tmp_path), "--port", str(port)])
    assert result.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.output
    assert "--port" in result.output
    assert not list(tmp_path.glob(".mediashortcodes/serve-*"))  # nothing left behind


def test_a_folder_that_is_no_site_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["serve", str(tmp_path), "--port", "0"])
    assert result.exit_code == 2
    assert "is not a site" in result.output


def test_a_planted_state_folder_link_is_refused_and_nothing_written_through_it(
    tmp_path: Path,
) -> None:
    """As ``report`` refuses it: ``.mediashortcodes`` a link to a folder outside the site."""
    site, outside = tmp_path / "site", tmp_path / "outside"
    write_new_site(site)
    outside.mkdir()
    (site / ".mediashortcodes").symlink_to(outside, target_is_directory=True)
    result = subprocess.run(
        [sys.executable, "-m", "mediashortcodes", "serve", str(site), "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,  # before the fix it served (and wrote) until stopped
    )
    assert result.returncode == 2
    assert f"{site.resolve() / '.mediashortcodes'}: is a symlink" in result.stderr
    assert "remove it" in result.stderr
    assert list(outside.iterdir()) == []


@contextlib.contextmanager
def serving(site: Path, **env: str) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    """``serve`` of ``site`` in its own process, until its first build; what it printed."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("MEDIASHORTCODES_")},
        "MEDIASHORTCODES_CACHE_DIR": str(site / "cache"),
        **env,
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "mediashortcodes", "serve", str(site), "--port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert process.stdout is not None
        said = []
        for line in process.stdout:
            said.append(line.rstrip("\n"))
            if line.startswith(("built ", "error")):
                break
        yield process, said
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_and_sigterm_stop_it_the_same_calm_way(tmp_path: Path, stop: signal.Signals) -> None:
    write_new_site(tmp_path)
    with serving(tmp_path) as (process, _):
        process.send_signal(stop)
        assert process.wait(timeout=60) == 0
        assert process.stdout is not None
        assert process.stdout.read().splitlines() == ["Stopped."]


def test_the_init_pages_video_player_answers_where_the_page_embeds_it(tmp_path: Path) -> None:
    """A sandbox site's pages embed the player at a fixed address (issue 29, item 13; the
    default 8766, here a free port through the environment): serve runs it there."""
    write_new_site(tmp_path)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        player = f"http://127.0.0.1:{probe.getsockname()[1]}"
    with serving(
        tmp_path, MEDIASHORTCODES_PLAYER_URL=player, MEDIASHORTCODES_STATIC_URL=player
    ) as (
        process,
        said,
    ):
        assert said[1] == f"The films' player (the sandbox's) at {player}/"
        served = re.search(r"http://127\.0\.0\.1:\d+/", said[0])
        assert served is not None
        with urllib.request.urlopen(served[0]) as response:
            src = re.search(r'<iframe title="[^"]+" src="([^"]+)"', response.read().decode())
        assert src is not None and src[1].startswith(f"{player}/ovp/11/")
        with urllib.request.urlopen(src[1]) as response:
            assert "<title>Welcome to the park</title>" in response.read().decode()
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 0
    with pytest.raises(OSError):  # serve's player stopped with it
        urllib.request.urlopen(src[1], timeout=10)


def test_a_taken_player_address_is_one_note_and_serving_goes_on(tmp_path: Path) -> None:
    """Something else (a running ``mediashortcodes sandbox``, say) holds the player's address:
    one line says so, and serving goes on."""
    write_new_site(tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        address = f"127.0.0.1:{taken.getsockname()[1]}"
        urls = {f"MEDIASHORTCODES_{k}_URL": f"http://{address}" for k in ("PLAYER", "STATIC")}
        with serving(tmp_path, **urls) as (process, said):
            process.send_signal(signal.SIGINT)
            assert process.wait(timeout=60) == 0
    assert said[0].startswith("Serving ")
    assert said[1] == (
        f"note: {address} is in use, so the films' player there is not serve's: they play if "
        "it is a `mediashortcodes sandbox`"
    )
    assert said[-1].startswith("built 1 page, 1 image, 1 video")
