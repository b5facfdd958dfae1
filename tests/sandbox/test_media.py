"""The media host: previews, the video player page and its script, CORS."""

from __future__ import annotations

import io

from PIL import Image


def test_a_file_record_names_previews_that_decode_within_their_box(api, auth, media):
    record = api.get("/1/folder/1/files", params={"fields": "id,smallpreview,thumbpreview"},
                     headers=auth).json()[0]  # fmt: skip
    for key, box in (("smallPreview", 400), ("thumbPreview", 150)):
        response = media.get(record[key])
        assert response.headers["content-type"] == "image/jpeg"
        with Image.open(io.BytesIO(response.content)) as image:
            assert max(image.size) == box


def test_a_video_has_a_preview_too(media):
    assert media.get("/pv/201/thumb.jpg").status_code == 200


def test_a_hidden_file_has_no_preview(media):
    assert media.get("/pv/301/small.jpg").status_code == 404


def test_the_player_page_shows_the_video_title_escaped(sb, media):
    sb.library.update(201, name='Park <tour> & "more"')
    response = media.get("/ovp/11/Xk7Pq2Lm", params={"lang": "sv"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    assert "Park &lt;tour&gt; &amp; &quot;more&quot;" in response.text
    assert "<tour>" not in response.text and "Spela upp" in response.text


def test_the_player_page_of_an_unknown_or_hidden_video_is_not_found(media):
    assert media.get("/ovp/11/NoSuchId").status_code == 404
    assert media.get("/ovp/11/Zz9Yy8Xx").status_code == 404


def test_the_player_script_defines_the_mfplayer_constructor(media):
    response = media.get("/js/mediaflowplayer.min.js")
    assert response.headers["content-type"].startswith("application/javascript")
    assert "window.MFPlayer = MFPlayer" in response.text
    assert "/ovp/11/" in response.text


def test_the_player_stylesheet_is_served(media):
    response = media.get("/css/mediaflowplayer.min.css")
    assert response.status_code == 200 and "56.25%" in response.text


def test_scripts_may_load_cross_origin_with_crossorigin_anonymous(media):
    response = media.get("/js/mediaflowplayer.min.js", headers={"Origin": "http://site.test"})
    assert response.headers["access-control-allow-origin"] == "*"


def test_an_unknown_static_file_is_not_found(media):
    assert media.get("/js/nothing.js").status_code == 404
