"""Failure injection rules."""

from __future__ import annotations

import pytest

from mediashortcodes.sandbox.faults import FailureRule, FaultInjector


def test_a_rule_with_a_count_fails_that_many_requests_then_ends():
    faults = FaultInjector()
    faults.add(FailureRule(503, count=2))
    assert [faults.check("/1/format") is not None for _ in range(3)] == [True, True, False]
    assert faults.rules() == []


def test_a_rule_fails_only_paths_under_its_prefix():
    faults = FaultInjector()
    faults.add(FailureRule(500, path_prefix="/dn/"))
    assert faults.check("/1/format") is None
    assert faults.check("/dn/abc/original") is not None


def test_a_rate_fails_the_same_requests_for_the_same_seed():
    def pattern(seed: int) -> list[bool]:
        faults = FaultInjector(seed)
        faults.add(FailureRule(503, rate=0.3))
        return [faults.check("/1/format") is not None for _ in range(200)]

    first = pattern(7)
    assert first == pattern(7)
    assert 30 < sum(first) < 90


def test_retry_after_is_written_as_whole_seconds_when_it_can_be():
    assert FailureRule(429, retry_after=2).retry_after_header() == "2"
    assert FailureRule(429, retry_after=0.25).retry_after_header() == "0.25"
    assert FailureRule(429).retry_after_header() is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"status": 200}, "error status"),
        ({"status": 999}, "not an HTTP status"),
        ({"status": 503, "rate": 0}, "rate"),
        ({"status": 503, "count": 0}, "count"),
        ({"status": 429, "retry_after": -1}, "retry_after"),
    ],
)
def test_a_nonsensical_rule_is_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        FailureRule(**kwargs)
