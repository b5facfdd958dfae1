"""The sample outputs in docs/service-commands.md are what the commands print against the
sandbox, so the page cannot drift from the product.

Each fenced block made of ``$ mediashortcodes ...`` lines, each followed by its output, is
run in a site with ``[service] sandbox = true`` (every command starts the sandbox itself,
with its demo library). After a deliberate change, write the real outputs into the page:

    UPDATE_DOC_SAMPLES=1 .venv/bin/pytest tests/test_doc_samples.py
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli
from mediashortcodes.config import (
    ENV_BASE_URL,
    ENV_CACHE_DIR,
    ENV_CLIENT_ID,
    ENV_CLIENT_SECRET,
    ENV_REFRESH_TOKEN,
)

DOC = Path(__file__).resolve().parents[1] / "docs" / "service-commands.md"
PROMPT = "$ mediashortcodes "
# A fenced block whose first line is a command: the samples.
SAMPLES = re.compile(r"^```\n(\$ mediashortcodes .*?)^```$", re.M | re.S)


def commands_and_outputs(block: str) -> list[tuple[str, str]]:
    """``[(arguments, output), ...]`` of a block: each ``$`` line and what follows it up to
    the blank line before the next one."""
    pairs = []
    for sample in re.split(r"\n\n(?=\$ )", block.strip("\n")):
        first, _, output = sample.partition("\n")
        assert first.startswith(PROMPT), f"not a command in {DOC.name}: {first!r}"
        pairs.append((first[len(PROMPT) :], output))
    return pairs


def printed(arguments: str) -> str:
    result = CliRunner().invoke(cli, shlex.split(arguments))
    assert result.exit_code == 0, f"mediashortcodes {arguments}: {result.output}"
    return result.stdout.rstrip("\n")


@pytest.fixture
def sandbox_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    pytest.importorskip("PIL", reason="the sandbox needs the [sandbox] extra (Pillow)")
    for var in (ENV_CLIENT_ID, ENV_CLIENT_SECRET, ENV_REFRESH_TOKEN, ENV_BASE_URL):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv(ENV_CACHE_DIR, str(tmp_path / "cache"))
    (tmp_path / "mediashortcodes.toml").write_text("[service]\nsandbox = true\n")
    monkeypatch.chdir(tmp_path)  # as the page shows them: run in the site's folder
    return tmp_path


def test_the_service_commands_page_shows_what_the_commands_print(sandbox_site: Path) -> None:
    text = DOC.read_text()
    blocks = SAMPLES.findall(text)
    assert blocks, f"{DOC.name} shows no sample output"
    differ = []
    updated = text
    for block in blocks:
        pairs = commands_and_outputs(block)
        real = [(arguments, printed(arguments)) for arguments, _ in pairs]
        differ += [
            f"$ mediashortcodes {arguments}\n--- the page:\n{shown}\n--- the command:\n{out}"
            for (arguments, shown), (_, out) in zip(pairs, real, strict=True)
            if shown != out
        ]
        updated = updated.replace(
            block, "\n\n".join(f"{PROMPT}{arguments}\n{out}" for arguments, out in real) + "\n"
        )
    if os.environ.get("UPDATE_DOC_SAMPLES") and updated != text:
        DOC.write_text(updated)
        return
    assert not differ, (
        f"{DOC} shows other output than the commands print; if the change is meant, run "
        "UPDATE_DOC_SAMPLES=1 pytest tests/test_doc_samples.py\n\n" + "\n\n".join(differ)
    )
