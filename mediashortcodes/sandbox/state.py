"""What both sandbox hosts share: library, tokens, links, knobs, statistics, usage reports.

Every request of the API and media hosts goes through ``serve``: it is counted, delayed
by the latency knob, possibly failed by an injected fault, then handled (and the answer
possibly spoiled by a fault that acts on real answers).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from .auth import TokenStore
from .faults import FailureRule, FaultInjector
from .http import HTTPError, Request, Response, Route, match
from .library import Library
from .links import LinkSigner
from .usages import current_pages


class SandboxState:
    def __init__(
        self,
        library: Library,
        *,
        latency_ms: float = 0.0,
        token_lifetime: float = 7200,
        link_lifetime: int = 300,
        seed: int = 0,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.library = library
        self.clock = clock
        self.sleep = sleep
        self.tokens = TokenStore(clock)
        self.links = LinkSigner(secrets.token_bytes(32))
        self.faults = FaultInjector(seed)
        self.session = secrets.token_hex(6)
        self.media_url = ""  # set when the media host is listening
        self._lock = threading.Lock()
        self._stats: Counter[str] = Counter()
        self._usages: list[dict[str, Any]] = []
        self.latency_ms = latency_ms
        self.token_lifetime = token_lifetime
        self.link_lifetime = link_lifetime

    # Knobs, validated so a typo in a benchmark fails loudly

    @property
    def latency_ms(self) -> float:
        return self._latency_ms

    @latency_ms.setter
    def latency_ms(self, value: float) -> None:
        self._latency_ms = check_knob("latency_ms", value)

    @property
    def token_lifetime(self) -> float:
        return self._token_lifetime

    @token_lifetime.setter
    def token_lifetime(self, value: float) -> None:
        self._token_lifetime = check_knob("token_lifetime", value)

    @property
    def link_lifetime(self) -> int:
        return self._link_lifetime

    @link_lifetime.setter
    def link_lifetime(self, value: int) -> None:
        self._link_lifetime = int(check_knob("link_lifetime", value))

    def settings(self) -> dict[str, Any]:
        return {
            "latency_ms": self.latency_ms,
            "token_lifetime": self.token_lifetime,
            "link_lifetime": self.link_lifetime,
            "failures": self.faults.rules(),
        }

    # Statistics

    def count(self, name: str) -> None:
        with self._lock:
            self._stats[name] += 1

    def stats(self) -> dict[str, int]:
        with self._lock:
            return dict(self._stats)

    def reset_stats(self) -> None:
        with self._lock:
            self._stats.clear()

    # Usage reports

    def add_usage(self, body: dict[str, Any]) -> None:
        with self._lock:
            self._usages.append(body)

    def usages(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._usages)

    def clear_usages(self) -> None:
        with self._lock:
            self._usages.clear()

    def pages(self) -> dict[str, list[int]]:
        """Which page uses which files now, by the accepted reports."""
        return current_pages(self.usages())

    # The request pipeline

    def serve(self, table: tuple[Route, ...], request: Request) -> Response:
        try:
            found, params = match(table, request)
        except HTTPError as exc:
            found, params, miss = None, {}, exc
        self.count(found.name if found else "unknown")
        if self.latency_ms:
            self.sleep(self.latency_ms / 1000.0)
        rule = self.faults.check(request.path)
        if rule is not None and rule.kind not in SPOIL_THE_ANSWER:
            if rule.kind == "stall":
                self.sleep(rule.seconds)
            elif rule.kind == "revoke_tokens":
                self.tokens.revoke_all()
            else:
                return injected(rule)
        if found is None:
            return miss.response()
        try:
            response = found.handler(self, request, **params)
        except HTTPError as exc:
            response = exc.response()
        return spoiled(rule, response, self.media_url) if rule is not None else response


# Fault kinds that let the request be handled, then spoil the real answer.
SPOIL_THE_ANSWER = frozenset({"truncate", "foreign_link"})
NOT_JSON = b'[{"id": 101, "name": "Mountain lake", "filename": '
MAINTENANCE_PAGE = b"<!doctype html><title>Maintenance</title><p>We are back soon.</p>"
JPEG_START = b"\xff\xd8\xff\xe0"


def spoiled(rule: FailureRule, response: Response, media_url: str) -> Response:
    if rule.kind == "truncate":
        return replace(response, truncate=True)
    if rule.kind == "foreign_link" and media_url:
        body = response.body.replace(media_url.encode(), rule.url.rstrip("/").encode())
        return replace(response, body=body)
    return response


def injected(rule: FailureRule) -> Response:
    if rule.kind == "reset":
        return Response(0, drop=True, reset=True)
    if rule.kind == "bad_json":
        return Response(200, NOT_JSON, "application/json; charset=utf-8")
    if rule.kind == "wrong_type":
        return Response(200, MAINTENANCE_PAGE, "text/html; charset=utf-8")
    if rule.kind == "oversize":
        body = JPEG_START.ljust(rule.size, b"\0")[: rule.size]
        return Response(200, body, "image/jpeg", close_delimited=True)
    if rule.status == 0:
        return Response(0, drop=True)
    header = rule.retry_after_header()
    return HTTPError(
        rule.status,
        f"injected failure (sandbox fail rule for '{rule.path_prefix or '/'}')",
        code="injected_failure",
        headers=[("Retry-After", header)] if header is not None else (),
    ).response()


KNOB_MINIMUMS = {"latency_ms": 0.0, "token_lifetime": 1.0, "link_lifetime": 1.0}


def check_knob(name: str, value: Any) -> float:
    """The knob's value as a float; ValueError names the knob and the allowed range."""
    minimum = KNOB_MINIMUMS[name]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum:g}, got {value!r}")
    return float(value)
