"""The command line of DESIGN.md, spelled exactly: scripts and CI jobs depend on these names."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli

# command path -> (arguments, options), as DESIGN.md's CLI section writes them
CONTRACT: dict[str, tuple[list[str], list[str]]] = {
    "build": (
        ["SITE"],
        ["--output", "--report", "--offline", "--refresh", "--keep-going", "--jobs"],
    ),
    "report": (["SITE"], ["--dry-run", "--all", "--previous"]),
    "check": (["SITE"], ["--offline"]),
    "cache info": (["SITE"], []),
    "cache clear": (["SITE"], []),
    "folders": ([], ["--json"]),
    "files": (["FOLDER_ID"], ["--json"]),
    "search": (["QUERY"], ["--json"]),
    "formats": ([], ["--json"]),
    "download": (
        ["FILE_ID", "FORMAT"],
        ["--w", "--h", "--sw", "--sh", "--x1", "--x2", "--y1", "--y2", "--stretch", "-o"],
    ),
    "sandbox": ([], ["--port"]),
    "pick": (["SITE"], []),
    "init": (["DIR"], []),
    "serve": (["SITE"], ["--port", "--open"]),
}


def command(path: str) -> click.Command:
    found: click.Command = cli
    for name in path.split():
        assert isinstance(found, click.Group)
        found = found.commands[name]
    return found


@pytest.mark.parametrize("path", CONTRACT)
def test_every_command_has_its_arguments_and_options(path: str) -> None:
    arguments, options = CONTRACT[path]
    params = command(path).params
    names = [p.human_readable_name.strip("[]") for p in params if isinstance(p, click.Argument)]
    assert names == arguments
    spelled = {opt for p in params if isinstance(p, click.Option) for opt in p.opts}
    assert set(options) <= spelled


@pytest.mark.parametrize(
    "path", ["build", "report", "check", "cache info", "cache clear", "pick", "serve"]
)
def test_site_is_optional_and_defaults_to_the_current_directory(path: str) -> None:
    site = next(p for p in command(path).params if p.name == "site")
    assert not site.required and str(site.default) == "."


def test_the_command_list_shows_every_summary_whole() -> None:
    result = CliRunner().invoke(cli, ["--help"], terminal_width=80)
    commands = result.output.split("Commands:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert {line.split()[0] for line in commands} >= {p.split()[0] for p in CONTRACT}
    assert not [line for line in commands if line.endswith("...")]


def test_the_main_help_gives_the_exit_codes() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    text = " ".join(result.output.split())
    assert "Exit codes: 0 success; 1 the content or a report has problems" in text
    assert "2 usage or configuration error; 3 the service could not be reached" in text
