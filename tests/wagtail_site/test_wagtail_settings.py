"""How the app reads MEDIASHORTCODES and wires Django's Jinja2 engines."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.template import engines
from django.test.utils import override_settings

from mediashortcodes.errors import ConfigError
from mediashortcodes.wagtail.rendering import current_renderer, rendering_with
from mediashortcodes.wagtail.settings import read_settings


def test_the_tomls_keys_as_a_dict_are_the_config() -> None:
    value = {"site": {"base_url": "https://www.example.org/docs", "media_dir": "assets"}}
    with override_settings(MEDIASHORTCODES=value):
        settings = read_settings()
    assert settings.config.site.media_dir == "assets"
    assert settings.base_url_set
    assert settings.page_url("http://localhost", "/a/b/") == "https://www.example.org/docs/a/b/"


def test_without_base_url_pages_keep_wagtails_own_url() -> None:
    with override_settings(MEDIASHORTCODES={"images": {"gdpr": "fail"}}):
        settings = read_settings()
    assert not settings.base_url_set
    assert settings.page_url("http://localhost:8000", "/a/") == "http://localhost:8000/a/"


def test_config_names_the_toml_file_and_relative_paths_follow_it(tmp_path: Path) -> None:
    toml = tmp_path / "mediashortcodes.toml"
    toml.write_text('[site]\nbase_url = "https://example.net"\ntemplates = "t"\n')
    with override_settings(MEDIASHORTCODES={"config": toml}):
        settings = read_settings()
    assert settings.base_url_set
    assert settings.config.path(settings.config.site.templates) == tmp_path / "t"


def test_a_toml_without_base_url_leaves_it_unset(tmp_path: Path) -> None:
    (tmp_path / "mediashortcodes.toml").write_text('[video]\nembed = "script"\n')
    with override_settings(MEDIASHORTCODES={"config": str(tmp_path)}):
        settings = read_settings()
    assert settings.config.video.embed == "script"
    assert not settings.base_url_set


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("mediashortcodes.toml", "must be a dict"),
        ({"config": "/nowhere/mediashortcodes.toml"}, "does not exist; create it"),
        ({"config": "x.toml", "site": {}}, "not both"),
        ({"config": 12}, "must be the path"),
        ({"sites": {}}, "unknown section [sites]"),
        ({"video": {"embed": "flash"}}, "embed must be one of iframe, script"),
    ],
)
def test_bad_settings_say_what_to_fix(value: object, message: str) -> None:
    with override_settings(MEDIASHORTCODES=value), pytest.raises(ConfigError) as raised:
        read_settings()
    assert message in str(raised.value)


def test_live_rendering_needs_media_root() -> None:
    with (
        override_settings(MEDIA_ROOT=""),
        pytest.raises(ConfigError, match="MEDIA_ROOT is not set"),
    ):
        read_settings().live_publication()


def test_live_images_go_under_media_root_and_are_served_from_media_url() -> None:
    with override_settings(MEDIA_ROOT="/srv/media", MEDIA_URL="https://cdn.example.org/m/"):
        publication = read_settings().live_publication()
    assert publication.directory == Path("/srv/media/media")
    assert publication.url_prefix == "https://cdn.example.org/m/media/"


def test_the_jinja2_engine_needs_only_the_extension() -> None:
    env = engines["jinja2"].env
    assert env.mediashortcodes_renderer_factory is current_renderer


def test_engines_rebuilt_after_a_settings_change_are_wired_too() -> None:
    before = engines["jinja2"]
    with override_settings(DEBUG=True):
        rebuilt = engines["jinja2"]
        assert rebuilt is not before
        assert rebuilt.env.mediashortcodes_renderer_factory is current_renderer


def test_a_renderer_bound_for_a_render_wins_and_is_unbound_after() -> None:
    class Recording:
        def render(self, shortcode: object) -> str:
            return "[bound]"

        def problem(self, problem: object) -> str:
            return ""

    template = engines["jinja2"].from_string("<% media_image 5 %>")
    with rendering_with(Recording()):
        assert template.render() == "[bound]"
    assert current_renderer() is not None and not isinstance(current_renderer(), Recording)


def test_the_bakery_view_is_found_by_the_name_in_bakery_views() -> None:
    from django.urls import get_callable

    from mediashortcodes import wagtail
    from mediashortcodes.wagtail.export import BakeryPagesView

    assert get_callable("mediashortcodes.wagtail.BakeryPagesView") is BakeryPagesView
    assert wagtail.__all__ == ["BakeryPagesView"]
