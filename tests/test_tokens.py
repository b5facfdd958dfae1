"""The token manager: reuse, renewal before expiry, single-flight refresh."""

from __future__ import annotations

import asyncio

import pytest

from mediashortcodes.client.async_client import TokenManager
from mediashortcodes.records import Token


class Issuer:
    def __init__(self, expires_in: int = 7200) -> None:
        self.count = 0
        self.expires_in = expires_in
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    def fetch(self) -> Token:
        self.count += 1
        return Token(f"tok-{self.count}", "Bearer", self.expires_in)

    async def afetch(self) -> Token:
        await asyncio.sleep(0)
        return self.fetch()


async def test_the_token_is_reused_until_the_margin_before_expiry():
    issuer = Issuer()
    tokens = TokenManager(issuer.afetch, issuer.clock, margin=60)
    assert await tokens.get() == "tok-1"
    issuer.now = 7139
    assert await tokens.get() == "tok-1"
    issuer.now = 7140
    assert await tokens.get() == "tok-2"


async def test_a_rejected_token_is_replaced_once_even_when_reported_twice():
    issuer = Issuer()
    tokens = TokenManager(issuer.afetch, issuer.clock, margin=60)
    rejected = await tokens.get()
    assert await tokens.after_rejection(rejected) == "tok-2"
    assert await tokens.after_rejection(rejected) == "tok-2"  # a late report of the old one
    assert issuer.count == 2


async def test_tasks_waiting_for_a_token_share_one_fetch():
    issuer = Issuer()
    tokens = TokenManager(issuer.afetch, issuer.clock, margin=60)
    assert set(await asyncio.gather(*(tokens.get() for _ in range(50)))) == {"tok-1"}
    assert issuer.count == 1


async def test_many_tasks_rejected_together_cause_one_refresh():
    issuer = Issuer()
    tokens = TokenManager(issuer.afetch, issuer.clock, margin=60)
    old = await tokens.get()
    fresh = await asyncio.gather(*(tokens.after_rejection(old) for _ in range(10)))
    assert set(fresh) == {"tok-2"} and issuer.count == 2


class Unreachable(Exception):
    pass


async def test_tasks_waiting_for_a_failing_fetch_share_its_failure():
    attempts = 0

    async def failing_fetch() -> Token:
        nonlocal attempts
        attempts += 1
        for _ in range(5):
            await asyncio.sleep(0)  # the other tasks queue up meanwhile
        raise Unreachable("the service cannot be reached")

    tokens = TokenManager(failing_fetch, Issuer().clock, margin=60)
    results = await asyncio.gather(*(tokens.get() for _ in range(8)), return_exceptions=True)
    assert all(isinstance(r, Unreachable) for r in results)
    assert attempts == 1  # not eight retry sequences one after the other
    with pytest.raises(Unreachable):
        await tokens.get()  # a request that comes later asks again
    assert attempts == 2


async def test_the_token_never_shows_in_a_repr():
    issuer = Issuer()
    tokens = TokenManager(issuer.afetch, issuer.clock, margin=60)
    await tokens.get()
    assert "tok-1" not in repr(tokens)
