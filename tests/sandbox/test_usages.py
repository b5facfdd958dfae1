"""Usage report bodies: parsing, checking, and the current page -> files view."""

from __future__ import annotations

import json

import pytest

from mediashortcodes.sandbox.usages import current_pages, parse_usage

BODY = {
    "id": [101, 102],
    "contact": "Web team",
    "date": "2024-05-01",
    "amount": "1",
    "description": "",
    "project": "Demo",
    "types": ["web"],
    "removed": "false",
    "web": {"page": "https://www.example.org/blog/", "pageName": "Blog"},
}


def test_a_json_body_is_read_as_sent():
    assert parse_usage(json.dumps(BODY).encode(), "application/json") == BODY


def test_a_form_body_is_read_into_the_same_shape():
    form = b"id=101&id=102&web%5Bpage%5D=https%3A%2F%2Fx%2Fa%2F&web%5BpageName%5D=A&removed=true"
    usage = parse_usage(form, "application/x-www-form-urlencoded")
    assert usage["id"] == [101, 102]
    assert usage["web"] == {"page": "https://x/a/", "pageName": "A"}
    assert usage["removed"] == "true"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"id": []}, "non-empty list"),
        ({"id": ["101"]}, "integers only"),
        ({"id": [True]}, "integers only"),
        ({"web": {"pageName": "x"}}, "non-empty 'page'"),
        ({"removed": "maybe"}, "removed"),
        ({"types": "web"}, "types"),
        ({"project": 5}, "'project' must be a string"),
    ],
)
def test_an_invalid_body_is_refused_naming_the_field(change, message):
    with pytest.raises(ValueError, match=message):
        parse_usage(json.dumps({**BODY, **change}).encode(), "application/json")


def test_a_body_that_is_not_json_is_refused():
    with pytest.raises(ValueError, match="not JSON"):
        parse_usage(b"{oops", "application/json")


def test_current_pages_replays_additions_and_removals_in_order():
    page = {"page": "https://x/a/", "pageName": "A"}
    reports = [
        {"id": [1, 2], "web": page, "removed": "false"},
        {"id": [3], "web": {"page": "https://x/b/"}},
        {"id": [2], "web": page, "removed": "true"},
        {"id": [3], "web": {"page": "https://x/b/"}, "removed": True},
    ]
    assert current_pages(reports) == {"https://x/a/": [1]}
