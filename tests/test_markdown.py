"""The markdown-it-py plugin: rendering, real positions, env records, and no change to
Markdown that holds no shortcode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.utils import read_fixture_file

from mediashortcodes.errors import Problem
from mediashortcodes.markdown import shortcodes_plugin
from mediashortcodes.shortcodes import Location, Shortcode, is_opening

FIXTURES = Path(__file__).parent / "fixtures"
CASES = read_fixture_file(FIXTURES / "markdown_shortcodes.md")
SPEC = json.loads((FIXTURES / "commonmark_spec_0.30.json").read_text(encoding="utf-8"))


class FakeRenderer:
    """Records every call; images become <img data-id>, videos <iframe data-id>."""

    def __init__(self) -> None:
        self.rendered: list[Shortcode] = []
        self.problems: list[Problem] = []

    def render(self, shortcode: Shortcode) -> str:
        self.rendered.append(shortcode)
        tag = "img" if shortcode.is_image else "iframe"
        return f'<{tag} data-id="{shortcode.file_id}">'

    def problem(self, problem: Problem) -> str:
        self.problems.append(problem)
        return "<mark>problem</mark>"


def markdown(renderer: FakeRenderer | None = None, preset: str = "commonmark") -> MarkdownIt:
    md = MarkdownIt(preset)
    if preset == "commonmark":
        md.enable(["table", "strikethrough"])
    return md.use(shortcodes_plugin, renderer=renderer)


def plain(preset: str = "commonmark") -> MarkdownIt:
    md = MarkdownIt(preset)
    return md.enable(["table", "strikethrough"]) if preset == "commonmark" else md


def records(env: dict) -> list[str]:
    data = env["mediashortcodes"]
    lines = [
        f"@ {s.location.line}:{s.location.col} {s.name} {s.file_id}" for s in data["shortcodes"]
    ]
    return lines + [f"! {p.line}:{p.col}: {p.message}" for p in data["problems"]]


@pytest.mark.parametrize(
    ("line", "title", "text", "expected"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES]
)
def test_fixture_cases_render_and_record_as_written_in_the_fixture_file(
    line, title, text, expected
):
    env = {"mediashortcodes": {"path": "page.md"}}
    html = markdown(FakeRenderer()).render(text, env)
    assert html + "".join(r + "\n" for r in records(env)) == expected


def test_no_option_is_required_and_without_a_renderer_shortcodes_show_as_their_text():
    env: dict = {}
    text = "See <% media_image 12 thumb %>.\n\n<% media_video 3 %>\n"
    html = MarkdownIt("commonmark").use(shortcodes_plugin).render(text, env)
    assert html == plain().render(text)
    assert [s.file_id for s in env["mediashortcodes"]["shortcodes"]] == [12, 3]
    assert env["mediashortcodes"]["problems"] == []


def test_without_a_renderer_problems_are_still_recorded():
    env: dict = {}
    html = markdown().render("A <% media_image nope %>", env)
    assert html == "<p>A &lt;% media_image nope %&gt;</p>\n"
    assert [p.message for p in env["mediashortcodes"]["problems"]] == [
        "file ID must be a whole number, got 'nope'"
    ]


def test_the_renderer_gets_each_shortcode_in_document_order_with_its_location():
    renderer = FakeRenderer()
    env = {"mediashortcodes": {"path": "content/post.md", "start_line": 4}}
    markdown(renderer).render("# <% media_image 1 %>\n\ntext <% media_video 2 lang=en %>\n", env)
    assert renderer.rendered == env["mediashortcodes"]["shortcodes"]
    assert [(s.file_id, s.location) for s in renderer.rendered] == [
        (1, Location("content/post.md", 4, 3)),
        (2, Location("content/post.md", 6, 6)),
    ]
    assert renderer.rendered[1].option("lang") == "en"


def test_start_line_counts_the_front_matter_the_builder_stripped():
    env = {"mediashortcodes": {"path": "p.md", "start_line": 5}}
    markdown().render("\n\n  <% media_image 1 %>", env)
    assert env["mediashortcodes"]["shortcodes"][0].location == Location("p.md", 7, 3)


def test_a_renderer_in_env_overrides_the_plugins():
    default, per_page = FakeRenderer(), FakeRenderer()
    env = {"mediashortcodes": {"renderer": per_page}}
    markdown(default).render("<% media_image 1 %>", env)
    assert default.rendered == []
    assert [s.file_id for s in per_page.rendered] == [1]


def test_the_records_are_per_document_not_accumulated():
    md = markdown()
    env: dict = {}
    md.render("<% media_image 1 %>", env)
    md.render("<% media_image 2 %> <% media_image x %>", env)
    assert [s.file_id for s in env["mediashortcodes"]["shortcodes"]] == [2]
    assert len(env["mediashortcodes"]["problems"]) == 1


def test_a_block_shortcode_in_a_tight_list_item_renders_inside_the_item():
    html = markdown(FakeRenderer()).render("- <% media_image 1 %>\n- two\n")
    assert html == '<ul>\n<li><img data-id="1"></li>\n<li>two</li>\n</ul>\n'


def test_tokens_carry_the_parsed_shortcode_for_other_tools():
    tokens = markdown().parse("x <% media_image 9 %>")
    (child,) = [c for c in tokens[1].children or [] if c.type == "media_shortcode"]
    assert child.meta["found"].shortcode.file_id == 9


# -- Markdown without shortcodes renders exactly as before --------------------------------------

PRESETS = ["commonmark", "default"]


@pytest.mark.parametrize("with_renderer", [False, True])
@pytest.mark.parametrize("preset", PRESETS)
def test_every_commonmark_spec_example_renders_identically_with_the_plugin(preset, with_renderer):
    md = markdown(FakeRenderer() if with_renderer else None, preset)
    reference = plain(preset)
    different = [
        case["example"]
        for case in SPEC
        if md.render(case["markdown"]) != reference.render(case["markdown"])
    ]
    assert len(SPEC) == 652
    assert different == []


MARKDOWN_ALPHABET = st.sampled_from(
    [
        *"abc xyz\n\t*_`#>-+|[]()!<>%&;:\\/=\"'~.1",
        "<%=",
        "<%-",
        "%>",
        "```",
        "    ",
        "- ",
        "> ",
        "1. ",
        "<div>",
        "</div>",
        "<!--",
        "-->",
        "|---|",
        "&lt;",
        "**",
        "[a]: /u",
        "<http://x.y>",
        "\n\n",
    ]
)
MARKDOWN = (
    st.lists(MARKDOWN_ALPHABET, max_size=60)
    .map("".join)
    .filter(lambda t: not any(is_opening(t, i, escapable=False) for i in range(len(t))))
)


@settings(max_examples=300, deadline=None)
@given(MARKDOWN, st.sampled_from(PRESETS), st.booleans())
def test_markdown_without_shortcodes_renders_identically_with_and_without_the_plugin(
    text, preset, with_renderer
):
    renderer = FakeRenderer() if with_renderer else None
    assert markdown(renderer, preset).render(text) == plain(preset).render(text)
    assert renderer is None or renderer.rendered == renderer.problems == []


LINES = st.sampled_from(
    [
        "",
        "",
        "text",
        "<% media_image 1 %>",
        "  <% media_video 2 %>  ",
        '<% media_image 3 thumb alt="a b" %>',
        "<% media_image 4 %> <% media_image 5 %>",
        "<% media_image x %>",
        "<% media_image 6",
        "%>",
        "\\<% media_image 7 %>",
        "    <% media_image 8 %>",
        "- item",
        "> quote",
        "# heading",
        "---",
        "===",
        "| a |",
        "| - |",
        "```",
        "<div>",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(LINES, max_size=12).map("\n".join), st.booleans())
def test_the_lone_shortcode_block_rule_changes_neither_output_nor_records(text, with_renderer):
    def run(fast: bool) -> tuple[str, list[str], list[Shortcode]]:
        renderer = FakeRenderer() if with_renderer else None
        md = markdown(renderer)
        if not fast:
            md.block.ruler.disable("media_shortcode_block")
        env = {"mediashortcodes": {"path": "page.md", "start_line": 3}}
        html = md.render(text, env)
        return html, records(env), renderer.rendered if renderer else []

    assert run(fast=True) == run(fast=False)


def test_a_lone_shortcode_is_one_block_token_carrying_the_parsed_shortcode():
    tokens = markdown().parse("Intro.\n\n<% media_image 9 %>\n")
    assert [t.type for t in tokens][-1] == "media_shortcode_block"
    assert tokens[-1].meta["shortcode"].file_id == 9


def test_public_names_are_exported():
    from mediashortcodes import markdown

    assert markdown.__all__
    for name in markdown.__all__:
        assert hasattr(markdown, name)
