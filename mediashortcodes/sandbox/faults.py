"""Failure injection: spoil some requests, decided by a seeded RNG.

Rules are checked in the order added; the first one that fires spoils the request. A rule's
``kind`` says how (``FAULT_KINDS``): the default, ``status``, answers with an error status,
and status 0 closes the connection without an answer (a simulated network fault); the
other kinds imitate the faults of real networks, proxies and services.
"""

from __future__ import annotations

import random
import threading
from dataclasses import asdict, dataclass
from http import HTTPStatus
from typing import Any

FAULT_KINDS = {
    "status": "answer with the rule's status (0: close the connection without an answer)",
    "reset": "reset the connection (TCP RST) instead of answering",
    "stall": "wait the rule's seconds before handling the request (read timeouts)",
    "revoke_tokens": "forget every access token, then handle the request (it gets 401)",
    "truncate": "send the real answer's headers and only half of its body, then close",
    "bad_json": "answer 200 with a JSON content type and a body that is not JSON",
    "wrong_type": "answer 200 with an HTML page where JSON was expected",
    "foreign_link": "point the answer's download links at the rule's url instead",
    "oversize": "answer 200 with an image type and the rule's size in bytes, not announced",
}


@dataclass
class FailureRule:
    status: int = 0
    rate: float = 1.0
    count: int | None = None  # failures left; None: no limit
    retry_after: float | None = None
    path_prefix: str = ""
    kind: str = "status"
    seconds: float = 1.0  # stall
    size: int = 0  # oversize
    url: str = ""  # foreign_link: the scheme and host that replace the media host's

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            known = ", ".join(FAULT_KINDS)
            raise ValueError(f"fault kind {self.kind!r} is unknown; use one of {known}")
        if self.kind != "status":
            self._check_kind()
        elif self.status != 0 and self.status not in {s.value for s in HTTPStatus}:
            raise ValueError(f"fail status {self.status} is not an HTTP status (or 0 to drop)")
        if self.status != 0 and self.status < 400:
            raise ValueError(f"fail status {self.status} must be an error status (400-599)")
        if not 0.0 < self.rate <= 1.0:
            raise ValueError(f"fail rate {self.rate} must be in (0, 1]")
        if self.count is not None and self.count < 1:
            raise ValueError(f"fail count {self.count} must be at least 1 (or None)")
        if self.retry_after is not None and self.retry_after < 0:
            raise ValueError(f"retry_after {self.retry_after} must not be negative")

    def _check_kind(self) -> None:
        if self.status != 0:
            raise ValueError(f"a {self.kind} fault takes no status; leave status out")
        if self.kind == "stall" and not self.seconds > 0:
            raise ValueError(f"stall seconds {self.seconds} must be positive")
        if self.kind == "oversize" and self.size < 1:
            raise ValueError("an oversize fault needs size, the number of bytes to send")
        if self.kind == "foreign_link" and not self.url:
            raise ValueError("a foreign_link fault needs url, e.g. 'https://elsewhere.example'")

    def retry_after_header(self) -> str | None:
        if self.retry_after is None:
            return None
        value = self.retry_after
        return str(int(value)) if float(value).is_integer() else f"{value:g}"


class FaultInjector:
    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)
        self._rules: list[FailureRule] = []
        self._lock = threading.Lock()

    def add(self, rule: FailureRule) -> None:
        with self._lock:
            self._rules.append(rule)

    def clear(self) -> None:
        with self._lock:
            self._rules.clear()

    def check(self, path: str) -> FailureRule | None:
        """The rule that fails this request, if any (consuming one of its count)."""
        with self._lock:
            for rule in self._rules:
                if not path.startswith(rule.path_prefix):
                    continue
                if rule.rate < 1.0 and self._rng.random() >= rule.rate:
                    continue
                if rule.count is not None:
                    rule.count -= 1
                    if rule.count == 0:
                        self._rules.remove(rule)
                return rule
        return None

    def rules(self) -> list[dict[str, Any]]:
        with self._lock:
            return [asdict(rule) for rule in self._rules]
