"""The public API: every name in __all__ exists, and the documented imports work."""

from __future__ import annotations

import importlib

import mediashortcodes

PUBLIC_MODULES = [
    "language",
    "markdown",
    "jinja",
    "media.render",
    "media.imageinfo",
    "usage.manifest",
    "client.async_client",
    "client.sync_client",
]
# The import paths the README and docs promise users; they outlive any reorganisation.
DOCUMENTED_PATHS = [
    ("mediashortcodes.markdown", "shortcodes_plugin"),
    ("mediashortcodes.jinja", "MediaShortcodesExtension"),
    ("mediashortcodes.cli", "main"),
]


def test_every_public_name_resolves() -> None:
    for name in mediashortcodes.__all__:
        assert getattr(mediashortcodes, name) is not None, name


def test_public_modules_export_what_they_declare() -> None:
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(f"mediashortcodes.{module_name}")
        for name in getattr(module, "__all__", ()):
            assert hasattr(module, name), f"{module_name}.{name}"


def test_the_contracts_python_api_imports_and_parses_without_network() -> None:
    from markdown_it import MarkdownIt

    from mediashortcodes.jinja import MediaShortcodesExtension
    from mediashortcodes.markdown import shortcodes_plugin

    md = MarkdownIt("commonmark").use(shortcodes_plugin)
    env: dict = {}
    md.render("A picture: <% media_image 12 thumb %>\n", env)
    assert [s.file_id for s in env["mediashortcodes"]["shortcodes"]] == [12]
    assert MediaShortcodesExtension.__name__ == "MediaShortcodesExtension"


def test_unknown_attribute_is_an_attribute_error() -> None:
    try:
        mediashortcodes.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("expected AttributeError")


def test_every_documented_public_path_imports() -> None:
    for module_name, name in DOCUMENTED_PATHS:
        module = importlib.import_module(module_name)
        assert callable(getattr(module, name)), f"{module_name}.{name}"
