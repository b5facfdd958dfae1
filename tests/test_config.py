"""Configuration values that would crash a build or write outside the output are refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli
from mediashortcodes.config import from_mapping, load
from mediashortcodes.errors import ConfigError


@pytest.mark.parametrize(
    ("section", "key", "value", "message"),
    [
        ("images", "max_bytes", 0, "greater than 0"),
        ("service", "timeout", -1.0, "greater than 0"),
        ("service", "timeout", 0, "greater than 0"),
        ("build", "jobs", 0, "from 1 to 256"),
        ("build", "jobs", 1_000_000_000, "from 1 to 256"),
        ("service", "max_retries", -1, "0 or more"),
        ("service", "retry_total_seconds", -0.5, "0 or more"),
        ("site", "media_dir", "../assets", "inside the output"),
        ("site", "media_dir", "/var/www/media", "inside the output"),
        ("site", "media_dir", "a\\..\\..\\b", "inside the output"),
        ("site", "media_dir", " ", "inside the output"),
    ],
)
def test_a_value_out_of_its_range_is_refused_naming_section_key_and_value(
    tmp_path, section, key, value, message
):
    with pytest.raises(ConfigError, match=message) as caught:
        from_mapping({section: {key: value}}, tmp_path, source="site.toml")
    assert f"site.toml: [{section}] {key}" in str(caught.value)
    assert repr(value) in str(caught.value)


@pytest.mark.parametrize(
    ("section", "key", "value"),
    [
        ("service", "max_retries", 0),
        ("service", "retry_total_seconds", 0),
        ("site", "media_dir", "assets/media"),
        ("images", "max_bytes", 1),
    ],
)
def test_values_at_the_edge_of_their_range_are_accepted(tmp_path, section, key, value):
    config = from_mapping({section: {key: value}}, tmp_path)
    assert getattr(getattr(config, section), key) == value


def test_a_config_file_that_is_not_utf8_is_a_config_error_saying_so(tmp_path: Path):
    (tmp_path / "mediashortcodes.toml").write_bytes(b"\xff\xfe[service]\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load(tmp_path)


def test_a_missing_service_url_says_the_config_file_is_yet_to_be_created(tmp_path, monkeypatch):
    from mediashortcodes.config import ENV_BASE_URL, require_service_urls

    monkeypatch.delenv(ENV_BASE_URL, raising=False)
    with pytest.raises(ConfigError, match=r"mediashortcodes\.toml \(create it\) or .*BASE_URL"):
        require_service_urls(load(tmp_path))
    (tmp_path / "mediashortcodes.toml").write_text("[site]\n")
    with pytest.raises(ConfigError) as raised:
        require_service_urls(load(tmp_path))
    assert "create it" not in str(raised.value)


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("[cache]\nmetadata_ttl = true", "[cache] metadata_ttl must be a whole number, got True"),
        ("[cache]\nmetadata_ttl = -1", "[cache] metadata_ttl must be 0 or more, got -1"),
        ('[build]\njobs = "8"', "[build] jobs must be a whole number, got '8'"),
        (
            "[build]\njobs = 1000000000",
            "[build] jobs must be from 1 to 256 (as -j), got 1000000000",
        ),
        ("[service]\nsandbox = 1", "[service] sandbox must be true or false, got 1"),
        ("[site]\nbase_url = 3", "[site] base_url must be text, got 3"),
        ("[site]\nbase_ur = 3", "unknown key 'base_ur' in [site]"),
    ],
)
def test_a_wrong_setting_names_the_line_of_its_key_in_plain_words(tmp_path, setting, message):
    (tmp_path / "mediashortcodes.toml").write_text(
        f'# the site\n[images]\ndefault_format = "original"\n\n{setting}\n', encoding="utf-8"
    )
    with pytest.raises(ConfigError) as caught:
        load(tmp_path)
    assert str(caught.value).startswith(f"{tmp_path / 'mediashortcodes.toml'}:6: {message}")


@pytest.mark.parametrize(("jobs", "accepted"), [(1, True), (256, True), (0, False), (257, False)])
def test_jobs_take_one_range_in_the_file_and_on_the_command_line(tmp_path, jobs, accepted):
    for folder, name in (("content", "index.md"), ("templates", "page.html")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / name).write_text("Hi\n")
    toml = tmp_path / "mediashortcodes.toml"
    toml.write_text("[service]\nsandbox = true\n")
    on_the_line = CliRunner().invoke(cli, ["check", str(tmp_path), "--offline", "-j", str(jobs)])
    toml.write_text(f"[service]\nsandbox = true\n[build]\njobs = {jobs}\n")
    in_the_file = CliRunner().invoke(cli, ["check", str(tmp_path), "--offline"])
    assert (on_the_line.exit_code, in_the_file.exit_code) == ((0, 0) if accepted else (2, 2))
    if not accepted:
        assert "not in the range 1<=x<=256" in on_the_line.output
        assert "mediashortcodes.toml:4: [build] jobs must be from 1 to 256" in in_the_file.output


def test_a_config_file_saved_with_a_byte_order_mark_is_read(tmp_path: Path):
    (tmp_path / "mediashortcodes.toml").write_bytes(
        '\ufeff[site]\nbase_url = "https://s.org"\n'.encode()
    )
    assert load(tmp_path).site.base_url == "https://s.org"


def test_every_missing_credential_is_named_in_one_message(monkeypatch) -> None:
    from mediashortcodes.config import credentials_from_env

    monkeypatch.delenv("MEDIASHORTCODES_CLIENT_ID", raising=False)
    monkeypatch.delenv("MEDIASHORTCODES_REFRESH_TOKEN", raising=False)
    monkeypatch.setenv("MEDIASHORTCODES_CLIENT_SECRET", "s3cr3t")
    with pytest.raises(ConfigError) as info:
        credentials_from_env()
    assert str(info.value).startswith(
        "missing credentials: set the environment variables MEDIASHORTCODES_CLIENT_ID and "
        "MEDIASHORTCODES_REFRESH_TOKEN"
    )
    assert "s3cr3t" not in str(info.value)
