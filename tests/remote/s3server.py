"""A real S3-compatible server on 127.0.0.1 for the remote cache's tests: moto's standalone
server in its own process, started by the tests and ended by its process id."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# moto accepts any credentials; botocore needs some to sign its requests.
CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing-key-id",
    "AWS_SECRET_ACCESS_KEY": "testing-secret-key-S3CR3T",
    "AWS_DEFAULT_REGION": "us-east-1",
    # Never ask a cloud's instance metadata address for credentials: loopback only.
    "AWS_EC2_METADATA_DISABLED": "true",
}


@dataclass
class S3Server:
    endpoint: str
    process: subprocess.Popen[bytes]

    @property
    def pid(self) -> int:
        return self.process.pid

    def pause(self) -> None:
        """Stop answering (the process is frozen: connections hang, as with a dead host)."""
        os.kill(self.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.pid, signal.SIGCONT)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.kill(self.pid, signal.SIGCONT)
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)

    def reset(self) -> None:
        """Delete every bucket and object (moto's own control endpoint)."""
        request = urllib.request.Request(f"{self.endpoint}/moto-api/reset", method="POST")
        urllib.request.urlopen(request, timeout=10).close()

    def bucket(self, name: str) -> Bucket:
        """A new bucket on this server, seen through boto3 (not through the code tested)."""
        import boto3

        client = boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=CREDENTIALS["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
            region_name=CREDENTIALS["AWS_DEFAULT_REGION"],
        )
        client.create_bucket(Bucket=name)
        return Bucket(name, client, self.endpoint)


@dataclass
class Bucket:
    name: str
    client: Any
    endpoint: str

    def url(self, prefix: str = "site-cache") -> str:
        return f"s3://{self.name}/{prefix}"

    def objects(self) -> dict[str, bytes]:
        """Every object's key and bytes, as the server lists them."""
        found: dict[str, bytes] = {}
        for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.name):
            for item in page.get("Contents", []):
                body = self.client.get_object(Bucket=self.name, Key=item["Key"])["Body"]
                found[item["Key"]] = body.read()
        return found

    def put(self, key: str, data: bytes) -> None:
        self.client.put_object(Bucket=self.name, Key=key, Body=data)

    def delete(self, key: str) -> None:
        self.client.delete_object(Bucket=self.name, Key=key)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _moto_command() -> list[str]:
    script = Path(sys.executable).with_name("moto_server")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "moto.server"]


def _answers(endpoint: str) -> bool:
    try:
        urllib.request.urlopen(f"{endpoint}/moto-api/", timeout=1).close()
    except OSError:
        return False
    return True


@contextmanager
def s3_server() -> Iterator[S3Server]:
    """Start moto's server on a free port of 127.0.0.1; stop it by its id on the way out."""
    for _attempt in range(3):  # the free port may be taken between the probe and the bind
        port = _free_port()
        endpoint = f"http://127.0.0.1:{port}"
        process = subprocess.Popen(
            [*_moto_command(), "-H", "127.0.0.1", "-p", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, **CREDENTIALS},
        )
        server = S3Server(endpoint, process)
        deadline = time.monotonic() + 30
        while process.poll() is None and time.monotonic() < deadline:
            if _answers(endpoint):
                try:
                    yield server
                finally:
                    server.stop()
                return
            time.sleep(0.1)
        server.stop()
    raise RuntimeError("moto's S3 server did not start on 127.0.0.1")
