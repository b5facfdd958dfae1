"""Any sequence of edits: a build with the page memo writes, byte for byte, what a build
that renders every page writes (or stops with the same error). Hypothesis drives the edits:
page bodies, front matter, pages added and removed, layouts and partials, the
configuration, the service's records and static files."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from mediashortcodes import config as config_mod
from mediashortcodes.errors import MediaShortcodesError
from mediashortcodes.site.builder import BuildOptions, build_site

from .conftest import small_site
from .test_memo import tree

PAGES = ["index.md", "a.md", "blog/b.md", "blog/c.md"]
BODIES = [
    "Plain text.\n",
    "An image: <% media_image 101 %>\n",
    '<% media_image 102 small alt="Two" %>\n\n# Heading <% media_image 101 caption="Cap" %>\n',
    "Twice <% media_image 103 %> and <% media_image 103 %>.\n",
    "A broken one: <% media_image %>\n",
]
FRONT_MATTER = [
    "",
    "title: First\n",
    "title: Second\nsubtitle: More\n",
    "title: First\ndraft: true\n",
]
LAYOUTS = [
    '{% extends "base.html" %}{% block main %}<h1>{{ page.title }}</h1>{{ page.content }}'
    "{% endblock %}",
    '{% extends "base.html" %}{% block main %}<h2>{{ page.subtitle }}</h2>{{ page.content }}'
    '<% media_image 104 alt="" %>{% endblock %}',
    "{{ page.content }}{{ page.titel }}",
]
PARTIALS = [
    '{% for p in site.pages %}<a href="{{ p.url }}">{{ p.title }}</a>{% endfor %}',
    "{{ site.pages | length }} pages at {{ site.base_url }}",
]
BASE = '<html>{% block main %}{% endblock %}{% include "partials/nav.html" %}</html>\n'
CONFIGS = ["https://www.example.org", "https://example.net/sub/"]
ALT_TEXTS = ["", "A lake at dawn", "Ett annat namn"]
STYLES = ["body { color: red }", "body { color: blue }"]


class Edits(RuleBasedStateMachine):
    site: Path
    server: Any
    records: list[Any]  # the library's, as the sandbox starts
    built = 0  # builds that wrote a site (not stopped by a problem)

    def __init__(self) -> None:
        super().__init__()
        self.site = Edits.site
        shutil.rmtree(self.site / "content", ignore_errors=True)
        for record in self.records:
            self.server.library.update(record.id, alttext=record.alttext, name=record.name)
        self.write("content/index.md", "---\ntitle: Home\n---\n" + BODIES[1])
        self.write("templates/page.html", LAYOUTS[0])
        self.write("templates/base.html", BASE)
        self.write("templates/partials/nav.html", PARTIALS[0])
        self.write("static/style.css", STYLES[0])
        self.configure(CONFIGS[0])

    def write(self, name: str, text: str) -> None:
        path = self.site / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def configure(self, base_url: str) -> None:
        config = self.site / "mediashortcodes.toml"
        service = config.read_text().split("[site]")[0]
        config.write_text(f'{service}[site]\nbase_url = "{base_url}"\n[cache]\nmetadata_ttl = 0\n')

    def pages(self) -> list[str]:
        return sorted(
            p.relative_to(self.site / "content").as_posix() for p in self.site.rglob("*.md")
        )

    @rule(
        page=st.sampled_from(PAGES),
        front=st.sampled_from(FRONT_MATTER),
        body=st.sampled_from(BODIES),
    )
    def write_page(self, page: str, front: str, body: str) -> None:
        self.write(f"content/{page}", f"---\n{front}---\n{body}" if front else body)

    @rule(page=st.sampled_from(PAGES))
    def remove_page(self, page: str) -> None:
        (self.site / "content" / page).unlink(missing_ok=True)

    @rule(layout=st.sampled_from(LAYOUTS))
    def edit_layout(self, layout: str) -> None:
        self.write("templates/page.html", layout)

    @rule(partial=st.sampled_from(PARTIALS))
    def edit_partial(self, partial: str) -> None:
        self.write("templates/partials/nav.html", partial)

    @rule(base_url=st.sampled_from(CONFIGS))
    def edit_config(self, base_url: str) -> None:
        self.configure(base_url)

    @rule(file_id=st.sampled_from([101, 102, 104]), alt=st.sampled_from(ALT_TEXTS))
    def edit_record(self, file_id: int, alt: str) -> None:
        self.server.library.update(file_id, alttext=alt, name=f"{alt or 'untitled'} {file_id}")

    @rule(style=st.sampled_from(STYLES))
    def edit_static(self, style: str) -> None:
        self.write("static/style.css", style)

    @invariant()
    def memo_builds_what_rendering_builds(self) -> None:
        memo = self.build(BuildOptions(output=self.site.parent / "memo"))
        every = self.build(BuildOptions(output=self.site.parent / "every", memo=False))
        assert memo == every

    def build(self, options: BuildOptions) -> dict[str, bytes] | str:
        try:
            build_site(config_mod.load(self.site), options)
        except MediaShortcodesError as exc:
            return f"{type(exc).__name__}: {exc}"
        assert options.output is not None
        Edits.built += 1
        return tree(options.output)


@pytest.fixture
def own_sandbox():  # its own: the test changes the library's records
    from mediashortcodes.sandbox import Sandbox

    with Sandbox() as server:
        yield server


def test_any_edits_build_the_same_site_with_and_without_the_memo(
    tmp_path, env, own_sandbox
) -> None:
    Edits.site = small_site(tmp_path / "site", own_sandbox, {}, player=False)
    Edits.server = own_sandbox
    Edits.records = [own_sandbox.library.file(i) for i in (101, 102, 104)]
    run_state_machine_as_test(
        Edits, settings=settings(max_examples=8, stateful_step_count=8, deadline=None)
    )
    assert Edits.built > 20, "most builds write a site: the comparison is not of two errors"
