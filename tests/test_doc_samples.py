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
import tomllib
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
from mediashortcodes.language.model import KEYS

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


# The install commands of the README, docs/*.md and the examples' comments, as written.
ROOT = DOC.parents[1]
EXTRAS = set(
    tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
)
INSTALL = re.compile(r"pip install (?:-e )?[\"'](?:mediashortcodes|\.)\[([\w,]+)\][\"']([^`\n]*)")


def install_commands() -> list[tuple[str, set[str], str]]:
    """``(where, extras, what the line runs after the install)`` of each install command."""
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *EXAMPLE_CONFIGS]:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for match in INSTALL.finditer(line):
                where = f"{path.relative_to(ROOT)}:{number}"
                found.append((where, set(match[1].split(",")), match[2]))
    return found


EXAMPLE_CONFIGS = [
    ROOT / "example_mkdocs" / "mkdocs.yml",
    ROOT / "example_site" / "mediashortcodes.toml",
]


def test_every_install_command_names_real_extras_and_those_its_command_needs() -> None:
    wrong = []
    for where, extras, then in install_commands():
        needs = set()
        if "example_" in then:  # both examples build against the sandbox
            needs.add("sandbox")
        if "mkdocs build" in then:
            needs.add("mkdocs")
        if "mediashortcodes serve" in then:
            needs.add("serve")
        if extras - EXTRAS or needs - extras:
            wrong.append(f"{where}: installs {sorted(extras)}, needs {sorted(needs)}")
    assert not wrong, "\n".join(wrong)


def test_the_quick_start_installs_what_the_readme_then_runs_from_its_venv() -> None:
    readme = (ROOT / "README.md").read_text()
    where, extras, _ = install_commands()[0]
    assert where.startswith("README.md"), "the Quick start's set-up comes first"
    needs = {"sandbox"}  # the example site and `init`'s site build against the sandbox
    if ".venv/bin/mediashortcodes serve " in readme:  # "A site of your own", the preview
        needs.add("serve")
    assert needs <= extras, f"{where} installs {sorted(extras)}, the README then needs {needs}"


def test_the_readmes_shortcode_table_names_every_key_of_the_language() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Shortcodes", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    named = {
        word for row in rows for span in re.findall(r"`([^`]+)`", row) for word in span.split()
    }
    missing = [key for keys in KEYS.values() for key in keys if key not in named]
    assert not missing, f"README.md's shortcode table lacks {missing} (docs/shortcodes.md)"
