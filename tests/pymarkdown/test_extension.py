"""The Python-Markdown extension: where shortcodes expand, where they never do, where their
problems are, and that Markdown without shortcodes renders exactly as before."""

from __future__ import annotations

from pathlib import Path

import markdown
import pytest

from mediashortcodes.errors import Problem
from mediashortcodes.pymarkdown import MediaShortcodesExtension

CORPUS = Path(__file__).parent / "corpus"
# What a MkDocs + Material site typically enables.
MATERIAL = [
    "abbr",
    "admonition",
    "attr_list",
    "def_list",
    "footnotes",
    "md_in_html",
    "tables",
    "toc",
    "pymdownx.details",
    "pymdownx.highlight",
    "pymdownx.inlinehilite",
    "pymdownx.superfences",
    "pymdownx.tabbed",
]


class Tags:
    """A renderer whose HTML shows which shortcode went where."""

    def render(self, shortcode):  # type: ignore[no-untyped-def]
        if shortcode.is_video:
            return f'<div class="video">{shortcode.file_id}</div>'
        return f'<img src="/m/{shortcode.file_id}.jpg">'

    def problem(self, problem: Problem) -> str:
        return '<span class="problem"></span>'


def convert(
    text: str, extensions: list[str] | None = None, **options: object
) -> tuple[str, object]:
    md = markdown.Markdown(
        extensions=[MediaShortcodesExtension(**options), *(extensions or [])],
        extension_configs={"pymdownx.tabbed": {"alternate_style": True}},
    )
    return md.convert(text), md.mediashortcodes  # type: ignore[attr-defined]


def places(doc: object) -> list[tuple[int, str]]:
    return [(sc.file_id, str(sc.location)) for sc in doc.shortcodes]  # type: ignore[attr-defined]


PAGE = """\
# Title <% media_image 1 %>

Text <% media_image 2 alt="a *b* c" %> and `<% media_image 3 %>` here.

<% media_video 4 %>

    <% media_image 5 %>

```
<% media_image 6 %>
```

* item <% media_image 7 %>
* \\<% media_image 8 %>

> quote <% media_image 9
> alt="over two lines" %>

| a | b |
|---|---|
| <% media_image 10 %> | x |

!!! note "Note"
    Inside <% media_image 11 %> an admonition.

<% media_image 6 %>
"""


def test_expands_in_text_lists_tables_quotes_admonitions_and_headings_never_in_code() -> None:
    html, doc = convert(PAGE, MATERIAL, renderer=Tags(), path="docs/page.md")
    assert places(doc) == [
        (1, "docs/page.md:1:9"),
        (2, "docs/page.md:3:6"),
        (4, "docs/page.md:5:1"),
        (7, "docs/page.md:13:8"),
        (9, "docs/page.md:16:9"),
        (10, "docs/page.md:21:3"),
        (11, "docs/page.md:24:12"),
        # The same text as in the fenced block above: placed at its own line, not the block's.
        (6, "docs/page.md:26:1"),
    ]
    assert '<h1 id="title">Title <img src="/m/1.jpg"></h1>' in html
    assert '<p>Text <img src="/m/2.jpg"> and <code>&lt;% media_image 3 %&gt;</code>' in html
    assert '<li>item <img src="/m/7.jpg"></li>' in html
    assert "<li>&lt;% media_image 8 %&gt;</li>" in html  # \<% is the literal text
    assert '<p>quote <img src="/m/9.jpg"></p>' in html
    assert '<td><img src="/m/10.jpg"></td>' in html
    assert '<p>Inside <img src="/m/11.jpg"> an admonition.</p>' in html
    # Indented and fenced code (superfences) keep the text.
    assert html.count("media_image 5") == 1 and html.count("media_image 6") == 1
    assert "<pre" in html and "/m/5.jpg" not in html
    # A paragraph of shortcodes only is no paragraph: a player cannot be inside a <p>.
    assert '\n<div class="video">4</div>\n' in html and "<p><div" not in html
    assert '\n<img src="/m/6.jpg">' in html and not doc.problems


def test_fenced_code_without_superfences_keeps_its_text() -> None:
    html, doc = convert("```\n<% media_image 1 %>\n```\n", ["fenced_code"], renderer=Tags())
    assert "&lt;% media_image 1 %&gt;" in html and not doc.shortcodes


def test_the_heading_anchor_and_toc_ignore_the_shortcode() -> None:
    md = markdown.Markdown(extensions=[MediaShortcodesExtension(renderer=Tags()), "toc"])
    html = md.convert("## Harbour <% media_image 1 %>\n")
    assert html == '<h2 id="harbour">Harbour <img src="/m/1.jpg"></h2>'
    assert md.toc_tokens[0]["name"] == "Harbour"  # type: ignore[attr-defined]


def test_problems_are_placed_in_the_file_front_matter_counted() -> None:
    text = 'Intro\n\n> Quote <% media_image 1\n> alt="x" bad=2 %>\n\n<% media_vidoe 3 %>\n'
    html, doc = convert(text, renderer=Tags(), path="docs/a.md", start_line=5)
    assert [str(p).split(": ")[0] for p in doc.problems] == ["docs/a.md:8:11", "docs/a.md:10:4"]
    assert "unknown key 'bad'" in doc.problems[0].message
    assert "did you mean 'media_video'" in doc.problems[1].message
    assert html.count('class="problem"') == 2


def test_an_unterminated_shortcode_is_a_problem_at_its_place() -> None:
    _html, doc = convert("One\n\nTwo <% media_image 1\n\nThree\n", path="p.md")
    assert [str(p)[:8] for p in doc.problems] == ["p.md:3:5"]
    assert "unterminated" in doc.problems[0].message


def test_a_host_converting_many_files_names_each() -> None:
    extension = MediaShortcodesExtension(renderer=Tags())
    md = markdown.Markdown(extensions=[extension])
    for name, line in (("a.md", 1), ("b.md", 4)):
        extension.set_document(name, line)
        md.convert("<% media_image x %>\n")
        problems = md.mediashortcodes.problems  # type: ignore[attr-defined]
        assert [(p.path, p.line, p.col) for p in problems] == [(name, line, 16)]
        md.reset()


def test_without_a_renderer_shortcodes_show_as_text_and_are_recorded() -> None:
    html, doc = convert('Look: <% media_image 12 alt="A *b*" %>\n')
    assert html == '<p>Look: &lt;% media_image 12 alt="A *b*" %&gt;</p>'
    assert places(doc) == [(12, "<string>:1:7")]


def corpus_files() -> list[Path]:
    return sorted(
        p for p in CORPUS.rglob("*") if p.suffix in (".md", ".txt") and p.stem != "LICENSE"
    )


@pytest.mark.parametrize("extensions", [[], MATERIAL], ids=["plain", "material"])
def test_markdown_without_shortcodes_renders_exactly_as_before(extensions: list[str]) -> None:
    """Every Markdown file of the MkDocs documentation and Python-Markdown's test suite
    (tests/pymarkdown/corpus, with their licenses) renders byte for byte the same."""
    files = corpus_files()
    assert len(files) > 100
    differ = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        plain = markdown.Markdown(extensions=extensions).convert(text)
        with_it, doc = convert(text, extensions, renderer=Tags())
        if with_it != plain or doc.shortcodes or doc.problems:  # type: ignore[attr-defined]
            differ.append(str(path.relative_to(CORPUS)))
    assert differ == []
