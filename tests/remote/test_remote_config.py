"""[cache] remote, remote_endpoint, remote_write and remote_timeout: in the file, from the
environment, and refused with the file's line when they could leak or cannot work."""

from __future__ import annotations

from pathlib import Path

import pytest

from mediashortcodes import config as config_mod
from mediashortcodes.errors import ConfigError


def site(tmp_path: Path, cache_section: str) -> Path:
    (tmp_path / "mediashortcodes.toml").write_text(
        '[service]\nbase_url = "https://api.example.com"\n\n[cache]\n' + cache_section
    )
    return tmp_path


@pytest.fixture(autouse=True)
def no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in (
        config_mod.ENV_CACHE_REMOTE,
        config_mod.ENV_CACHE_REMOTE_ENDPOINT,
        config_mod.ENV_CACHE_REMOTE_WRITE,
    ):
        monkeypatch.delenv(var, raising=False)


def test_the_remote_is_off_and_read_only_by_default(tmp_path: Path) -> None:
    cache = config_mod.load(site(tmp_path, "")).cache
    assert (cache.remote, cache.remote_endpoint, cache.remote_write) == ("", "", False)


def test_the_file_sets_the_remote(tmp_path: Path) -> None:
    cache = config_mod.load(
        site(
            tmp_path,
            'remote = "s3://ci-cache/site"\nremote_endpoint = "https://minio.example.com"\n'
            "remote_write = true\nremote_timeout = 2.5\n",
        )
    ).cache
    assert cache.remote == "s3://ci-cache/site"
    assert cache.remote_endpoint == "https://minio.example.com"
    assert cache.remote_write is True
    assert cache.remote_timeout == 2.5


def test_the_environment_overrides_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(config_mod.ENV_CACHE_REMOTE, "s3://other/prefix")
    monkeypatch.setenv(config_mod.ENV_CACHE_REMOTE_ENDPOINT, "http://127.0.0.1:9000")
    monkeypatch.setenv(config_mod.ENV_CACHE_REMOTE_WRITE, "true")
    cache = config_mod.load(site(tmp_path, 'remote = "s3://ci-cache/site"\n')).cache
    assert cache.remote == "s3://other/prefix"
    assert cache.remote_endpoint == "http://127.0.0.1:9000"
    assert cache.remote_write is True


def test_the_environment_can_turn_writing_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(config_mod.ENV_CACHE_REMOTE_WRITE, "0")
    assert not config_mod.load(site(tmp_path, "remote_write = true\n")).cache.remote_write


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('remote = "my-bucket/prefix"', r"must be a URL such as s3://bucket/prefix"),
        ('remote = "s3://KEY:SECRET@bucket/p"', r"must not hold credentials"),
        ('remote_endpoint = "minio:9000"', r"must be an http\(s\) URL"),
        ("remote_timeout = 0", r"must be greater than 0"),
    ],
)
def test_a_bad_value_names_the_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    with pytest.raises(ConfigError, match=r"mediashortcodes\.toml:5: \[cache\] .*" + message):
        config_mod.load(site(tmp_path, line + "\n"))


def test_a_secret_in_the_url_is_never_repeated_in_the_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        config_mod.load(site(tmp_path, 'remote = "s3://KEY:S3CR3T@bucket/p"\n'))
    assert "S3CR3T" not in str(caught.value)


def test_a_bad_environment_value_names_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(config_mod.ENV_CACHE_REMOTE_WRITE, "maybe")
    with pytest.raises(ConfigError, match="MEDIASHORTCODES_CACHE_REMOTE_WRITE must be 1, true"):
        config_mod.load(site(tmp_path, ""))
