"""The retry policy: which answers are retried, how long to wait, when to stop."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import format_datetime

import pytest

from mediashortcodes.client.base import RetryPolicy, is_retryable_status, parse_retry_after

NOW = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    ("status", "retried"),
    [
        *((status, True) for status in (429, 500, 502, 503, 504, 520, 599)),
        *((status, False) for status in (501, 505, 511, 400, 401, 404, 200)),
    ],
)
def test_only_429_and_transient_5xx_are_retried(status, retried):
    assert is_retryable_status(status) is retried


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("7", 7.0), (" 1.5 ", 1.5), ("-3", 0.0), ("", None), (None, None), ("soon", None)],
)
def test_retry_after_in_seconds(value, seconds):
    assert parse_retry_after(value, NOW) == seconds


def test_retry_after_as_an_http_date_counts_from_now():
    when = datetime(2024, 5, 1, 12, 0, 30, tzinfo=UTC)
    assert parse_retry_after(format_datetime(when, usegmt=True), NOW) == pytest.approx(30.0)


def test_retry_after_in_the_past_means_no_wait():
    assert parse_retry_after("Wed, 01 May 2024 11:00:00 GMT", NOW) == 0.0


def test_backoff_doubles_within_jitter_bounds_and_is_capped():
    policy = RetryPolicy(max_retries=6, max_delay=4.0, jitter=lambda low, high: high)
    waits = [policy.next_wait(n, 0.0, None) for n in range(1, 7)]
    assert waits == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]
    low = RetryPolicy(base_delay=0.5, jitter=lambda low, high: low)
    assert low.next_wait(3, 0.0, None) == 1.0


def test_retry_after_replaces_the_backoff():
    policy = RetryPolicy(jitter=lambda low, high: high)
    assert policy.next_wait(1, elapsed=0.0, retry_after=12.0) == 12.0


def test_no_retry_beyond_max_retries():
    policy = RetryPolicy(max_retries=2, jitter=lambda low, high: high)
    assert policy.next_wait(2, 0.0, None) == 1.0
    assert policy.next_wait(3, 0.0, None) is None


def test_waits_are_capped_at_the_remaining_budget_and_stop_when_it_is_spent():
    policy = RetryPolicy(total_seconds=10.0)
    assert policy.next_wait(1, elapsed=8.0, retry_after=30.0) == 2.0
    assert policy.next_wait(1, elapsed=10.0, retry_after=None) is None
