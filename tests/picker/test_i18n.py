"""The picker's UI text in the file selector's four locales."""

from __future__ import annotations

import re

import pytest

from mediashortcodes.errors import ConfigError
from mediashortcodes.picker.i18n import DEFAULT_LOCALE, LOCALES, MESSAGES, html_lang, messages


def test_the_four_locales_of_the_file_selector_are_offered() -> None:
    assert set(LOCALES) == {"sv_SE", "en_US", "no_NB", "fi_FI"}
    assert DEFAULT_LOCALE == "en_US"


@pytest.mark.parametrize("locale", sorted(MESSAGES))
def test_every_locale_translates_every_string(locale: str) -> None:
    assert MESSAGES[locale].keys() == MESSAGES["en_US"].keys()
    assert all(text.strip() for text in MESSAGES[locale].values())


@pytest.mark.parametrize("locale", sorted(MESSAGES))
def test_placeholders_survive_translation(locale: str) -> None:
    for key, english in MESSAGES["en_US"].items():
        expected = set(re.findall(r"\{(\w+)\}", english))
        assert set(re.findall(r"\{(\w+)\}", MESSAGES[locale][key])) == expected, key


def test_non_english_locales_are_really_translated() -> None:
    for locale in ("sv_SE", "no_NB", "fi_FI"):
        assert messages(locale)["copy"] != messages("en_US")["copy"]


def test_an_unknown_locale_names_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="en_US, sv_SE, no_NB, fi_FI"):
        messages("de_DE")


def test_norwegian_bokmal_gets_a_valid_html_language_tag() -> None:
    assert html_lang("no_NB") == "nb-NO"
    assert html_lang("sv_SE") == "sv-SE"
