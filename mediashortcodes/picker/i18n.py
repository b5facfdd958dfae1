"""The picker's UI text in the four locales of the service's own file selector (pure).

Every locale has the same keys (a test checks it); the page receives one locale's dict and
never hard-codes a user-visible string. ``{name}`` placeholders are filled in by the page.
"""

from __future__ import annotations

from ..errors import ConfigError

DEFAULT_LOCALE = "en_US"

MESSAGES: dict[str, dict[str, str]] = {
    "en_US": {
        "title": "Media picker",
        "search_placeholder": "Search files…",
        "search": "Search",
        "folders": "Folders",
        "no_folders": "No folders are visible to this integration.",
        "files": "Files",
        "search_results": "Search results for “{query}”",
        "no_files": "No files here.",
        "loading": "Loading…",
        "choose_folder": "Choose a folder or search to see files.",
        "choose_file": "Choose a file to get its shortcode.",
        "image": "Image",
        "video": "Video",
        "archived": "archived",
        "format": "Format",
        "format_original": "Original",
        "format_custom": "Custom crop",
        "aspect": "Crop aspect",
        "aspect_free": "Free",
        "crop_hint": "Drag on the preview to draw the crop.",
        "crop_missing": "Draw a crop rectangle on the preview first.",
        "output_width": "Output width",
        "output_height": "Output height",
        "alt_text": "Alt text",
        "alt_hint": "The service's alt text applies unless you change it; empty = decorative.",
        "embed": "Embed",
        "embed_iframe": "Iframe",
        "embed_script": "Script",
        "preview": "Preview",
        "shortcode": "Shortcode",
        "copy": "Copy",
        "copied": "Copied",
        "copy_failed": "Copy failed: select the shortcode and copy it by hand.",
        "error": "Something went wrong: {message}",
        "forbidden": "Open the address that “mediashortcodes pick” printed.",
    },
    "sv_SE": {
        "title": "Mediaväljare",
        "search_placeholder": "Sök filer…",
        "search": "Sök",
        "folders": "Mappar",
        "no_folders": "Inga mappar är synliga för den här integrationen.",
        "files": "Filer",
        "search_results": "Sökresultat för ”{query}”",
        "no_files": "Inga filer här.",
        "loading": "Laddar…",
        "choose_folder": "Välj en mapp eller sök för att se filer.",
        "choose_file": "Välj en fil för att få dess kortkod.",
        "image": "Bild",
        "video": "Video",
        "archived": "arkiverad",
        "format": "Format",
        "format_original": "Original",
        "format_custom": "Egen beskärning",
        "aspect": "Beskärningens proportioner",
        "aspect_free": "Fria",
        "crop_hint": "Dra på förhandsvisningen för att rita beskärningen.",
        "crop_missing": "Rita först en beskärning på förhandsvisningen.",
        "output_width": "Bredd",
        "output_height": "Höjd",
        "alt_text": "Alternativtext",
        "alt_hint": "Tjänstens alternativtext gäller om du inte ändrar den; tom = dekorativ.",
        "embed": "Inbäddning",
        "embed_iframe": "Iframe",
        "embed_script": "Skript",
        "preview": "Förhandsvisning",
        "shortcode": "Kortkod",
        "copy": "Kopiera",
        "copied": "Kopierad",
        "copy_failed": "Kopieringen misslyckades: markera kortkoden och kopiera den själv.",
        "error": "Något gick fel: {message}",
        "forbidden": "Öppna adressen som ”mediashortcodes pick” skrev ut.",
    },
    "no_NB": {
        "title": "Medievelger",
        "search_placeholder": "Søk i filer…",
        "search": "Søk",
        "folders": "Mapper",
        "no_folders": "Ingen mapper er synlige for denne integrasjonen.",
        "files": "Filer",
        "search_results": "Søkeresultater for «{query}»",
        "no_files": "Ingen filer her.",
        "loading": "Laster…",
        "choose_folder": "Velg en mappe eller søk for å se filer.",
        "choose_file": "Velg en fil for å få kortkoden.",
        "image": "Bilde",
        "video": "Video",
        "archived": "arkivert",
        "format": "Format",
        "format_original": "Original",
        "format_custom": "Egen beskjæring",
        "aspect": "Beskjæringens sideforhold",
        "aspect_free": "Fritt",
        "crop_hint": "Dra på forhåndsvisningen for å tegne beskjæringen.",
        "crop_missing": "Tegn først en beskjæring på forhåndsvisningen.",
        "output_width": "Bredde",
        "output_height": "Høyde",
        "alt_text": "Alternativ tekst",
        "alt_hint": "Tjenestens alternative tekst gjelder om du ikke endrer den; tom = dekorativ.",
        "embed": "Innbygging",
        "embed_iframe": "Iframe",
        "embed_script": "Skript",
        "preview": "Forhåndsvisning",
        "shortcode": "Kortkode",
        "copy": "Kopier",
        "copied": "Kopiert",
        "copy_failed": "Kopieringen mislyktes: merk kortkoden og kopier den selv.",
        "error": "Noe gikk galt: {message}",
        "forbidden": "Åpne adressen som «mediashortcodes pick» skrev ut.",
    },
    "fi_FI": {
        "title": "Mediavalitsin",
        "search_placeholder": "Hae tiedostoja…",
        "search": "Hae",
        "folders": "Kansiot",
        "no_folders": "Tälle integraatiolle ei näy yhtään kansiota.",
        "files": "Tiedostot",
        "search_results": "Hakutulokset: ”{query}”",
        "no_files": "Ei tiedostoja.",
        "loading": "Ladataan…",
        "choose_folder": "Valitse kansio tai hae nähdäksesi tiedostot.",
        "choose_file": "Valitse tiedosto saadaksesi sen lyhytkoodin.",
        "image": "Kuva",
        "video": "Video",
        "archived": "arkistoitu",
        "format": "Muoto",
        "format_original": "Alkuperäinen",
        "format_custom": "Oma rajaus",
        "aspect": "Rajauksen kuvasuhde",
        "aspect_free": "Vapaa",
        "crop_hint": "Piirrä rajaus vetämällä esikatselukuvan päällä.",
        "crop_missing": "Piirrä ensin rajaus esikatselukuvaan.",
        "output_width": "Leveys",
        "output_height": "Korkeus",
        "alt_text": "Vaihtoehtoinen teksti",
        "alt_hint": "Palvelun teksti on käytössä, ellet muuta sitä; tyhjä = koristekuva.",
        "embed": "Upotus",
        "embed_iframe": "Iframe",
        "embed_script": "Skripti",
        "preview": "Esikatselu",
        "shortcode": "Lyhytkoodi",
        "copy": "Kopioi",
        "copied": "Kopioitu",
        "copy_failed": "Kopiointi epäonnistui: valitse lyhytkoodi ja kopioi se itse.",
        "error": "Jokin meni vikaan: {message}",
        "forbidden": "Avaa osoite, jonka ”mediashortcodes pick” tulosti.",
    },
}

LOCALES: tuple[str, ...] = tuple(MESSAGES)


def messages(locale: str) -> dict[str, str]:
    """The UI text of one locale; an unknown locale names the ones that exist."""
    try:
        return dict(MESSAGES[locale])
    except KeyError:
        raise ConfigError(
            f"unknown picker locale {locale!r}; use one of {', '.join(LOCALES)}"
        ) from None


def html_lang(locale: str) -> str:
    """The BCP 47 tag for ``<html lang>``: ``no_NB`` is Norwegian Bokmål, ``nb-NO``."""
    return {"no_NB": "nb-NO"}.get(locale, locale.replace("_", "-"))
