"""``mediashortcodes init``: a minimal site that builds as it is, and never over a file."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli


def test_init_writes_a_site_that_builds_with_an_image_and_a_video(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEDIASHORTCODES_CACHE_DIR", str(tmp_path / "cache"))
    site = tmp_path / "mysite"
    made = CliRunner().invoke(cli, ["init", str(site)])
    assert made.exit_code == 0, made.output
    assert "mediashortcodes serve" in made.output
    built = CliRunner().invoke(cli, ["build", str(site)])  # the embedded sandbox
    assert built.exit_code == 0, built.output
    html = (site / "_site" / "index.html").read_text()
    assert "<title>Welcome</title>" in html
    assert '<img src="/media/mountain-lake-101-' in html
    assert '<iframe title="Welcome to the park" src="http://127.0.0.1:8766/ovp/11/' in html
    assert (site / "_site" / "style.css").is_file()
    # The page, and the build, say what answers at the player's address (issue 29, item 13)
    assert "which <code>mediashortcodes serve</code> runs\nat http://127.0.0.1:8766" in html
    assert "<code>mediashortcodes sandbox</code> runs" in html
    assert "The videos play while `mediashortcodes sandbox` runs" in built.output


def test_without_the_serve_extra_init_and_serve_say_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "watchfiles", None)  # the serve extra is not installed
    site = tmp_path / "mysite"
    made = CliRunner().invoke(cli, ["init", str(site)])
    assert made.exit_code == 0, made.output
    assert f"Next: mediashortcodes serve {site}" not in made.output
    assert f"mediashortcodes build {site}" in made.output
    served = CliRunner().invoke(cli, ["serve", str(site), "--port", "0"])  # 8000 may be taken
    assert served.exit_code == 2
    for said in (made.output, served.output):  # from the package index and from a checkout
        assert "pip install 'mediashortcodes[serve]'" in said
        assert "pip install -e '.[serve]'" in said


def test_without_the_sandbox_extra_init_says_to_install_it_before_serve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "PIL", None)  # the site builds against the sandbox
    made = CliRunner().invoke(cli, ["init", str(tmp_path)])
    assert made.exit_code == 0, made.output
    assert made.output.splitlines()[-1] == (
        "Next: pip install 'mediashortcodes[sandbox]' (in a checkout: pip install -e "
        f"'.[sandbox]'), then mediashortcodes serve {tmp_path}"
    )


def test_init_never_overwrites_and_then_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "index.md").write_text("mine")
    result = CliRunner().invoke(cli, ["init", str(tmp_path)])
    assert result.exit_code == 2
    assert "content/index.md" in result.output
    assert (tmp_path / "content" / "index.md").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["content", "index.md"]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_gitignore_keeps_builds_previews_and_locks_out_and_the_usage_state_in(
    tmp_path: Path,
) -> None:
    assert CliRunner().invoke(cli, ["init", str(tmp_path)]).exit_code == 0
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)

    def ignored(path: str) -> bool:
        check = ["git", "-C", str(tmp_path), "check-ignore", "-q", path]
        return subprocess.run(check, check=False).returncode == 0

    assert ignored("_site/index.html")
    assert ignored(".mediashortcodes/serve-4242/site/index.html")
    assert ignored(".mediashortcodes/usage-state.json.lock")
    assert not ignored(".mediashortcodes/usage-state.json")
    assert not ignored("content/index.md")
    assert not ignored("mediashortcodes.toml")
