"""Redaction: secrets and download tokens never survive into text a person can read."""

from __future__ import annotations

import logging

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mediashortcodes.client.redact import (
    RedactingFilter,
    install_log_redaction,
    redact,
    redact_url,
    redact_urls_in,
)

TOKEN_URL = (
    "https://api.example.com/1/oauth2/token?grant_type=refresh_token"
    "&client_id=cid&client_secret=S3CR3T&refresh_token=R3FR"
)


def test_the_token_requests_credentials_are_masked_and_the_rest_kept():
    assert redact_url(TOKEN_URL) == (
        "https://api.example.com/1/oauth2/token?grant_type=refresh_token"
        "&client_id=***&client_secret=***&refresh_token=***"
    )


def test_an_access_token_in_a_query_is_masked_whatever_the_case_of_its_name():
    assert (
        redact_url("https://h/x?Access_Token=abc&page=2") == "https://h/x?Access_Token=***&page=2"
    )


def test_a_download_links_token_and_unknown_parameters_are_masked_but_crop_kept():
    url = "https://dl.example.com/dn/T0KEN/custom?w=50&h=40&x1=1&t=9&u=3&cc=ab&ch=cd&sid=S"
    assert redact_url(url) == (
        "https://dl.example.com/dn/***/custom?w=50&h=40&x1=1&t=***&u=***&cc=***&ch=***&sid=***"
    )


def test_a_password_in_the_url_is_masked():
    assert redact_url("https://user:pw@h.example/x") == "https://user:***@h.example/x"


def test_an_ordinary_url_is_unchanged():
    url = "https://api.example.com/1/folder/3/files?fields=id,name&type=any&processed=true"
    assert redact_url(url) == url


def test_redact_url_accepts_an_httpx_url():
    assert "S3CR3T" not in redact_url(httpx.URL(TOKEN_URL))


def test_urls_inside_a_text_are_redacted():
    text = f"failed to GET {TOKEN_URL} (connection reset)"
    assert redact_urls_in(text) == f"failed to GET {redact_url(TOKEN_URL)} (connection reset)"


def test_redact_masks_each_secret_also_when_url_encoded():
    secret = "a/b+c=d"
    text = f"raw {secret} quoted a%2Fb%2Bc%3Dd plus a%2Fb%2Bc%3Dd"
    assert redact(text, [secret, ""]) == "raw *** quoted *** plus ***"


@given(st.text(min_size=1), st.text())
def test_no_secret_survives_redact(secret, text):
    # The secret cannot be rebuilt from the mask and its neighbours unless it is the mask.
    if "*" not in secret:
        assert secret not in redact(text + secret + text, [secret])


@given(st.text(alphabet=st.characters(blacklist_characters="&#;=%+ *"), min_size=1))
def test_no_client_secret_survives_redact_url(secret):
    assert f"client_secret={secret}" not in redact_url(f"https://h/t?client_secret={secret}&x=1")


def test_the_logging_filter_redacts_httpx_style_records():
    record = logging.LogRecord(
        "httpx", logging.INFO, __file__, 1, 'HTTP Request: %s %s "%s %d %s"',
        ("GET", httpx.URL(TOKEN_URL), "HTTP/1.1", 200, "OK"), None,
    )  # fmt: skip
    RedactingFilter().filter(record)
    message = record.getMessage()
    assert "S3CR3T" not in message and "R3FR" not in message and " 200 OK" in message


def test_the_logging_filter_redacts_a_preformatted_message():
    record = logging.LogRecord("httpx", logging.INFO, __file__, 1, TOKEN_URL, None, None)
    RedactingFilter().filter(record)
    assert "S3CR3T" not in record.getMessage()


@pytest.mark.parametrize("times", [1, 3])
def test_installing_the_filter_is_idempotent(times):
    name = "mediashortcodes.test.redact"
    for _ in range(times):
        install_log_redaction((name,))
    assert sum(isinstance(f, RedactingFilter) for f in logging.getLogger(name).filters) == 1
