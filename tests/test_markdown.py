"""The markdown-it-py plugin: rendering, real positions, env records, and no change to
Markdown that holds no shortcode."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.utils import read_fixture_file

from mediashortcodes.config import VideoConfig
from mediashortcodes.errors import Problem
from mediashortcodes.language import Location, Shortcode, is_opening
from mediashortcodes.markdown import shortcodes_plugin
from mediashortcodes.media.render import Renderer, ResolvedImage
from mediashortcodes.records import File

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
    assert tokens[-1].meta["found"].shortcode.file_id == 9


def test_public_names_are_exported():
    from mediashortcodes import markdown

    assert markdown.__all__
    for name in markdown.__all__:
        assert hasattr(markdown, name)


# -- block shortcodes (a figure, a video player) inside inline text ------------------------------

PLAYER = "https://player.example.com"


class BundledHtml:
    """What a reader's browser gets: the bundled templates' HTML (figures, iframe players)."""

    def __init__(self) -> None:
        self.html = Renderer(VideoConfig(), player_url=PLAYER, static_url=PLAYER)

    def render(self, shortcode: Shortcode) -> str:
        if shortcode.is_video:
            return self.html.video(shortcode, File(id=shortcode.file_id, media_id="m1"))
        resolved = ResolvedImage(File(id=shortcode.file_id), f"/m/{shortcode.file_id}.jpg", 4, 3)
        return self.html.image(shortcode, resolved)

    def problem(self, problem: Problem) -> str:
        return ""


def bundled(text: str) -> tuple[str, list[str]]:
    """The page's HTML and the warnings as the builder prints them."""
    env = {"mediashortcodes": {"path": "page.md"}}
    html = markdown(BundledHtml()).render(text, env)
    return html, [f"{w.path}:{w.line}:{w.col}: warning: {w.message}" for w in warnings(env)]


def warnings(env: dict) -> list[Problem]:
    return env["mediashortcodes"]["warnings"]


def alone(shortcode: str) -> str:
    """The HTML of a shortcode written on a line of its own."""
    return markdown(BundledHtml()).render(f"{shortcode}\n").removesuffix("\n")


FIGURE = '<% media_image 103 thumb caption="C" %>'
VIDEO = "<% media_video 201 %>"


class NestingChecker(HTMLParser):
    """Block elements (div, figure) opened where HTML allows only phrasing content."""

    PHRASING_ONLY = frozenset(
        {"p", "h1", "h2", "h3", "h4", "h5", "h6", "a", "em", "strong", "s", "span"}
    )
    VOID = frozenset({"img", "br", "hr", "input"})

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.bad: list[str] = []

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag in ("div", "figure") and self.PHRASING_ONLY.intersection(self.open):
            self.bad.append(f"<{tag}> in {self.open}")
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index(tag) :]


def invalid_nesting(html: str) -> list[str]:
    checker = NestingChecker()
    checker.feed(html)
    checker.close()
    return checker.bad


def test_a_figure_inside_paragraph_text_splits_the_paragraph_around_it():
    html, warned = bundled(f"Text {FIGURE} more\n")
    assert html == f"<p>Text</p>\n{alone(FIGURE)}\n<p>more</p>\n"
    assert warned == []


def test_a_video_on_its_own_line_inside_a_paragraph_splits_it_without_empty_paragraphs():
    html, warned = bundled(f"Intro:\n{VIDEO}\nMore text.  \n{VIDEO}\n")
    video = alone(VIDEO)
    assert html == f"<p>Intro:</p>\n{video}\n<p>More text.</p>\n{video}\n"
    assert warned == []
    assert invalid_nesting(html) == []


def test_a_split_keeps_inline_images_and_records_every_shortcode_at_its_place():
    env = {"mediashortcodes": {"path": "page.md", "start_line": 3}}
    html = markdown(BundledHtml()).render(f"> A <% media_image 1 %> b {VIDEO} c\n", env)
    img = alone("<% media_image 1 %>")
    assert html == f"<blockquote>\n<p>A {img} b</p>\n{alone(VIDEO)}\n<p>c</p>\n</blockquote>\n"
    assert records(env) == ["@ 3:5 media_image 1", "@ 3:27 media_video 201"]


def test_a_block_in_a_heading_warns_at_its_place_and_the_page_still_renders():
    html, warned = bundled(f"# Title {FIGURE}\n")
    assert html == f"<h1>Title {alone(FIGURE)}</h1>\n"
    assert warned == [
        "page.md:1:9: warning: an image with a caption is a block (<figure>) and cannot be "
        "inside a heading (invalid HTML: browsers break the page apart there); move the "
        "shortcode out of the heading, onto a line of its own, or drop caption= to get an "
        "inline <img>"
    ]


def test_a_video_in_link_text_warns():
    html, warned = bundled(f"Intro.\n\n[{VIDEO}](/x)\n")
    assert html == f'<p>Intro.</p>\n<p><a href="/x">{alone(VIDEO)}</a></p>\n'
    assert warned == [
        "page.md:3:2: warning: a video player is a block and cannot be inside a link "
        "(invalid HTML: browsers break the page apart there); move the shortcode out of the "
        "link, onto a line of its own"
    ]


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (f"*see {VIDEO}*", "emphasis"),
        (f"a **b {FIGURE}** c", "strong emphasis"),
        (f"~~{VIDEO}~~", "strikethrough"),
        (f'a <span class="x">{VIDEO}</span> b', "<span>"),
        (f"Setext {VIDEO}\n===", "a heading"),
        (f"- item *{VIDEO}*", "emphasis"),
        (f"| *{VIDEO}* |\n| - |", "emphasis"),
    ],
)
def test_a_block_inside_an_inline_element_warns_and_is_not_split(text, where):
    html, warned = bundled(text + "\n")
    assert len(warned) == 1 and f"cannot be inside {where} " in warned[0]
    assert "<p></p>" not in html and html.count("<p>") <= 1


@pytest.mark.parametrize(
    "text",
    [
        "Text <% media_image 103 thumb %> more",  # a plain <img> is inline
        'Text <% media_image 103 caption="" %> more',  # an empty caption makes no figure
        "# Title <% media_image 103 %>",
        "[<% media_image 103 %>](/x)",
        f"- item {VIDEO} more",  # a tight list item holds blocks
        f"| a {FIGURE} |\n| - |",  # so does a table cell
        f"{VIDEO}\n{FIGURE}",  # a gallery: blocks without <p>
        f"`{VIDEO}` and \\{VIDEO}",  # not shortcodes
        "Text <% media_video x %> more",  # malformed: a problem, not a block
    ],
)
def test_what_is_valid_html_is_neither_split_nor_warned(text):
    env = {"mediashortcodes": {"path": "page.md"}}
    with_renderer = markdown(BundledHtml()).render(text, env)
    assert warnings(env) == [] and invalid_nesting(with_renderer) == []
    assert with_renderer.count("<p>") == text.startswith(("Text", "[", "`"))


def test_without_a_renderer_the_split_paragraph_shows_the_shortcode_text_between():
    html = markdown().render(f"Text {VIDEO} more")
    assert html == "<p>Text</p>\n<p>&lt;% media_video 201 %&gt;</p>\n<p>more</p>\n"


BLOCK_LINES = st.sampled_from(
    [
        "",
        "text",
        f"Text {VIDEO} more",
        f"{FIGURE} after",
        f"before {FIGURE}",
        VIDEO,
        "<% media_image 1 %> inline",
        f"# Title {VIDEO}",
        f"[{FIGURE}](/x)",
        f"*a {VIDEO} b*",
        f"a <em>{VIDEO}</em> <br> b",
        f"- item {VIDEO}",
        "- item",
        f"> quote {FIGURE}",
        f"| {VIDEO} |",
        "| - |",
        "===",
        "---",
        "text  ",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(BLOCK_LINES, max_size=10).map("\n".join))
def test_invalid_html_is_never_published_without_a_warning(text):
    # Markdown's own HTML; raw HTML blocks are the author's HTML and are not checked.
    env = {"mediashortcodes": {"path": "page.md"}}
    html = markdown(BundledHtml()).render(text, env)
    assert bool(invalid_nesting(html)) == bool(warnings(env)), html
    assert "<p></p>" not in html


@pytest.mark.parametrize(
    "text", ["See [the photo](<% media_image 101 %>).", "![a photo](<%media_video 201%>)"]
)
def test_a_shortcode_as_a_link_or_image_destination_warns_at_its_place(text):
    _html, warned = bundled(f"Intro.\n\n{text}\n")
    assert warned == [
        f"page.md:3:{text.index('<%') + 1}: warning: a shortcode cannot be a link's or an "
        "image's destination (it becomes a broken URL); write the shortcode on its own, or link "
        "to a page that shows the file"
    ]


def test_an_ordinary_link_next_to_a_shortcode_does_not_warn():
    _html, warned = bundled("See [media_image docs](/media_image%20docs) <% media_image 101 %>.\n")
    assert warned == []


def test_two_shortcode_destinations_on_a_line_each_warn_at_their_own_place():
    text = "[x](<% media_image 105 %>) and [y](<% media_image 106 %>)"
    _html, warned = bundled(f"{text}\n")
    assert [w.split(": warning")[0] for w in warned] == [
        f"page.md:1:{text.index('<%') + 1}",
        f"page.md:1:{text.rindex('<%') + 1}",
    ]


def test_a_shortcode_as_a_reference_definitions_destination_warns_at_its_line():
    _html, warned = bundled("See [the photo][p].\n\n[p]: <% media_image 107 %>\n")
    assert warned == [
        "page.md:3:6: warning: a shortcode cannot be a link's or an image's destination (it "
        "becomes a broken URL); write the shortcode on its own, or link to a page that shows "
        "the file"
    ]
