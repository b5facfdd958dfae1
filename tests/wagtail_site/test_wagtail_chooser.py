"""The editors' chooser in the Wagtail admin, through Django's test client against the
sandbox: browsing, search, the kind filter, paging, previews, choosing, the errors an
editor sees, who may use it, and that no credential or signed link reaches the browser."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.test import Client
from django.urls import reverse

from mediashortcodes.wagtail import chooser

from .mediasite.models import ArticlePage

CHOOSE = "mediashortcodes_chooser:choose"


@pytest.fixture
def admin() -> Client:
    user = User.objects.create_superuser("editor", "editor@example.org", "pw")
    client = Client()
    client.force_login(user)
    return client


def names(html: str) -> set[str]:
    """The file names a listing shows."""
    parts = html.split('class="mediashortcodes-chooser__name">')[1:]
    return {part.split("</span>")[0] for part in parts}


def modal(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == "application/json"
    return json.loads(response.content)


def choose(client: Client, **params: Any) -> dict[str, Any]:
    return modal(client.get(reverse(CHOOSE), params))


def test_the_chooser_lists_the_folder_tree_and_a_folders_files_with_previews(
    admin: Client,
) -> None:
    first = choose(admin)
    assert first["step"] == "choose"
    for name in ("Nature", "Forests", "Coast", "Videos"):
        assert f">{name}</a>" in first["html"]
    assert "Restricted" not in first["html"]  # the integration cannot see it
    nature = choose(admin, folder=1)
    assert "Mountain lake at dawn" in nature["html"]
    assert "Pine forest" not in nature["html"]  # in a subfolder
    preview = reverse("mediashortcodes_chooser:preview", args=[101, "thumb"])
    assert preview in nature["html"]
    image = admin.get(preview)
    assert image.status_code == 200
    assert image["Content-Type"] in ("image/jpeg", "image/png")
    assert len(image.content) > 100


def test_search_and_the_kind_filter(admin: Client) -> None:
    found = choose(admin, q="lake")["html"]
    assert "Search results for “lake”" in found
    assert "Mountain lake at dawn" in found
    videos = choose(admin, folder=7, kind="video")["html"]
    images = choose(admin, folder=7, kind="image")["html"]
    assert "Welcome to the park" in videos
    assert "Welcome to the park" not in images
    locked = choose(admin, folder=7, accept="image", kind="video")["html"]
    assert "Welcome to the park" not in locked  # the field's kind wins over the filter
    assert "this field takes images" in locked
    bad = choose(admin, kind="audio")["html"]
    assert "kind must be image or video, got &#x27;audio&#x27;" in bad


def test_a_large_folder_is_paged_on_the_server(
    admin: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chooser, "PER_PAGE", 2)
    first = choose(admin, folder=2)["html"]
    assert "Page 1 of " in first
    second = choose(admin, folder=2, p=2)["html"]
    assert "Page 2 of " in second
    assert len(names(first)) == 2
    assert len(names(second)) >= 1
    assert not names(first) & names(second)


def test_choosing_a_file_answers_the_chosen_step(admin: Client) -> None:
    choose(admin, folder=1)
    result = modal(admin.get(reverse("mediashortcodes_chooser:chosen", args=[101])))
    assert result["step"] == "chosen"
    assert result["result"]["id"] == 101
    assert result["result"]["title"] == "Mountain lake at dawn"
    assert result["result"]["kind"] == "image"
    assert result["result"]["preview"].startswith("/admin/mediashortcodes/chooser/101/")


def test_a_saved_pages_blocks_open_in_the_editor_with_their_files(
    admin: Client, pages: dict[str, Any]
) -> None:
    # The block's chooser starts from the file's data, not the bare id (which broke the
    # StreamField in the editor: publishing then dropped the page's body).
    choose(admin, folder=7, kind="video")  # the editor chose it: its record is cached
    page = ArticlePage(title="Walk", slug="walk", body=[("video", {"file": 201})])
    pages["home"].add_child(instance=page)
    html = admin.get(f"/admin/pages/{page.id}/edit/").content.decode()
    assert '"id": 201, "title": "Welcome to the park"' in html.replace("&quot;", '"')


def test_bad_choices_get_clear_errors(admin: Client, sandbox: Any) -> None:
    hidden = modal(admin.get(reverse("mediashortcodes_chooser:chosen", args=[301])))
    assert hidden["step"] == "choose"
    assert "file 301 is not visible to this site&#x27;s integration" in hidden["html"]
    video = modal(
        admin.get(reverse("mediashortcodes_chooser:chosen", args=[201]), {"accept": "image"})
    )
    assert video["step"] == "choose"
    assert "is a video; this field takes an image. Choose an image." in video["html"]
    sandbox.fail(503)
    down = choose(admin, q="a search never made before")["html"]
    assert "The media service cannot be reached just now" in down


def test_only_admin_users_may_use_it_and_it_changes_nothing(pages: dict[str, Any]) -> None:
    url = reverse(CHOOSE)
    anonymous = Client().get(url)
    assert anonymous.status_code == 302 and "/admin/login/" in anonymous["Location"]
    visitor = User.objects.create_user("visitor", password="pw")
    client = Client()
    client.force_login(visitor)
    refused = client.get(url)
    assert refused.status_code in (302, 403)
    assert b"Nature" not in refused.content
    editors = Group.objects.create(name="Editors of the test")
    editors.permissions.add(Permission.objects.get(codename="access_admin"))
    visitor.groups.add(editors)
    assert client.get(url).status_code == 200
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(visitor)
    assert csrf_client.post(url, {"q": "lake"}).status_code == 403  # no CSRF token
    assert client.post(url, {"q": "lake"}).status_code == 405  # GET only


def test_no_admin_response_carries_a_credential_or_a_signed_link(
    admin: Client, pages: dict[str, Any], sandbox: Any
) -> None:
    article = pages["home"].add_child(instance=ArticlePage(title="Scan", slug="scan", hero=101))
    responses = [
        admin.get(reverse(CHOOSE)),
        admin.get(reverse(CHOOSE), {"folder": 2}),
        admin.get(reverse(CHOOSE), {"folder": 7, "kind": "video"}),
        admin.get(reverse(CHOOSE), {"q": "lake", "accept": "image"}),
        admin.get(reverse("mediashortcodes_chooser:chosen", args=[101])),
        admin.get(reverse("mediashortcodes_chooser:chosen", args=[201])),
        admin.get(reverse("mediashortcodes_chooser:preview", args=[101, "thumb"])),
        admin.get(reverse("mediashortcodes_chooser:preview", args=[201, "small"])),
        admin.get(reverse("wagtailadmin_pages:edit", args=[article.id])),
        admin.get(
            reverse("wagtailadmin_pages:add", args=["mediasite", "articlepage", pages["home"].id])
        ),
    ]
    env = sandbox.env()
    secrets = {
        env["MEDIASHORTCODES_CLIENT_SECRET"],
        env["MEDIASHORTCODES_REFRESH_TOKEN"],
        *sandbox.issued_tokens(),
    }
    assert len(secrets) >= 3, "the flow has fetched an access token by now"
    signed = sandbox.media_url.split("://")[1]  # every download link's host and port
    for response in responses:
        assert response.status_code == 200, response
        wire = str(response.headers).encode() + response.content
        for secret in secrets:
            assert secret.encode() not in wire
        assert signed.encode() not in wire
    edit = responses[-2].content.decode()
    assert "MediaShortcodesFileChooser" in edit  # the hero field is the chooser widget
    assert "mediashortcodes/chooser/draftail.js" in edit  # the rich-text button is there
