"""Hugo, Eleventy and Jekyll, run as subprocesses: each builds a small site with shortcodes in
Markdown and in its layout, then `mediashortcodes finish`, then `report`, against the sandbox.

Locally a generator that is not installed is skipped (saying how to install it); CI sets
MEDIASHORTCODES_REQUIRE_GENERATORS=1 (.ci/run), and there a missing one fails.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .sites import broken_media, requests, run, service_options, tree, write_files

pytestmark = pytest.mark.slow

ELEVENTY = Path.home() / ".cache/mediashortcodes-ci/eleventy/node_modules/.bin/eleventy"
INSTALL = {
    "hugo": "apt-get install hugo",
    "jekyll": "apt-get install jekyll",
    "eleventy": f"npm install --prefix {ELEVENTY.parents[2]} @11ty/eleventy@3 "
    "(or set MEDIASHORTCODES_ELEVENTY to its bin/eleventy)",
}

POST = """\
---
title: First post
{layout}
---

<% media_image 101 %>

Text with <% media_image 102 alt="A -- meadow... at dawn" caption='Dawn' %> inside.

<% media_video 201 title="Don't -- go" %>

`<% media_image 999 %>` is how a shortcode is written.
"""
HOME = "---\ntitle: Home\n{layout}\n---\n\nWelcome <% media_image 104 %> home.\n"
PLAIN = "---\ntitle: Plain\n{layout}\n---\n\nNo shortcodes here.\n"
BROKEN = "---\ntitle: Broken\n{layout}\n---\n\nText.\n\n<% media_image 99999 %>\n"
LAYOUT = """\
<!DOCTYPE html>
<html><head><title>{title}</title>
<meta name="mediashortcodes-source" content="{source}"></head>
<body><header><% media_image 103 alt="Logo" %></header>
<main>{content}</main></body></html>
"""


@dataclass(frozen=True)
class Generator:
    name: str
    output: str
    pages: dict[str, str]  # source -> built file, for the pages above
    files: dict[str, str]  # its config and layouts

    def command(self) -> list[str]:
        if self.name == "eleventy":
            found = os.environ.get("MEDIASHORTCODES_ELEVENTY") or str(ELEVENTY)
            return [found, "--quiet"] if Path(found).is_file() else []
        found = shutil.which(self.name)
        return [found, "build"] if found and self.name == "jekyll" else [found] if found else []


def _site(layout: str, title: str, source: str, content: str) -> str:
    return LAYOUT.format(title=title, source=source, content=content)


GENERATORS = {
    "hugo": Generator(
        "hugo",
        "public",
        {
            "content/_index.md": "index.html",
            "content/posts/first.md": "posts/first/index.html",
            "content/plain.md": "plain/index.html",
        },
        {
            "hugo.toml": 'baseURL = "https://hugo.example.org/"\ntitle = "Hugo"\n'
            'disableKinds = ["taxonomy", "term", "sitemap"]\n',
            **{
                name: _site(
                    "", "{{ .Title }}", "{{ with .File }}{{ .Path }}{{ end }}", "{{ .Content }}"
                )
                for name in (
                    "layouts/index.html",
                    "layouts/_default/single.html",
                    "layouts/_default/list.html",
                )
            },
        },
    ),
    "eleventy": Generator(
        "eleventy",
        "_site",
        {
            "index.md": "index.html",
            "posts/first.md": "posts/first/index.html",
            "plain.md": "plain/index.html",
        },
        {
            "_includes/base.njk": _site(
                "", "{{ title }}", "{{ page.inputPath }}", "{{ content | safe }}"
            )
        },
    ),
    "jekyll": Generator(
        "jekyll",
        "_site",
        {"index.md": "index.html", "posts/first.md": "posts/first.html", "plain.md": "plain.html"},
        {
            "_config.yml": "title: Jekyll\nexclude: [mediashortcodes.toml]\n",
            "_layouts/default.html": _site(
                "", "{{ page.title }}", "{{ page.path }}", "{{ content }}"
            ),
        },
    ),
}
LAYOUT_LINE = {"hugo": "", "eleventy": "layout: base.njk", "jekyll": "layout: default"}


def generator_or_skip(name: str) -> Generator:
    generator = GENERATORS[name]
    if not generator.command():
        why = f"{name} is not installed ({INSTALL[name]})"
        if os.environ.get("MEDIASHORTCODES_REQUIRE_GENERATORS") == "1":
            pytest.fail(f"{why}; CI requires every generator (MEDIASHORTCODES_REQUIRE_GENERATORS)")
        pytest.skip(why)
    return generator


def make_site(root: Path, generator: Generator, sandbox: Any, pages: dict[str, str]) -> Path:
    layout = LAYOUT_LINE[generator.name]
    write_files(root, generator.files)
    write_files(root, {source: text.format(layout=layout) for source, text in pages.items()})
    service = "\n".join(f'{k} = "{v}"' for k, v in service_options(sandbox).items())
    write_files(
        root,
        {
            "mediashortcodes.toml": f'[service]\n{service}\n\n[site]\nbase_url = "https://'
            f'{generator.name}.example.org/"\n\n[usage]\ncontact = "web@example.org"\n'
            'project = "Generators"\n'
        },
    )
    return root


def generate(root: Path, generator: Generator, env: dict[str, str]) -> None:
    done = subprocess.run(
        generator.command(), cwd=root, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr


def sources(generator: Generator, extra: dict[str, str] | None = None) -> dict[str, str]:
    texts = [HOME, POST, PLAIN, *(extra or {}).values()]
    names = [*generator.pages, *(extra or {})]
    return dict(zip(names, texts, strict=True))


@dataclass
class Built:
    generator: Generator
    root: Path
    output: Path
    env: dict[str, str]  # its own cache: the first finish is a cold one
    cold: subprocess.CompletedProcess[str]
    cold_requests: int
    cold_tree: dict[str, bytes]
    warm: subprocess.CompletedProcess[str]
    warm_requests: int
    warm_tree: dict[str, bytes]


@pytest.fixture(scope="module", params=sorted(GENERATORS))
def built(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    host_env: dict[str, str],
    sandbox_server: Any,
) -> Built:
    """The site built and finished twice: cold, then regenerated and finished warm."""
    generator = generator_or_skip(request.param)
    root = make_site(
        tmp_path_factory.mktemp(generator.name), generator, sandbox_server, sources(generator)
    )
    output = root / generator.output
    env = {**host_env, "MEDIASHORTCODES_CACHE_DIR": str(root.with_name(root.name + "-cache"))}
    results = []
    for _ in range(2):
        generate(root, generator, env)
        sandbox_server.reset_stats()
        done = run(["mediashortcodes", "finish", "."], root, env)
        assert done.returncode == 0, done.stdout + done.stderr
        results += [done, requests(sandbox_server), tree(output)]
    return Built(generator, root, output, env, *results)


def page(built: Built, source: str) -> str:
    return (built.output / built.generator.pages[source]).read_text(encoding="utf-8")


def post_source(built: Built) -> str:
    return next(s for s in built.generator.pages if s.endswith("first.md"))


def test_the_pages_show_the_media_and_keep_what_is_code(built: Built) -> None:
    html = page(built, post_source(built))
    assert "media_image" not in html.replace("&lt;% media_image 999 %&gt;", "")
    assert re.search(r"<code[^>]*>&lt;% media_image 999 %&gt;</code>", html)
    assert 'alt="Logo"' in html  # the layout's shortcode
    assert 'alt="A -- meadow... at dawn"' in html  # the typographer's dashes read back
    assert "<figcaption>Dawn</figcaption>" in html and "<iframe" in html
    assert re.search(r'title="Don(?:.|&#39;|&#x27;)t -- go"', html)
    # A block shortcode never stays inside a paragraph: the HTML stays valid.
    assert not re.search(r"<p>\s*<(?:figure|div)", html)
    assert "<p>Text with </p><figure>" in html
    home = page(built, next(iter(built.generator.pages)))
    assert "Welcome <img" in home and " home." in home
    assert broken_media(built.output) == []
    if built.generator.name == "hugo":  # feeds are left as the generator wrote them
        assert "media_image 101" in (built.output / "index.xml").read_text()
    assert sorted(p.name.split("-")[-3] for p in (built.output / "media").iterdir()) == [
        "101",
        "102",
        "103",
        "104",
    ]


def test_the_manifest_lists_each_page_by_its_address(built: Built) -> None:
    manifest = json.loads((built.output / "media-usage.json").read_text())
    base = f"https://{built.generator.name}.example.org/"
    pages = manifest["pages"]
    post = built.generator.pages[post_source(built)].removesuffix("index.html")
    plain = built.generator.pages[next(s for s in built.generator.pages if "plain" in s)]
    assert pages[base]["files"] == [103, 104]
    assert pages[base + post]["files"] == [101, 102, 103, 201]
    assert pages[base + plain.removesuffix("index.html")]["files"] == [103]
    assert pages[base + post]["title"] == "First post"


def test_a_warm_finish_of_regenerated_pages_sends_nothing_and_a_second_changes_nothing(
    built: Built, host_env: dict[str, str], sandbox_server: Any
) -> None:
    assert built.cold_requests > 0
    assert built.warm_requests == 0 and "0 requests" in built.warm.stderr
    assert built.warm_tree == built.cold_tree
    sandbox_server.reset_stats()
    again = run(["mediashortcodes", "finish", "."], built.root, host_env)
    assert again.returncode == 0 and "already finished" in again.stderr
    assert requests(sandbox_server) == 0
    assert tree(built.output) == built.warm_tree


def test_report_from_the_site_folder(
    built: Built, host_env: dict[str, str], sandbox_server: Any
) -> None:
    done = run(["mediashortcodes", "report", "."], built.root, host_env)
    assert done.returncode == 0, done.stdout + done.stderr
    base = f"https://{built.generator.name}.example.org/"
    reported = {
        u["web"]["page"] for u in sandbox_server.usages if u["web"]["page"].startswith(base)
    }
    post = built.generator.pages[post_source(built)].removesuffix("index.html")
    assert {base, base + post} <= reported
    again = run(
        ["mediashortcodes", "report", ".", "--output", built.generator.output], built.root, host_env
    )
    assert again.returncode == 0 and "0 pages reported" in again.stdout


def test_problems_name_the_built_file_its_line_and_the_source(
    built: Built, tmp_path: Path, host_env: dict[str, str], sandbox_server: Any
) -> None:
    generator = built.generator
    broken = "content/broken.md" if generator.name == "hugo" else "broken.md"
    root = make_site(tmp_path, generator, sandbox_server, sources(generator, {broken: BROKEN}))
    generate(root, generator, host_env)
    before = tree(root / generator.output)
    failed = run(["mediashortcodes", "finish", "."], root, host_env)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    built_file = {
        "hugo": "broken/index.html",
        "eleventy": "broken/index.html",
        "jekyll": "broken.html",
    }
    shown = f"{generator.output}/{built_file[generator.name]}"
    line = re.search(
        rf"^{re.escape(shown)}:(\d+):\d+: .*99999.*\(source: (.*)\)$", failed.stderr, re.M
    )
    assert line is not None, failed.stderr
    assert line.group(2).endswith("broken.md")
    assert tree(root / generator.output) == before  # nothing written


def test_pages_an_earlier_build_left_behind_are_not_listed(
    built: Built, tmp_path: Path, host_env: dict[str, str], sandbox_server: Any
) -> None:
    generator = built.generator
    root = make_site(tmp_path, generator, sandbox_server, sources(generator))
    generate(root, generator, host_env)
    assert run(["mediashortcodes", "finish", "."], root, host_env).returncode == 0
    manifest = root / generator.output / "media-usage.json"
    before = set(json.loads(manifest.read_text())["pages"])
    plain = next(s for s in generator.pages if "plain" in s)
    (root / plain).unlink()
    generate(root, generator, host_env)
    left = (root / generator.output / generator.pages[plain]).is_file()  # Jekyll cleans
    done = run(["mediashortcodes", "finish", "."], root, host_env)
    assert done.returncode == 0, done.stderr
    assert ("an earlier build's leftovers" in done.stderr) == left
    after = set(json.loads(manifest.read_text())["pages"])
    gone = generator.pages[plain].removesuffix("index.html")
    assert after == before - {f"https://{generator.name}.example.org/{gone}"} != before
