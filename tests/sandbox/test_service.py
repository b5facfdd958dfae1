"""The API host over real sockets: the spec's endpoints, as an integration sees them."""

from __future__ import annotations

import io

import httpx
import pytest
from PIL import Image

from mediashortcodes.records import FILE_FIELDS
from mediashortcodes.sandbox import DEMO_CLIENT_SECRET, HIDDEN_FOLDER_ID
from mediashortcodes.sandbox.imaging import encode

from .conftest import download_info, token_params


def decode(data: bytes) -> tuple[tuple[int, int], str]:
    with Image.open(io.BytesIO(data)) as image:
        return image.size, image.format


# Token


def test_the_demo_credentials_get_a_bearer_token(sb, api):
    body = api.get("/1/oauth2/token", params=token_params(sb)).json()
    assert body["token_type"] == "Bearer" and body["expires_in"] == 7200
    assert body["access_token"]


@pytest.mark.parametrize("field", ["client_id", "client_secret", "refresh_token"])
def test_a_wrong_credential_gets_401_without_echoing_it(sb, api, field):
    response = api.get("/1/oauth2/token", params=token_params(sb, **{field: "wrong-s3cret"}))
    assert response.status_code == 401
    assert response.json()["error"] == "invalid_client"
    assert "wrong-s3cret" not in response.text and DEMO_CLIENT_SECRET not in response.text


def test_a_token_request_missing_a_parameter_gets_400_naming_it(sb, api):
    params = token_params(sb)
    del params["refresh_token"]
    response = api.get("/1/oauth2/token", params=params)
    assert response.status_code == 400 and "refresh_token" in response.json()["message"]


def test_another_grant_type_gets_400(sb, api):
    response = api.get("/1/oauth2/token", params=token_params(sb, grant_type="password"))
    assert response.status_code == 400 and response.json()["error"] == "unsupported_grant_type"


def test_expires_in_follows_the_token_lifetime_knob(sb, api):
    sb.token_lifetime = 60
    assert api.get("/1/oauth2/token", params=token_params(sb)).json()["expires_in"] == 60


# Bearer tokens


@pytest.mark.parametrize("header", [None, "Bearer", "Basic abc", "Bearer not-a-token"])
def test_calls_without_a_valid_bearer_token_get_401(api, header):
    headers = {"Authorization": header} if header else {}
    response = api.get("/1/format", headers=headers)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_an_expired_token_gets_401(sb, api, clock):
    sb.token_lifetime = 10
    token = api.get("/1/oauth2/token", params=token_params(sb)).json()["access_token"]
    headers = {"Authorization": f"Bearer {token}"}
    assert api.get("/1/format", headers=headers).status_code == 200
    clock.advance(10)
    response = api.get("/1/format", headers=headers)
    assert response.status_code == 401 and "expired" in response.json()["message"]


def test_revoked_tokens_get_401(sb, api, auth):
    sb.revoke_tokens()
    assert api.get("/1/format", headers=auth).status_code == 401


# Folders and files


def test_foldertree_lists_visible_folders_flat_with_parent_and_depth(api, auth):
    folders = api.get("/1/foldertree", params={"fields": "all"}, headers=auth).json()
    assert HIDDEN_FOLDER_ID not in [f["id"] for f in folders]
    forests = next(f for f in folders if f["name"] == "Forests")
    assert forests == {
        "id": 2, "name": "Forests", "type": 0, "depth": 1, "archived": False,
        "parent": 1, "hasChildren": True, "separator": False,
    }  # fmt: skip


def test_folder_files_come_in_camel_case_with_every_documented_field(api, auth):
    params = {"fields": FILE_FIELDS, "type": "any", "processed": "true"}
    files = api.get("/1/folder/4/files", params=params, headers=auth).json()
    assert [f["id"] for f in files] == [109, 110, 111]
    lighthouse = files[0]
    assert set(lighthouse) == {
        "id", "name", "filename", "filesize", "type", "smallPreview", "thumbPreview", "mark",
        "uploaded", "uploadedBy", "gdprStatus", "gdprType", "mediaId", "alttext",
    }  # fmt: skip
    assert lighthouse["type"] == {
        "id": 1,
        "type": "image",
        "description": "JPEG image",
        "extension": "jpg",
    }
    assert lighthouse["mediaId"] is None and lighthouse["filename"] == "lighthouse.jpg"


def test_filesize_is_the_byte_size_of_the_original(sb, api, auth):
    (record,) = [f for f in api.get("/1/folder/4/files", headers=auth).json() if f["id"] == 111]
    assert record["filesize"] == len(sb.library.original(111))


def test_folder_files_are_restricted_to_the_requested_fields(api, auth):
    files = api.get("/1/folder/7/files", params={"fields": "name,mediaid"}, headers=auth).json()
    assert files[0] == {"id": 201, "name": "Welcome to the park", "mediaId": "Xk7Pq2Lm"}


def test_folder_files_can_be_limited_to_videos(api, auth):
    params = {"type": "video", "fields": "id"}
    assert api.get("/1/folder/2/files", params=params, headers=auth).json() == [{"id": 205}]


def test_the_hidden_folder_is_not_found(api, auth):
    response = api.get(f"/1/folder/{HIDDEN_FOLDER_ID}/files", headers=auth)
    assert response.status_code == 404


def test_a_folder_id_that_is_not_a_number_gets_400(api, auth):
    response = api.get("/1/folder/abc/files", headers=auth)
    assert response.status_code == 400 and "folder id" in response.json()["message"]


def test_search_finds_images_and_videos_by_text(api, auth):
    found = api.get("/1/search/file", params={"query": "CITY", "fields": "id"}, headers=auth)
    assert [f["id"] for f in found.json()] == [112, 204]


def test_search_never_returns_hidden_files(api, auth):
    found = api.get("/1/search/file", params={"query": "board meeting"}, headers=auth).json()
    assert found == []


def test_formats_are_listed(api, auth):
    names = [f["name"] for f in api.get("/1/format", headers=auth).json()]
    assert names == ["thumb", "small", "medium", "large", "square"]


# Download information and downloads


def test_download_info_has_every_documented_field(api, auth):
    info = download_info(api, auth, 101, 0)
    assert set(info) == {
        "id", "format", "watermark", "isPreview", "filetype", "expiresIn", "downloadURL",
        "downloadWarning",
    }  # fmt: skip
    assert (info["id"], info["format"], info["filetype"], info["expiresIn"]) == (
        0, "original", "jpg", 300,
    )  # fmt: skip


def test_the_download_link_is_on_the_media_host(sb, api, auth):
    url = download_info(api, auth, 101, 0)["downloadURL"]
    assert url.startswith(f"{sb.download_url}/dn/") and url.endswith("/original")


def test_downloading_the_original_gives_its_exact_bytes_and_type(sb, api, auth):
    response = httpx.get(download_info(api, auth, 105, 0)["downloadURL"])
    assert response.content == sb.library.original(105)
    assert response.headers["content-type"] == "image/png"
    assert int(response.headers["content-length"]) == len(response.content)


@pytest.mark.parametrize(
    ("file_id", "fmt", "size"),
    [(101, 3, (1024, 683)), (103, 1, (133, 200)), (112, 5, (600, 600)), (105, 4, (640, 640))],
)
def test_predefined_formats_really_resize(api, auth, file_id, fmt, size):
    response = httpx.get(download_info(api, auth, file_id, fmt)["downloadURL"])
    assert decode(response.content)[0] == size


def test_a_resized_png_stays_a_png(api, auth):
    response = httpx.get(download_info(api, auth, 114, 2)["downloadURL"])
    assert decode(response.content) == ((480, 480), "PNG")


def test_a_custom_crop_scales_coordinates_from_the_surface(sb, api, auth):
    halves = Image.new("RGB", (400, 200), (255, 0, 0))
    halves.paste((0, 0, 255), (200, 0, 400, 200))
    file = sb.library.add_image(1, "Halves", data=encode(halves, "png"), filename="halves.png")
    # the right half of a 100x50 surface is the right half of the real 400x200 image
    info = download_info(api, auth, file.id, -1, w=100, h=100, sw=100, sh=50, x1=50, x2=100,
                         y1=0, y2=50)  # fmt: skip
    assert info["format"] == "custom" and info["id"] == -1
    url = httpx.URL(info["downloadURL"])
    assert url.path.endswith("/custom")
    assert {"w", "h", "x1", "x2", "y1", "y2", "t", "u", "cc", "ch", "sid"} <= set(url.params)
    with Image.open(io.BytesIO(httpx.get(url).content)) as image:
        assert image.size == (100, 100)
        assert image.convert("RGB").getpixel((50, 50)) == (0, 0, 255)


def test_a_custom_crop_with_stretch_is_exactly_w_by_h(api, auth):
    info = download_info(api, auth, 102, -1, w=300, h=100, x1=0, x2=600, y1=0, y2=600, stretch=1)
    assert decode(httpx.get(info["downloadURL"]).content)[0] == (300, 100)


def test_a_custom_crop_without_stretch_keeps_its_aspect_ratio(api, auth):
    info = download_info(api, auth, 102, -1, w=300, h=300, x1=0, x2=600, y1=0, y2=300)
    assert decode(httpx.get(info["downloadURL"]).content)[0] == (300, 150)


def test_a_custom_crop_missing_coordinates_gets_400(api, auth):
    response = api.get("/1/file/101/download/-1", params={"w": 10, "h": 10}, headers=auth)
    assert response.status_code == 400 and "x1, x2, y1, y2" in response.json()["message"]


def test_an_unknown_format_gets_400_listing_the_known_ones(api, auth):
    response = api.get("/1/file/101/download/42", headers=auth)
    assert response.status_code == 400 and "1, 2, 3, 4, 5" in response.json()["message"]


def test_a_video_cannot_be_downloaded(api, auth):
    response = api.get("/1/file/201/download/0", headers=auth)
    assert response.status_code == 400 and "mediaId" in response.json()["message"]


@pytest.mark.parametrize("file_id", [999, 301])
def test_unknown_and_hidden_files_are_not_found(api, auth, file_id):
    assert api.get(f"/1/file/{file_id}/download/0", headers=auth).status_code == 404


def test_a_link_stops_working_after_its_lifetime(sb, api, auth, clock):
    sb.link_lifetime = 30
    info = download_info(api, auth, 101, 1)
    assert info["expiresIn"] == 30
    assert httpx.get(info["downloadURL"]).status_code == 200
    clock.advance(31)
    response = httpx.get(info["downloadURL"])
    assert response.status_code == 410 and "expired" in response.json()["message"]


def test_an_edited_link_is_refused(api, auth):
    url = download_info(api, auth, 101, -1, w=10, h=10, x1=0, x2=10, y1=0, y2=10)["downloadURL"]
    assert httpx.get(url.replace("w=10", "w=1000")).status_code == 403
    assert httpx.get(url.replace("/dn/", "/dn/x")).status_code == 403


def test_a_changed_file_downloads_its_new_bytes(sb, api, auth):
    data = sb.library.original(106)
    sb.library.replace_data(101, data)
    response = httpx.get(download_info(api, auth, 101, 0)["downloadURL"])
    assert response.content == data


# Usage reports


def usage(page: str = "https://www.example.org/a/", **changes):
    body = {
        "id": [101, 201], "contact": "Web team", "date": "2024-05-01", "amount": "1",
        "description": "", "project": "Demo", "types": ["web"], "removed": "false",
        "web": {"page": page, "pageName": "A"},
    }  # fmt: skip
    body.update(changes)
    return body


def test_a_usage_report_is_stored_as_sent(sb, api, auth):
    response = api.post("/1/files/multiple/usages", json=usage(), headers=auth)
    assert response.status_code == 200 and response.json()["status"] == "ok"
    assert sb.usages == [usage()]


def test_removals_update_which_page_uses_which_files(sb, api, auth):
    api.post("/1/files/multiple/usages", json=usage(), headers=auth)
    api.post("/1/files/multiple/usages", json=usage(id=[201], removed="true"), headers=auth)
    assert sb.pages() == {"https://www.example.org/a/": [101]}


def test_an_invalid_usage_report_gets_400_and_is_not_stored(sb, api, auth):
    response = api.post("/1/files/multiple/usages", json=usage(web={}), headers=auth)
    assert response.status_code == 400 and "page" in response.json()["message"]
    assert sb.usages == []


def test_usage_reports_need_a_token(sb, api):
    assert api.post("/1/files/multiple/usages", json=usage()).status_code == 401
    assert sb.usages == []


# Routing


def test_an_unknown_path_gets_a_json_404(api, auth):
    response = api.get("/1/nothing", headers=auth)
    assert response.status_code == 404 and response.json()["error"] == "not_found"


def test_a_wrong_method_gets_405_with_allow(api, auth):
    response = api.post("/1/format", headers=auth)
    assert response.status_code == 405 and response.headers["Allow"] == "GET"


def test_formats_follow_the_real_bytes_when_a_record_was_changed_by_hand(sb, api, auth):
    sb.library.update(101, data=encode(Image.new("RGB", (300, 200)), "jpg"))
    response = httpx.get(download_info(api, auth, 101, 1)["downloadURL"])
    assert decode(response.content) == ((200, 133), "JPEG")
