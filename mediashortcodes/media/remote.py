"""The shared cache tier: the local store's layout on an fsspec URL (extra ``remote``).

CI runners are ephemeral: trusted builds (the default branch) write what they fetched, all
builds read. The remote is a shortcut and nothing more. What it answers is checked exactly
like the local cache's content by the caller, and any failure of it (unreachable, slow,
answering errors) costs time, never the build: one warning line, a deadline per call, and
after a few failures the remote is skipped for the rest of the build.

Built on fsspec: ``s3://`` through s3fs (botocore's credential chain: environment, profile,
instance role; any S3-compatible store through ``remote_endpoint``), ``gs://`` through gcsfs,
``file://`` and ``memory://`` (tests) built in. Calls run on the build's own event loop.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..errors import ConfigError

log = logging.getLogger("mediashortcodes")

# After this many failed calls the remote is skipped for the rest of the build.
MAX_FAILURES = 3
# Making the storage library's client (once per build): no network call for S3 unless the
# credentials come from an instance's metadata service.
SET_UP_DEADLINE = 30.0
# The secrets of the storage libraries' own credential chains, masked in any reason shown.
_CREDENTIAL_VARS = (
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_SECURITY_TOKEN",
    "GOOGLE_APPLICATION_CREDENTIALS",
)
_QUERY = re.compile(r"\?[^\s\"'<>]*")


class _Skipped(Exception):
    """The breaker is open: the call was not sent."""


@dataclass
class RemoteStats:
    reads: int = 0  # reads sent (one GET each; a miss is a read too)
    hits: int = 0  # reads that found the object
    puts: int = 0  # writes sent (one PUT each)
    writes: int = 0  # writes that stored an object (not one already there)
    failures: int = 0  # calls that failed or passed their deadline

    @property
    def requests(self) -> int:
        return self.reads + self.puts


class RemoteStore:
    """Bytes under names relative to a root on an fsspec file system, with a deadline per
    call, bounded concurrency and a breaker; never raises for the remote's failures."""

    def __init__(
        self,
        fs: Any,
        root: str,
        *,
        display: str,
        write: bool = False,
        timeout: float = 10.0,
        jobs: int = 16,
        max_failures: int = MAX_FAILURES,
        warn: Callable[[str], None] = log.warning,
    ) -> None:
        self._fs = fs
        self._root = root.rstrip("/")
        self.display = display
        self.write_enabled = write
        self.timeout = timeout
        self._semaphore = asyncio.Semaphore(max(1, jobs))
        self._max_failures = max_failures
        self._warn = warn
        self._warned = False
        self._ready = False
        self._setting_up = asyncio.Lock()
        self.stats = RemoteStats()

    @property
    def available(self) -> bool:
        return self.stats.failures < self._max_failures

    def path(self, name: str) -> str:
        return f"{self._root}/{name}"

    async def read(self, name: str, *, limit: int) -> bytes | None:
        """The object's bytes, cut at ``limit + 1`` (so a caller's checks see it is too long
        without downloading all of it); None if it is absent or the remote failed (counted,
        and warned about once)."""
        try:
            # A ranged read: an object far larger than anything we write is never downloaded.
            data = await self._call(
                lambda: self._fs._cat_file(self.path(name), start=0, end=limit + 1), "reads"
            )
        except (FileNotFoundError, _Skipped):
            return None
        except Exception as exc:
            self._failed(exc)
            return None
        self.stats.hits += 1
        return bytes(data)

    async def write(self, name: str, data: bytes, *, create: bool) -> None:
        """Store ``data`` at ``name`` in one PUT; with ``create``, only if nothing is there
        yet (a conditional write where the store has them): the object already there stays."""
        if not self.write_enabled:
            return
        mode = "create" if create else "overwrite"
        try:
            await self._call(lambda: self._fs._pipe_file(self.path(name), data, mode=mode), "puts")
        except (FileExistsError, _Skipped):
            return
        except Exception as exc:
            self._failed(exc)
            return
        self.stats.writes += 1

    async def _call(self, call: Callable[[], Awaitable[Any]], counter: str) -> Any:
        """Send one call within the deadline, at most ``jobs`` at a time; _Skipped once the
        breaker is open (checked again after waiting for a turn: it may have opened since)."""
        if not self.available:
            raise _Skipped
        await self._set_up()
        async with self._semaphore:
            if not self.available:
                raise _Skipped
            setattr(self.stats, counter, getattr(self.stats, counter) + 1)
            return await asyncio.wait_for(call(), self.timeout)

    async def _set_up(self) -> None:
        """Make the library's client once, before the first call's deadline starts: for s3fs
        that loads botocore's service model and finds the credentials, which takes a busy
        machine longer than a call should (and may ask an instance's metadata service)."""
        if self._ready:
            return
        async with self._setting_up:
            if self._ready:
                return
            set_session = getattr(self._fs, "set_session", None)
            if set_session is not None:
                await asyncio.wait_for(set_session(), SET_UP_DEADLINE)
            self._ready = True

    def _failed(self, exc: Exception) -> None:
        self.stats.failures += 1
        if not self._warned:
            self._warned = True
            self._warn(
                f"the remote cache {self.display} failed ({self._reason(exc)}); this build "
                "goes on with the local cache and the service"
            )

    def _reason(self, exc: Exception) -> str:
        if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
            return f"no answer within {self.timeout:g} s"
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        text = _QUERY.sub("", text)[:200]
        for var in _CREDENTIAL_VARS:
            secret = os.environ.get(var, "")
            if len(secret) >= 4:
                text = text.replace(secret, "***")
        return f"{type(exc).__name__}: {text}" if text else type(exc).__name__

    async def aclose(self) -> None:
        # s3fs keeps an aiobotocore client (an aiohttp session) open on this loop.
        client = getattr(self._fs, "_s3", None)
        if client is not None:
            await asyncio.wait_for(client.close(), self.timeout)


def open_remote(
    url: str,
    *,
    endpoint: str = "",
    write: bool = False,
    timeout: float = 10.0,
    jobs: int = 16,
    warn: Callable[[str], None] = log.warning,
) -> RemoteStore:
    """A :class:`RemoteStore` for ``url`` (checked by the config: a URL with no credentials
    in it); ConfigError when its library is missing. Opens no connection: the first call
    does, on the event loop that makes it."""
    try:
        import fsspec
        from fsspec.implementations.asyn_wrapper import AsyncFileSystemWrapper
    except ImportError:
        raise ConfigError(_install_hint(url)) from None
    protocol = urlsplit(url).scheme
    try:
        cls = fsspec.get_filesystem_class(protocol)
    except ValueError:
        raise ConfigError(
            f"[cache] remote {url!r}: unknown storage protocol {protocol!r}"
        ) from None
    except ImportError:
        raise ConfigError(_install_hint(url)) from None
    options: dict[str, Any] = {}
    if protocol in ("s3", "s3a"):
        # botocore's own timeouts end a hung call's socket too. No retries: for a cache a
        # miss costs less than a retry's wait, and the breaker deals with a failing remote.
        options["config_kwargs"] = {
            "connect_timeout": timeout,
            "read_timeout": timeout,
            "retries": {"max_attempts": 1, "mode": "standard"},
        }
        if endpoint:
            options["endpoint_url"] = endpoint
    elif endpoint:
        raise ConfigError(
            f"[cache] remote_endpoint is for s3:// URLs (S3-compatible stores), not {url!r}"
        )
    if getattr(cls, "async_impl", False):
        fs = cls(asynchronous=True, skip_instance_cache=True, **options)
        if protocol in ("s3", "s3a"):
            fs.retries = 1  # s3fs's own retries on top of botocore's: none

    else:  # file://, memory://: the calls run in threads
        fs = AsyncFileSystemWrapper(cls(**options), asynchronous=True)
    root = cls._strip_protocol(url)
    return RemoteStore(fs, root, display=url, write=write, timeout=timeout, jobs=jobs, warn=warn)


def _install_hint(url: str) -> str:
    extra = " and gcsfs" if url.startswith(("gs://", "gcs://")) else ""
    return (
        f'[cache] remote = "{url}" needs the remote extra: pip install '
        f'"mediashortcodes[remote]"{extra}'
    )
