"""The reliability suite's harness: a copy of the example site pointed at a sandbox.

A :class:`Site` is the example site copied into a temporary directory, configured with the
sandbox's explicit URLs (not ``sandbox = true``), small retry budgets and its own cache
directory. Commands run through the real CLI, in-process (:meth:`Site.run`) or as a child
process (:meth:`Site.spawn`), always from the site directory as a CI job would run them.
Every run is kept, so :meth:`Site.assert_no_secrets` can look through all of its output.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import traceback
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus, urlsplit

import pytest
from click.testing import CliRunner

from mediashortcodes import config as config_mod
from mediashortcodes.cli import cli
from mediashortcodes.config import Credentials, tomllib
from mediashortcodes.sandbox import Sandbox

EXAMPLE_SITE = Path(__file__).resolve().parents[2] / "example_site"

# Small budgets: a fault that retries can help with costs well under a second, and one
# that cannot fails within about a second; every download of the site runs at once.
SERVICE_DEFAULTS: dict[str, Any] = {
    "timeout": 1.0,
    "max_retries": 2,
    "retry_total_seconds": 1.0,
}
BUILD_DEFAULTS: dict[str, Any] = {"jobs": 32}


@dataclass
class Run:
    """One command's outcome: what a CI log would show."""

    args: tuple[str, ...]
    exit_code: int
    stdout: str
    stderr: str
    exception: BaseException | None = None

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def texts(self) -> list[str]:
        texts = [self.stdout, self.stderr]
        if self.exception is not None:
            texts += exception_texts(self.exception)
        return texts

    def __str__(self) -> str:
        return f"$ mediashortcodes {' '.join(self.args)} -> exit {self.exit_code}\n{self.output}"


def exception_texts(exc: BaseException) -> list[str]:
    """The traceback a person would see, and the text of every exception in the chain."""
    texts = ["".join(traceback.format_exception(exc))]
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        texts += [str(current), repr(current)]
        current = current.__cause__ or current.__context__
    return texts


def toml_text(data: Mapping[str, Mapping[str, Any]]) -> str:
    """A TOML file of tables holding strings, numbers, booleans and lists of strings."""

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(value(item) for item in v) + "]"
        raise TypeError(f"cannot write {v!r} as TOML")

    lines = []
    for section, keys in data.items():
        lines.append(f"[{section}]")
        lines += [f"{key} = {value(v)}" for key, v in keys.items()]
        lines.append("")
    return "\n".join(lines)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by relative path, with its bytes."""
    if not root.exists():
        return {}
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def normalized(files: dict[str, bytes], media_url: str) -> dict[str, bytes]:
    url = media_url.encode()
    host = urlsplit(media_url).netloc.encode()  # a click-to-load video names the player's host
    return {
        name: data.replace(url, b"{media}").replace(host, b"{media-host}")
        for name, data in files.items()
    }


def secret_variants(secrets: Iterable[str]) -> set[str]:
    found = set()
    for secret in secrets:
        if secret:
            found |= {secret, quote(secret, safe=""), quote_plus(secret, safe="")}
    return found


@dataclass
class Site:
    root: Path
    cache_dir: Path
    sandbox: Sandbox
    caplog: pytest.LogCaptureFixture | None
    scan_root: Path
    runs: list[Run] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)  # more texts to scan (exception messages)
    sections: dict[str, dict[str, Any]] = field(default_factory=dict)  # changes so far
    # The sandbox's addresses, kept so the site can still be configured once it stopped.
    api_url: str = ""
    media_url: str = ""
    credentials: Credentials | None = None  # what the environment holds: the demo ones

    def __post_init__(self) -> None:
        self.api_url = self.api_url or self.sandbox.base_url
        self.media_url = self.media_url or self.sandbox.media_url
        self.credentials = self.credentials or self.sandbox.credentials

    # -- set up ---------------------------------------------------------------------------

    @classmethod
    def copy_of_example(
        cls,
        workdir: Path,
        sandbox: Sandbox,
        caplog: pytest.LogCaptureFixture | None = None,
        **sections: Any,
    ) -> Site:
        root = workdir / "site"
        shutil.copytree(
            EXAMPLE_SITE, root, ignore=shutil.ignore_patterns("_site", ".mediashortcodes")
        )
        site = cls(root, workdir / "cache", sandbox, caplog, scan_root=workdir)
        site.configure(**sections)
        return site

    def configure(self, **sections: Mapping[str, Any]) -> None:
        """Rewrite mediashortcodes.toml: the example's settings, the sandbox's URLs, and
        every change asked for so far (later ones win)."""
        for name, changes in sections.items():
            self.sections[name] = {**self.sections.get(name, {}), **changes}
        data = tomllib.loads((EXAMPLE_SITE / config_mod.CONFIG_NAME).read_text("utf-8"))
        service = {k: v for k, v in data.get("service", {}).items() if k != "sandbox"}
        service |= {
            "base_url": self.api_url,
            "player_url": self.media_url,
            "static_url": self.media_url,
            "download_url": self.media_url,
            **SERVICE_DEFAULTS,
        }
        data["service"] = service
        data["build"] = {**data.get("build", {}), **BUILD_DEFAULTS}
        for name, changes in self.sections.items():
            data[name] = {**data.get(name, {}), **changes}
        (self.root / config_mod.CONFIG_NAME).write_text(toml_text(data), encoding="utf-8")

    def env(self) -> dict[str, str]:
        """The environment of a CI job: credentials and cache; service URLs only in the file."""
        creds = self.credentials or self.sandbox.credentials
        return {
            config_mod.ENV_CLIENT_ID: creds.client_id,
            config_mod.ENV_CLIENT_SECRET: creds.client_secret,
            config_mod.ENV_REFRESH_TOKEN: creds.refresh_token,
            config_mod.ENV_CACHE_DIR: str(self.cache_dir),
        }

    @property
    def output(self) -> Path:
        return self.root / "_site"

    def snapshot(self) -> dict[str, bytes]:
        """The output, with this sandbox's address written as ``{media}`` so that builds
        against different sandboxes compare equal."""
        return normalized(snapshot(self.output), self.media_url)

    @property
    def state_path(self) -> Path:
        return self.root / ".mediashortcodes" / "usage-state.json"

    # -- running --------------------------------------------------------------------------

    def run(self, *args: str) -> Run:
        """Run ``mediashortcodes ARGS`` in this process, from the site directory."""
        runner = CliRunner()
        with pytest.MonkeyPatch.context() as mp:
            mp.chdir(self.root)
            for name in (config_mod.ENV_BASE_URL, config_mod.ENV_PLAYER_URL):
                mp.delenv(name, raising=False)
            mp.delenv(config_mod.ENV_STATIC_URL, raising=False)
            for name, value in self.env().items():
                mp.setenv(name, value)
            result = runner.invoke(cli, list(args), catch_exceptions=True)
        exception = result.exception
        if exception is not None and not isinstance(exception, SystemExit):
            raise AssertionError(f"mediashortcodes {' '.join(args)} crashed") from exception
        run = Run(tuple(args), result.exit_code, result.stdout, result.stderr)
        self.runs.append(run)
        return run

    def spawn(self, *args: str, **popen: Any) -> subprocess.Popen[str]:
        """Start ``mediashortcodes ARGS`` as a child process, from the site directory."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEDIASHORTCODES_")}
        env |= self.env()
        return subprocess.Popen(
            [sys.executable, "-m", "mediashortcodes.cli", *args],
            cwd=self.root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            **popen,
        )

    def finish(self, process: subprocess.Popen[str], args: tuple[str, ...] = ()) -> Run:
        """Wait for a child process and keep its outcome as a run."""
        stdout, stderr = process.communicate(timeout=60)
        run = Run(args, process.returncode, stdout, stderr)
        self.runs.append(run)
        return run

    # -- checks ---------------------------------------------------------------------------

    def secrets(self) -> set[str]:
        values = [*self.sandbox.issued_tokens()]
        for creds in {self.sandbox.credentials, self.credentials or self.sandbox.credentials}:
            values += [creds.client_secret, creds.refresh_token]
        return secret_variants(values)

    def assert_no_secrets(self) -> None:
        """No credential or access token in any output, log, exception or file written."""
        secrets = self.secrets()
        places: list[tuple[str, str]] = []
        for run in self.runs:
            places += [(f"{run.args}", text) for text in run.texts()]
        places += [("exception", text) for text in self.texts]
        for record in self.caplog.records if self.caplog else ():
            if record.name.startswith("mediashortcodes.sandbox"):
                continue  # the emulated service's own log, not the product's
            text = record.getMessage() + (record.exc_text or "")
            places.append((f"log {record.name}", text))
        leaks = [(where, s) for where, text in places for s in secrets if s in text]
        for path in sorted(self.scan_root.rglob("*")):
            if path.is_file():
                data = path.read_bytes()
                leaks += [(str(path), s) for s in secrets if s.encode() in data]
        assert not leaks, f"secrets leaked: {leaks}"

    def blobs(self) -> list[Path]:
        """The cache's image blobs (a temporary file a killed build left is none of them)."""
        return [
            p
            for p in self.cache_dir.rglob("blobs/*/*")
            if p.is_file() and not p.name.startswith(".tmp-")
        ]

    def assert_cache_consistent(self) -> None:
        """Every blob holds the bytes its name says."""
        blobs = self.blobs()
        assert blobs, "the cache holds no blobs"
        for blob in blobs:
            digest = hashlib.sha256(blob.read_bytes()).hexdigest()
            assert blob.name.split(".")[0] == digest, f"blob {blob} does not match its name"

    def leftovers(self) -> list[str]:
        """Staging or old output directories a build left next to the output."""
        return sorted(
            p.name for p in self.root.iterdir() if p.name.startswith(f".{self.output.name}.")
        )
