"""Shortcodes in HTML: found in text only, raw or HTML-escaped, at their real positions."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from mediashortcodes.language.htmltext import escaped_openings, find_in_html, splice, text_ranges


def texts(html: str) -> list[str]:
    return [html[a:b] for a, b in text_ranges(html)]


def test_text_ranges_skip_tags_comments_declarations_and_code_elements():
    html = (
        '<!DOCTYPE html><p class="a>b">one<!-- two --></p>three'
        "<pre>four</pre><CODE>five</code><script>six</script><br/>seven<?pi x?>"
    )
    assert texts(html) == ["one", "three", "seven"]


def test_a_raw_shortcode_is_text_even_when_a_value_looks_like_a_tag():
    assert texts('<p><% media_image 1 alt="<b>" %></p>') == ['<% media_image 1 alt="<b>" %>']


def test_a_lone_angle_bracket_is_text():
    assert texts("a < b <3") == ["a < b <3"]


def test_escaped_shortcodes_are_found_with_offsets_into_the_html():
    html = "<p>x &lt;% media_image 12 alt=&quot;A&amp;B&quot; %&gt; y</p>"
    (found,) = find_in_html(html, "body")
    assert html[found.start : found.end] == "&lt;% media_image 12 alt=&quot;A&amp;B&quot; %&gt;"
    assert found.shortcode is not None
    assert found.shortcode.option("alt") == "A&B"
    assert (found.shortcode.location.line, found.shortcode.location.col) == (1, 6)


def test_raw_only_mode_ignores_the_escaped_form():
    assert list(find_in_html("&lt;% media_image 1 %&gt;", "b", escaped=False)) == []
    assert len(list(find_in_html("<% media_image 1 %>", "b", escaped=False))) == 1


def test_problem_columns_count_the_entities_as_written():
    (found,) = find_in_html("\n&lt;% media_image 1 alt=&quot;x&quot; bad=1 %&gt;", "b")
    assert [(p.line, p.col) for p in found.problems] == [(2, 39)]


def test_escaped_openings_are_found_in_text_only():
    html = r"\<% a %> <code>\<% b %></code> \&lt;% c"
    assert escaped_openings(html) == [0, 31]


# What the generators' typographers write (Hugo's Goldmark, Jekyll's kramdown, markdown-it
# with typographer on), each built from: alt="A -- meadow... it's x" caption='Dawn'
TYPOGRAPHERS = {
    "goldmark": "&lt;% media_image 102 alt=&ldquo;A &ndash; meadow&hellip; it&rsquo;s x&rdquo; "
    "caption=&lsquo;Dawn&rsquo; %&gt;",
    "kramdown": "&lt;% media_image 102 alt=\u201dA \u2013 meadow\u2026 it\u2019s x\u201d "
    "caption=\u2019Dawn\u2019 %&gt;",
    "numeric": "&lt;% media_image 102 alt=&#8220;A &#8211; meadow&#8230; it&#8217;s x&#8221; "
    "caption=&#x2018;Dawn&#x2019; %&gt;",
}


def test_typographic_quotes_dashes_and_ellipses_read_as_the_author_wrote_them():
    for name, text in TYPOGRAPHERS.items():
        html = f"<p>Text {text} inside.</p>"
        (found,) = find_in_html(html, "page.html", typographic=True)
        assert found.shortcode is not None, (name, found.problems)
        assert found.shortcode.option("alt") == "A -- meadow... it\u2019s x", name
        assert found.shortcode.option("caption") == "Dawn", name
        assert html[found.start : found.end] == text, name


def test_typographic_characters_outside_shortcodes_stay():
    html = "<p>\u201cQuoted\u201d \u2013 text\u2026</p>"
    assert list(find_in_html(html, "page.html", typographic=True)) == []
    assert texts(html) == ["\u201cQuoted\u201d \u2013 text\u2026"]


def test_a_shortcode_in_the_title_is_not_text():
    html = "<title>A &lt;% media_image 9 %&gt;</title><p>&lt;% media_image 1 %&gt;</p>"
    assert [f.shortcode.file_id for f in find_in_html(html, "p") if f.shortcode] == [1]


def test_splice_replaces_ranges_in_order():
    assert splice("abcdef", [(0, 1, "X"), (3, 5, "")]) == "Xbcf"


HTML = st.lists(
    st.sampled_from(
        [
            "<",
            ">",
            "<%",
            "%>",
            "&lt;",
            "&gt;",
            "&quot;",
            "&",
            "<p>",
            "</p>",
            "<pre>",
            "<!--",
            "-->",
            '"',
            " ",
            "\n",
            "media_image",
            "1",
            "alt=",
            "<a href='",
            "\\",
        ]
    ),
    max_size=40,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(HTML)
def test_finding_never_crashes_and_found_ranges_are_ordered_and_inside_the_html(html):
    ranges = list(text_ranges(html))
    assert all(0 <= a < b <= len(html) for a, b in ranges)
    assert all(b1 <= a2 for (_, b1), (a2, _) in pairwise(ranges))
    previous_end = 0
    for found in find_in_html(html, "h"):
        assert previous_end <= found.start < found.end <= len(html)
        previous_end = found.end
        assert all(p.line >= 1 and p.col >= 1 for p in found.problems)


def test_public_names_are_exported():
    from mediashortcodes.language import htmltext

    assert htmltext.__all__
    for name in htmltext.__all__:
        assert hasattr(htmltext, name)
