"""``mediashortcodes serve`` at the command line: what it refuses before serving anything."""

from __future__ import annotations

import socket
from pathlib import Path

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
