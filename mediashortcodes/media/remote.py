"""The shared cache tier's transport: bytes under names in a bucket (extra ``remote``).

Its answers are checked like local data; its failures cost time, never the build (one
warning, a deadline per call, a breaker). ``s3://`` goes through obstore (about 0.4 ms of
CPU a GET against botocore's 2 ms, docs/benchmarks.md), ``file://`` is a folder written
atomically, anything else fsspec's (``gs://`` with gcsfs, ``memory://``).
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import os
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit
from urllib.request import url2pathname

from ..errors import ConfigError
from ..fileio import write_atomic

log = logging.getLogger("mediashortcodes")

# After this many failed calls the remote is skipped for the rest of the build.
MAX_FAILURES = 3
# Making the client once (finding credentials may ask an instance's metadata service).
SET_UP_DEADLINE = 30.0
# Secrets of the storage libraries' credential chains, masked in any reason shown.
_CREDENTIAL_VARS = (
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_SECURITY_TOKEN",
    "GOOGLE_APPLICATION_CREDENTIALS",
)
_QUERY = re.compile(r"\?[^\s\"'<>]*")


class _Skipped(Exception):
    """The breaker is open: the call was not sent."""


class Objects(Protocol):
    """Bytes under names relative to the remote's root (one request per call)."""

    async def set_up(self) -> None:
        return None

    async def get(self, name: str, end: int, start: int = 0) -> bytes:
        """Bytes ``start`` to ``end`` (fewer at its end); FileNotFoundError when absent."""

    async def put(self, name: str, data: bytes | bytearray, *, create: bool) -> None:
        """Store it whole; with ``create``, FileExistsError when it is there already."""

    async def aclose(self) -> None:
        return None


@dataclass
class RemoteStats:
    reads: int = 0  # GETs sent (a miss is a read too)
    puts: int = 0  # PUTs sent
    writes: int = 0  # writes that stored an object (not one already there)
    failures: int = 0  # calls that failed or passed their deadline


class RemoteStore:
    """Bytes under names relative to the remote's root, with a deadline per call, bounded
    concurrency and a breaker; never raises for the remote's failures."""

    def __init__(
        self,
        objects: Objects,
        *,
        display: str,
        write: bool = False,
        timeout: float = 10.0,
        jobs: int = 16,
        warn: Callable[[str], None] = log.warning,
    ) -> None:
        self._objects = objects
        self.display = display
        self.write_enabled = write
        self.timeout = timeout
        self.jobs = max(1, jobs)
        self._semaphore = asyncio.Semaphore(self.jobs)
        self._warn = warn
        self._warned = False
        self._ready = False
        self._setting_up = asyncio.Lock()
        self.stats = RemoteStats()

    @property
    def available(self) -> bool:
        return self.stats.failures < MAX_FAILURES

    async def read(self, name: str, *, limit: int) -> bytes | None:
        """The object's bytes cut at ``limit + 1`` (a ranged read: the caller sees it is too
        long without downloading it); None if absent or the remote failed."""
        return await self._get(name, 0, limit + 1)

    async def read_range(self, name: str, start: int, end: int) -> bytes | None:
        """Bytes ``start`` to ``end`` (one GET); None if absent, shorter, or failed."""
        data = await self._get(name, start, end)
        return data if data is not None and len(data) == end - start else None

    async def _get(self, name: str, start: int, end: int) -> bytes | None:
        try:
            data = await self._call(lambda: self._objects.get(name, end, start), "reads")
        except (FileNotFoundError, _Skipped):
            return None
        except Exception as exc:
            self._failed(exc)
            return None
        return bytes(data)

    async def write(self, name: str, data: bytes | bytearray, *, create: bool) -> bool:
        """Store ``data`` at ``name`` (``create``: only if absent); whether it is there now."""
        if not self.write_enabled:
            return False
        try:
            await self._call(lambda: self._objects.put(name, data, create=create), "puts")
        except FileExistsError:
            return True
        except _Skipped:
            return False
        except Exception as exc:
            self._failed(exc)
            return False
        self.stats.writes += 1
        return True

    async def _call(self, call: Callable[[], Awaitable[Any]], counter: str) -> Any:
        """One call within the deadline, at most ``jobs`` at a time; _Skipped once the
        breaker is open (checked again after the wait)."""
        if not self.available:
            raise _Skipped
        await self._set_up()
        async with self._semaphore:
            if not self.available:
                raise _Skipped
            setattr(self.stats, counter, getattr(self.stats, counter) + 1)
            return await asyncio.wait_for(call(), self.timeout)

    async def _set_up(self) -> None:
        """Make the client once, before the first call's deadline starts (finding the
        credentials takes longer than a call should)."""
        if self._ready:
            return
        async with self._setting_up:
            if self._ready:
                return
            try:
                await asyncio.wait_for(self._objects.set_up(), SET_UP_DEADLINE)
            except Exception:
                self.stats.failures = MAX_FAILURES  # nothing to send calls with
                raise
            finally:
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
        await asyncio.wait_for(self._objects.aclose(), self.timeout)


class S3Objects(Objects):
    """An S3(-compatible) bucket through obstore; credentials from boto3's chain."""

    def __init__(self, bucket: str, prefix: str, *, endpoint: str, timeout: float) -> None:
        self._bucket = bucket
        self._prefix = prefix
        self._endpoint = endpoint
        self._timeout = timeout
        self._store: Any = None

    async def set_up(self) -> None:
        self._store = await asyncio.to_thread(self._make)

    def _make(self) -> Any:
        from obstore.store import S3Store

        provider: dict[str, Any] = {}
        if not (os.environ.get("AWS_ACCESS_KEY_ID") and os.environ.get("AWS_SECRET_ACCESS_KEY")):
            provider["credential_provider"] = _boto3_chain()
        # else obstore reads the environment itself, without boto3's import (0.13 s). The
        # deadline is RemoteStore's; this one, a second later, ends a socket left hung.
        limit = timedelta(seconds=self._timeout + 1)
        config: dict[str, Any] = {"endpoint": self._endpoint} if self._endpoint else {}
        return S3Store(
            self._bucket,
            prefix=self._prefix or None,
            config=config,  # type: ignore[arg-type]
            client_options={
                "timeout": limit,
                "connect_timeout": limit,
                # An endpoint the configuration names with http:// (a MinIO on the LAN).
                "allow_http": self._endpoint.startswith("http://"),
            },
            # No retries: a miss costs less than a retry's wait; the breaker does the rest.
            retry_config={"max_retries": 0, "retry_timeout": limit},
            **provider,
        )

    async def get(self, name: str, end: int, start: int = 0) -> bytes:
        import obstore
        from obstore.exceptions import NotFoundError

        try:
            return bytes(await obstore.get_range_async(self._store, name, start=start, end=end))
        except NotFoundError:
            raise FileNotFoundError(name) from None

    async def put(self, name: str, data: bytes | bytearray, *, create: bool) -> None:
        import obstore
        from obstore.exceptions import AlreadyExistsError, PreconditionError

        try:
            await obstore.put_async(
                self._store, name, data, mode="create" if create else "overwrite"
            )
        except (AlreadyExistsError, PreconditionError):
            raise FileExistsError(name) from None

    async def aclose(self) -> None:
        self._store = None  # its connections close with it


def _boto3_chain() -> Any:
    """boto3's credential chain (profile, web identity, instance or task role...) for obstore."""
    import boto3
    from obstore.auth.boto3 import Boto3CredentialProvider

    session = boto3.Session()
    if session.get_credentials() is None:
        raise PermissionError(
            "no credentials (boto3's chain: environment, profile, web identity, role)"
        )
    return Boto3CredentialProvider(session)


class FolderObjects(Objects):
    """A folder (``file://``, a shared disk), each object written whole (``write_atomic``)."""

    def __init__(self, root: Path) -> None:
        self._root = root

    async def get(self, name: str, end: int, start: int = 0) -> bytes:
        return await asyncio.to_thread(self._read, self._root / name, start, end)

    @staticmethod
    def _read(path: Path, start: int, end: int) -> bytes:
        with path.open("rb") as file:
            file.seek(start)
            return file.read(max(0, end - start))

    async def put(self, name: str, data: bytes | bytearray, *, create: bool) -> None:
        path = self._root / name
        if create and await asyncio.to_thread(path.exists):
            raise FileExistsError(name)  # content-addressed: a racing writer's is the same
        await asyncio.to_thread(write_atomic, path, bytes(data))


class FsspecObjects(Objects):
    """Any other fsspec file system (gcsfs's ``gs://``, ``memory://``)."""

    def __init__(self, fs: Any, root: str) -> None:
        self._fs = fs
        self._root = root.rstrip("/")

    async def set_up(self) -> None:
        set_session = getattr(self._fs, "set_session", None)
        if set_session is not None:
            await set_session()

    async def get(self, name: str, end: int, start: int = 0) -> bytes:
        return bytes(await self._fs._cat_file(f"{self._root}/{name}", start=start, end=end))

    async def put(self, name: str, data: bytes | bytearray, *, create: bool) -> None:
        mode = "create" if create else "overwrite"
        await self._fs._pipe_file(f"{self._root}/{name}", data, mode=mode)


def open_remote(
    url: str,
    *,
    endpoint: str = "",
    write: bool = False,
    timeout: float = 10.0,
    jobs: int = 16,
    warn: Callable[[str], None] = log.warning,
) -> RemoteStore:
    """A :class:`RemoteStore` for ``url``; ConfigError when its library is missing. The
    first call connects, on its event loop."""
    protocol = urlsplit(url).scheme
    objects: Objects
    if protocol in ("s3", "s3a"):
        if not all(importlib.util.find_spec(name) for name in ("obstore", "boto3")):
            raise ConfigError(_install_hint(url))
        bucket, _, prefix = url.split("://", 1)[1].partition("/")
        objects = S3Objects(bucket, prefix.strip("/"), endpoint=endpoint, timeout=timeout)
    elif endpoint:
        raise ConfigError(
            f"[cache] remote_endpoint is for s3:// URLs (S3-compatible stores), not {url!r}"
        )
    elif protocol == "file":
        objects = FolderObjects(Path(url2pathname(urlsplit(url).path)))
    else:
        objects = _fsspec_objects(url, protocol)
    return RemoteStore(objects, display=url, write=write, timeout=timeout, jobs=jobs, warn=warn)


def _fsspec_objects(url: str, protocol: str) -> FsspecObjects:
    try:
        import fsspec
        from fsspec.implementations.asyn_wrapper import AsyncFileSystemWrapper
    except ImportError:
        raise ConfigError(_install_hint(url)) from None
    try:
        cls = fsspec.get_filesystem_class(protocol)
    except ValueError:
        raise ConfigError(
            f"[cache] remote {url!r}: unknown storage protocol {protocol!r}"
        ) from None
    except ImportError:
        raise ConfigError(_install_hint(url)) from None
    if getattr(cls, "async_impl", False):
        fs = cls(asynchronous=True, skip_instance_cache=True)
    else:  # memory:// and other synchronous ones: the calls run in threads
        fs = AsyncFileSystemWrapper(cls(), asynchronous=True)
    return FsspecObjects(fs, cls._strip_protocol(url))


def _install_hint(url: str) -> str:
    extra = " and gcsfs" if url.startswith(("gs://", "gcs://")) else ""
    return (
        f'[cache] remote = "{url}" needs the remote extra: pip install '
        f'"mediashortcodes[remote]"{extra}'
    )
