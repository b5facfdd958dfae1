"""Signed download link tokens."""

from __future__ import annotations

import pytest

from mediashortcodes.sandbox.links import InvalidLink, LinkClaim, LinkSigner


def test_a_signed_token_gives_back_its_claim():
    signer = LinkSigner(b"k" * 32)
    claim = LinkClaim(101, 3, 1_700_000_300)
    assert signer.verify(signer.sign(claim)) == claim


def test_a_token_from_another_key_is_refused():
    token = LinkSigner(b"a" * 32).sign(LinkClaim(101, 0, 1))
    with pytest.raises(InvalidLink, match="signature"):
        LinkSigner(b"b" * 32).verify(token)


def test_a_token_with_an_edited_claim_is_refused():
    signer = LinkSigner(b"k" * 32)
    token = signer.sign(LinkClaim(101, 0, 1))
    forged = signer.sign(LinkClaim(102, 0, 1)).split(".")[0] + "." + token.split(".")[1]
    with pytest.raises(InvalidLink):
        signer.verify(forged)


def test_the_crop_parameters_are_covered_by_the_signature():
    signer = LinkSigner(b"k" * 32)
    token = signer.sign(LinkClaim(101, -1, 1), "w=10&h=10")
    with pytest.raises(InvalidLink):
        signer.verify(token, "w=20&h=10")


@pytest.mark.parametrize("token", ["", "abc", "abc.def", "!!!.???", "MTAx.xx"])
def test_garbage_is_a_malformed_link(token):
    with pytest.raises(InvalidLink):
        LinkSigner(b"k" * 32).verify(token)
