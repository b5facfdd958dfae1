"""Fixtures of the sandbox's own tests: a fresh sandbox per test, with a clock we control."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from conftest import FakeClock

from mediashortcodes.sandbox import Sandbox

pytest.importorskip("PIL", reason="the sandbox needs the [sandbox] extra (Pillow)")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def sleeps() -> list[float]:
    """Every latency sleep the sandbox asked for, in seconds (nothing really sleeps)."""
    return []


@pytest.fixture
def sb(clock: FakeClock, sleeps: list[float]) -> Iterator[Sandbox]:
    with Sandbox(clock=clock, sleep=sleeps.append) as sandbox:
        yield sandbox


@pytest.fixture
def api(sb: Sandbox) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=sb.base_url, timeout=10.0) as client:
        yield client


@pytest.fixture
def media(sb: Sandbox) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=sb.media_url, timeout=10.0) as client:
        yield client


def token_params(sb: Sandbox, **changes: str) -> dict[str, str]:
    creds = sb.credentials
    params = {
        "grant_type": "refresh_token",
        "client_id": creds.client_id,
        "client_secret": creds.client_secret,
        "refresh_token": creds.refresh_token,
    }
    params.update(changes)
    return params


@pytest.fixture
def auth(sb: Sandbox, api: httpx.Client) -> dict[str, str]:
    response = api.get("/1/oauth2/token", params=token_params(sb))
    assert response.status_code == 200
    return {"Authorization": f"Bearer {response.json()['access_token']}"}


def download_info(api: httpx.Client, auth: dict[str, str], file_id: int, fmt: int, **q: Any) -> Any:
    response = api.get(f"/1/file/{file_id}/download/{fmt}", params=q, headers=auth)
    assert response.status_code == 200, response.text
    (info,) = response.json()
    return info
