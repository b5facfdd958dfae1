"""The picker's local HTTP interface: its protection, its endpoints, and the secret guard."""

from __future__ import annotations

import json

import pytest

from mediashortcodes.config import Credentials
from mediashortcodes.media.render import EmbedError
from mediashortcodes.picker.app import PickerApp, Request, Response
from mediashortcodes.picker.backend import PickerBackend, folder_json
from mediashortcodes.picker.guard import (
    MIN_SECRET_LENGTH,
    SecretGuard,
    client_secrets,
    warn_about_short_secrets,
)
from mediashortcodes.records import File, Folder, folder_tree

from .fake_service import ACCESS_TOKEN, CREDENTIALS, FakeService, file_json

PORT = 8765
TOKEN = "per-run-token"
HOST = f"127.0.0.1:{PORT}"
COOKIE = f"mediashortcodes_picker_{PORT}={TOKEN}"


def fake_embed(text: str, file: File) -> str:
    return f"<div data-shortcode='{text}'>{file.media_id}</div>"


def make_app(service: FakeService, locale: str = "en_US") -> PickerApp:
    client = service.client()
    backend = PickerBackend(client, embed_renderer=fake_embed)
    return PickerApp(
        backend, token=TOKEN, port=PORT, guard=SecretGuard(client_secrets(client)), locale=locale
    )


@pytest.fixture
def service() -> FakeService:
    return FakeService()


@pytest.fixture
def app(service: FakeService) -> PickerApp:
    return make_app(service)


def call(
    app: PickerApp, target: str, *, method: str = "GET", body: bytes = b"", **headers: str
) -> Response:
    sent = {"host": HOST, "cookie": COOKIE, **{k.replace("_", "-"): v for k, v in headers.items()}}
    return app.handle(Request(method, target, {k: v for k, v in sent.items() if v}, body))


def data(response: Response) -> object:
    assert response.content_type == "application/json"
    return json.loads(response.body)


def shortcode(app: PickerApp, choice: dict) -> Response:
    return call(
        app,
        "/api/shortcode",
        method="POST",
        body=json.dumps(choice).encode(),
        content_type="application/json",
    )


# -- protection -------------------------------------------------------------------------


def test_the_printed_address_opens_a_session_and_drops_the_token_from_the_url(app) -> None:
    response = call(app, f"/?token={TOKEN}", cookie="")
    headers = dict(response.headers)
    assert response.status == 303
    assert headers["Location"] == "/"
    assert headers["Set-Cookie"] == f"{COOKIE}; Path=/; HttpOnly; SameSite=Strict"


def test_a_wrong_token_opens_nothing(app) -> None:
    response = call(app, "/?token=guess", cookie="")
    assert response.status == 403
    assert b"mediashortcodes pick" in response.body


def test_a_token_or_cookie_outside_ascii_is_a_403_not_a_crash(app) -> None:
    assert call(app, "/?token=%C3%A9t%C3%A9", cookie="").status == 403
    assert (
        call(app, "/api/folders", cookie=f"mediashortcodes_picker_{PORT}=\u00e9t\u00e9").status
        == 403
    )


@pytest.mark.parametrize("target", ["/", "/api/folders", "/static/picker.js"])
def test_without_the_session_cookie_nothing_is_served(app, target: str) -> None:
    assert call(app, target, cookie="").status == 403
    assert call(app, target, cookie=f"mediashortcodes_picker_{PORT}=other").status == 403


@pytest.mark.parametrize(
    "others",
    ['theme="dark; x', "broken\\=\x7f; a b=c", 'json={"a": [1, 2]}', "=novalue; flag"],
)
def test_another_local_apps_malformed_cookie_does_not_lock_the_picker_out(app, others) -> None:
    # Cookies for 127.0.0.1 are shared across ports: other apps' cookies arrive too.
    for cookie in (f"{others}; {COOKIE}", f"{COOKIE}; {others}"):
        assert call(app, "/api/folders", cookie=cookie).status == 200, cookie
    assert call(app, "/api/folders", cookie=others).status == 403


def test_a_foreign_host_header_is_refused_against_dns_rebinding(app) -> None:
    assert call(app, "/api/folders", host="evil.example:8765").status == 421
    assert call(app, "/api/folders", host=f"localhost:{PORT}").status == 200


def test_requests_from_other_sites_are_refused(app) -> None:
    assert call(app, "/api/folders", sec_fetch_site="cross-site").status == 403
    assert call(app, "/api/folders", sec_fetch_site="same-site").status == 403
    assert call(app, "/api/folders", origin="http://127.0.0.1:9999").status == 403
    assert call(app, "/api/folders", sec_fetch_site="same-origin").status == 200


def test_the_page_is_served_in_the_chosen_locale_with_a_strict_policy(service) -> None:
    response = call(make_app(service, "sv_SE"), "/")
    assert response.status == 200
    assert b'<html lang="sv-SE">' in response.body
    assert b"<title>Mediav\xc3\xa4ljare</title>" in response.body
    assert "script-src 'self'" in dict(response.headers)["Content-Security-Policy"]
    assert data(call(make_app(service, "fi_FI"), "/api/session"))["messages"]["copy"] == "Kopioi"


# -- endpoints --------------------------------------------------------------------------


def test_folders_come_as_a_tree(app) -> None:
    tree = data(call(app, "/api/folders"))
    assert [(n["name"], [c["name"] for c in n["children"]]) for n in tree] == [
        ("Images", ["Staff"]),
        ("Videos", []),
    ]


def test_file_listings_carry_no_service_address(app) -> None:
    response = call(app, "/api/files?folder=1")
    files = data(response)
    assert [(f["id"], f["kind"], f["alttext"]) for f in files] == [
        (10, "image", "A tall tree"),
        (11, "image", ""),
    ]
    assert b"example.com" not in response.body
    assert b"sig=" not in response.body


def test_search_finds_videos_and_images(app) -> None:
    assert [f["id"] for f in data(call(app, "/api/search?q=intro"))] == [20]
    assert call(app, "/api/search?q=%20").status == 400


def test_bad_folder_ids_are_named(app) -> None:
    response = call(app, "/api/files?folder=abc")
    assert response.status == 400
    assert "folder must be a numeric id" in data(response)["error"]
    assert call(app, "/api/files?folder=77").status == 404


def test_a_preview_is_proxied_with_its_real_type(app, service) -> None:
    call(app, "/api/files?folder=1")
    response = call(app, "/api/preview/10/thumb")
    assert response.status == 200
    assert response.content_type == "image/jpeg"
    assert response.body == service.preview
    assert service.requests[-1].url.path == "/preview/10/thumb.jpg"
    assert "Authorization" not in service.requests[-1].headers


def test_only_previews_of_listed_files_are_fetched(app) -> None:
    response = call(app, "/api/preview/10/thumb")
    assert response.status == 404
    assert "open its folder or search" in data(response)["error"]
    assert call(app, "/api/preview/10/huge").status == 404


def test_a_preview_that_is_not_an_image_is_not_passed_on(app, service) -> None:
    service.preview = b"<html>login</html>"
    call(app, "/api/files?folder=1")
    assert call(app, "/api/preview/10/small").status == 502


def test_the_shortcode_endpoint_builds_the_shortcode_language(app) -> None:
    call(app, "/api/files?folder=1")
    call(app, "/api/files?folder=3")
    assert data(shortcode(app, {"file": 10, "format": "5", "alt": "A tall tree"})) == {
        "shortcode": "<% media_image 10 thumb %>"
    }
    crop = {"w": 800, "h": 200, "sw": 400, "sh": 300, "x1": 0, "x2": 400, "y1": 50, "y2": 150}
    assert data(shortcode(app, {"file": 10, "format": "custom", "crop": crop, "alt": ""})) == {
        "shortcode": "<% media_image 10 w=800 h=200 sw=400 sh=300 x1=0 x2=400 y1=50 y2=150 "
        'alt="" %>'
    }
    assert data(shortcode(app, {"file": 20, "embed": "iframe"})) == {
        "shortcode": "<% media_video 20 embed=iframe %>"
    }


@pytest.mark.parametrize(
    ("body", "content_type", "message"),
    [
        (b"{", "application/json", "not valid JSON"),
        (b"[]", "application/json", "JSON object"),
        (b'{"file": 10}', "text/plain", "application/json"),
        (b'{"file": "10"}', "application/json", "file must be a file id"),
    ],
)
def test_a_bad_shortcode_request_is_explained(app, body, content_type, message) -> None:
    call(app, "/api/files?folder=1")
    response = call(app, "/api/shortcode", method="POST", body=body, content_type=content_type)
    assert response.status == 400
    assert message in data(response)["error"]


def test_the_embed_preview_is_a_page_of_the_rendered_embed(app) -> None:
    call(app, "/api/files?folder=3")
    response = call(app, "/api/embed?file=20&embed=script")
    assert response.status == 200
    assert response.content_type.startswith("text/html")
    assert b"<% media_video 20 embed=script %>" in response.body
    assert call(app, "/api/embed?file=20&embed=flash").status == 400
    call(app, "/api/files?folder=1")
    assert call(app, "/api/embed?file=10").status == 400


def test_unknown_paths_and_methods(app) -> None:
    assert call(app, "/api/nothing").status == 404
    assert call(app, "/static/../app.py").status == 404
    assert call(app, "/api/folders", method="DELETE").status == 405


# -- the guard --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "secret", [CREDENTIALS.client_secret, CREDENTIALS.refresh_token, ACCESS_TOKEN]
)
def test_a_response_that_would_carry_a_secret_is_withheld(service, secret: str) -> None:
    service.files[1] = [file_json(10, "Tree", alttext=f"oops {secret}")]
    app = make_app(service)
    response = call(app, "/api/files?folder=1")
    assert response.status == 500
    assert "withheld" in data(response)["error"]
    assert secret.encode() not in response.body


def test_a_service_failure_reaches_the_page_without_secrets(service) -> None:
    service.folders = "not a list"  # type: ignore[assignment]
    response = call(make_app(service), "/api/folders")
    assert response.status == 502
    assert "service" in data(response)["error"]


def test_a_video_that_cannot_be_embedded_says_why(service) -> None:
    def refuse(text: str, file: File) -> str:
        raise EmbedError("file 20 is a video without a usable mediaId")

    client = service.client()
    app = PickerApp(
        PickerBackend(client, embed_renderer=refuse),
        token=TOKEN,
        port=PORT,
        guard=SecretGuard(client_secrets(client)),
    )
    call(app, "/api/files?folder=3")
    response = call(app, "/api/embed?file=20")
    assert response.status == 422
    assert "without a usable mediaId" in data(response)["error"]


def test_the_guard_looks_for_the_secrets_not_the_client_id_nor_short_values(caplog) -> None:
    credentials = Credentials("mediashortcodes", "wrong", "r" * MIN_SECRET_LENGTH)
    client = FakeService().client(credentials)
    client._tokens_seen.add(ACCESS_TOKEN)
    with client:
        source = client_secrets(client)
        assert sorted(source()) == sorted(["wrong", "r" * MIN_SECRET_LENGTH, ACCESS_TOKEN])
        guard = SecretGuard(source)
        # "wrong" is a word of the page and too short to tell from it; the id is no secret.
        assert not guard.leaks(b"Something went wrong", b"mediashortcodes_picker_8765=x")
        assert guard.leaks(b"x" + ("r" * MIN_SECRET_LENGTH).encode())
        assert guard.leaks(ACCESS_TOKEN.encode())
        assert not guard.leaks(("r" * (MIN_SECRET_LENGTH - 1)).encode())
        warn_about_short_secrets(source())
    assert "1 credential(s) shorter than 16 characters" in caplog.text
    assert "wrong" not in caplog.text


def test_a_client_id_that_is_also_a_secret_stays_guarded() -> None:
    value = "same-value-for-both-of-them"
    client = FakeService().client(Credentials(value, value, "refresh-token-value"))
    with client:
        assert SecretGuard(client_secrets(client)).leaks(value.encode())


def test_the_json_form_carries_what_the_page_draws() -> None:
    node = folder_tree([Folder(1, "Old", archived=True), Folder(2, "Sub", parent=1, depth=1)])[0]
    assert folder_json(node) == {
        "id": 1,
        "name": "Old",
        "archived": True,
        "separator": False,
        "children": [
            {"id": 2, "name": "Sub", "archived": False, "separator": False, "children": []},
        ],
    }
