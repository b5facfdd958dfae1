"""The command line of DESIGN.md, spelled exactly: scripts and CI jobs depend on these names."""

from __future__ import annotations

import importlib

import click
import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli

for _module, _stand_in in cli.lazy.values():  # an integration's command registers when loaded
    importlib.import_module(_module)

# command path -> (arguments, options), as DESIGN.md's CLI section writes them
CONTRACT: dict[str, tuple[list[str], list[str]]] = {
    "build": (
        ["SITE"],
        ["--output", "--report", "--offline", "--refresh", "--keep-going", "--jobs", "-j"],
    ),
    "report": (["SITE"], ["--dry-run", "--all", "--previous", "-j", "--jobs"]),
    "check": (["SITE"], ["--offline", "-j", "--jobs"]),
    "cache info": (["SITE"], []),
    "cache clear": (["SITE"], []),
    "cache verify": (["SITE"], []),
    # SITE as build takes it (issue 17); --site, their option before, still works
    "folders": (["SITE"], ["--json", "--site"]),
    "files": (["FOLDER_ID", "SITE"], ["--json", "--site"]),
    "search": (["QUERY", "SITE"], ["--json", "--site"]),
    "formats": (["SITE"], ["--json", "--site"]),
    "download": (
        ["FILE_ID", "FORMAT", "SITE"],
        ["--w", "--h", "--sw", "--sh", "--x1", "--x2", "--y1", "--y2", "--stretch", "-o"],
    ),
    "sandbox": ([], ["--port"]),
    "pick": (["SITE"], []),
    "init": (["DIR"], []),
    "serve": (["SITE"], ["--port", "--open", "-j", "--jobs"]),
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


def test_help_lists_each_integration_command_by_its_own_short_help() -> None:
    for name, (_, stand_in) in cli.lazy.items():
        for limit in (45, 80):
            shown = cli.commands[name].get_short_help_str(limit)
            assert stand_in.get_short_help_str(limit) == shown


def commands(group: click.Group, prefix: str = "") -> dict[str, click.Command]:
    found: dict[str, click.Command] = {}
    for name, sub in group.commands.items():
        found[prefix + name] = sub
        if isinstance(sub, click.Group):
            found.update(commands(sub, f"{prefix}{name} "))
    return found


# Every command that reads a site, and so takes SITE; the others read none.
READS_A_SITE = [
    *("build", "report", "check", "serve", "pick", "cache info", "cache clear", "cache verify"),
    "finish",
    *("folders", "files", "search", "formats", "download"),
]


def test_the_commands_that_read_a_site_are_the_ones_listed_here() -> None:
    takes_site = {
        path for path, c in commands(cli).items() if any(p.name == "site" for p in c.params)
    }
    assert takes_site == set(READS_A_SITE)


@pytest.mark.parametrize("path", READS_A_SITE)
def test_site_is_an_optional_argument_that_defaults_to_the_current_directory(path: str) -> None:
    site = next(p for p in command(path).params if p.name == "site")
    assert isinstance(site, click.Argument)
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


@pytest.mark.parametrize("path", ["build", "check", "serve", "report"])
def test_jobs_is_taken_the_same_way_wherever_requests_run_at_the_same_time(path: str) -> None:
    result = CliRunner().invoke(cli, [*path.split(), "-j", "0"])
    assert result.exit_code == 2
    assert "Invalid value for '-j' / '--jobs'" in result.output
