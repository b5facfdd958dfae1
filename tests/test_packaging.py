"""The package installs and runs on every Python that pyproject.toml says it supports, and
its wheel carries what a user of the wheel alone needs."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
import tomllib
import zipfile
from email.message import Message
from email.parser import Parser
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
SOURCES = sorted((ROOT / "mediashortcodes").rglob("*.py"))


def test_python_3_11_or_newer_is_required_and_reads_the_config_with_tomllib() -> None:
    assert PROJECT["requires-python"] == ">=3.11"
    assert not [d for d in PROJECT["dependencies"] if d.startswith("tomli")]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_is_python_3_11_syntax(path: Path) -> None:
    ast.parse(path.read_text(encoding="utf-8"), filename=str(path), feature_version=(3, 11))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    """The wheel as ``pip install`` builds it, built once: in this process with the test
    extra's hatchling (about 2 s), else by pip in an isolated build environment."""
    folder = tmp_path_factory.mktemp("wheel")
    try:
        from hatchling.builders.wheel import WheelBuilder
    except ImportError:  # an environment installed before the test extra had it
        pip = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(folder)]
        subprocess.run([*pip, str(ROOT)], check=True)
    else:
        list(WheelBuilder(str(ROOT)).build(directory=str(folder), versions=["standard"]))
    (path,) = folder.glob("*.whl")
    return zipfile.ZipFile(path)


def wheel_metadata(wheel: zipfile.ZipFile) -> Message:
    (name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    return Parser().parsestr(wheel.read(name).decode())


def test_the_wheel_carries_the_license_text_and_names_it_in_its_metadata(
    wheel: zipfile.ZipFile,
) -> None:
    licenses = [n for n in wheel.namelist() if n.endswith(".dist-info/licenses/LICENSE")]
    assert licenses, "the wheel has no LICENSE"
    text = wheel.read(licenses[0]).decode()
    assert text.startswith("MIT License")
    assert "Copyright (c) 2026 the mediashortcodes developers" in text
    metadata = wheel_metadata(wheel)
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]


def help_texts() -> str:
    """Every command's ``--help``, unwrapped."""
    from mediashortcodes.cli import cli

    for module, _stand_in in cli.lazy.values():  # an integration's command registers when loaded
        importlib.import_module(module)
    texts, todo = [], [(cli, "mediashortcodes")]
    while todo:
        command, name = todo.pop()
        ctx = click.Context(command, info_name=name, terminal_width=10_000)
        texts.append(command.get_help(ctx))
        todo += [(sub, f"{name} {n}") for n, sub in getattr(command, "commands", {}).items()]
    return "\n".join(texts)


def test_every_doc_a_help_text_names_is_shipped_in_the_wheel_and_printed(
    wheel: zipfile.ZipFile,
) -> None:
    from mediashortcodes.cli import cli

    named = re.findall(r"\b(?:docs/)?([\w-]+)\.md\b|mediashortcodes docs ([\w-]+)", help_texts())
    assert named, "no help text names a doc"
    shipped = set(wheel.namelist())
    for name in {"".join(pair) for pair in named}:
        assert f"mediashortcodes/docs/{name}.md" in shipped, f"the wheel lacks {name}.md"
        printed = CliRunner().invoke(cli, ["docs", name])
        assert printed.exit_code == 0, f"mediashortcodes docs {name}: {printed.output}"
        assert printed.output == (ROOT / "docs" / f"{name}.md").read_text(encoding="utf-8")
    every = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert {f"mediashortcodes/{name}" for name in every} <= shipped


def test_docs_lists_the_docs_and_where_they_are_and_refuses_other_files() -> None:
    from mediashortcodes.cli import cli

    listed = CliRunner().invoke(cli, ["docs"])
    assert listed.exit_code == 0
    assert listed.output.splitlines()[0] == str(ROOT / "docs")
    assert "  ci                   Building in CI" in listed.output
    escaped = CliRunner().invoke(cli, ["docs", "../README"])
    assert escaped.exit_code == 2
    assert "no doc '../README'; the docs: api, architecture," in escaped.output
