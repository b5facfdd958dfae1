"""Case 3: hostile input from authors: page text, front matter and mediashortcodes.toml.

The parser and the Markdown plugin have their own property tests (tests/test_shortcodes.py,
tests/test_markdown.py); here the whole builder takes random pages, and broken settings
must end in exit 2 naming the file, broken front matter in exit 2 naming the page and
line, never a traceback.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mediashortcodes import config as config_mod
from mediashortcodes.errors import ConfigError, ContentError
from mediashortcodes.site.builder import BuildOptions, SiteBuilder

from .harness import EXAMPLE_SITE, snapshot


def assert_config_error(run: Any, *needles: str) -> None:
    assert run.exit_code == 2, str(run)
    assert run.stderr.startswith("error: ")
    assert "Traceback" not in run.output
    for needle in needles:
        assert needle in run.stderr, str(run)


SETTINGS: dict[str, tuple[dict[str, Any], str]] = {
    "an unknown section": ({"servce": {"timeout": 1}}, "unknown section [servce]"),
    "an unknown key": ({"images": {"max_byte": 10}}, "unknown key 'max_byte' in [images]"),
    "a wrong type": ({"service": {"timeout": "fast"}}, "[service] timeout must be a number"),
    "a bad choice": ({"video": {"embed": "flash"}}, "must be one of iframe, script"),
    "hosts that are not strings": (
        {"service": {"allowed_download_hosts": [1]}},
        "allowed_download_hosts must be a list of strings",
    ),
    "a size cap of zero": ({"images": {"max_bytes": 0}}, "max_bytes must be greater than 0"),
    "a negative timeout": ({"service": {"timeout": -1.0}}, "timeout must be greater than 0"),
    "a media_dir outside the output": (
        {"site": {"media_dir": "../../elsewhere"}},
        "media_dir must be a folder inside the output",
    ),
}


@pytest.mark.parametrize("case", SETTINGS)
@pytest.mark.parametrize("command", [("build",), ("check", "--offline"), ("report", "--dry-run")])
def test_a_wrong_setting_is_exit_2_naming_the_file_and_key(site, case, command):
    sections, message = SETTINGS[case]
    site.configure(**sections)
    assert_config_error(site.run(*command), "mediashortcodes.toml", message)
    assert not site.output.exists()


@pytest.mark.parametrize(
    ("output", "named"),
    [(".", "the site itself"), ("..", "the site itself"), ("content", "[site] content")],
)
def test_an_output_that_would_delete_the_site_is_exit_2_and_deletes_nothing(site, output, named):
    before = snapshot(site.scan_root)
    site.configure(site={"output": output})
    after_configure = snapshot(site.scan_root)
    assert_config_error(site.run("build"), named, "[site] output (or --output)")
    assert snapshot(site.scan_root) == after_configure
    assert before.keys() <= after_configure.keys()


def test_an_output_option_pointing_at_a_folder_no_build_wrote_is_refused(site, tmp_path):
    documents = tmp_path / "Documents"
    documents.mkdir()
    (documents / "thesis.odt").write_text("years of work")
    run = site.run("build", "--output", str(documents))
    assert_config_error(run, "not written by a build")
    assert (documents / "thesis.odt").read_text() == "years of work"


RAW_FILES: dict[str, tuple[bytes, str]] = {
    "invalid TOML": (b'[service\nbase_url = "x"\n', "invalid TOML"),
    "a value where a table belongs": (b"service = 3\n", "[service] must be a table"),
    "text that is not UTF-8": (b"\xff\xfe[service]\n", "not UTF-8"),
}


@pytest.mark.parametrize("case", RAW_FILES)
def test_a_config_file_that_cannot_be_read_is_exit_2_naming_the_file(site, case):
    data, message = RAW_FILES[case]
    (site.root / config_mod.CONFIG_NAME).write_bytes(data)
    assert_config_error(site.run("build"), "mediashortcodes.toml", message)


FRONT_MATTER: dict[str, tuple[bytes, str]] = {
    "invalid YAML": (b"---\ntitle: [unclosed\n---\nText\n", "content/bad.md:2:1: invalid YAML"),
    "a list, not a mapping": (b"---\n- a\n- b\n---\n", "content/bad.md:2:1: front matter must be"),
    "no closing line": (b"---\ntitle: Open\n\nText\n", "content/bad.md:1:1: front matter starts"),
    "a Python object tag": (
        b'---\ntitle: !!python/object/apply:os.system ["echo pwned"]\n---\n',
        "content/bad.md:2:1: invalid YAML front matter",
    ),
    "text that is not UTF-8": (b"---\ntitle: \xff\n---\n", "content/bad.md:1:1: not UTF-8"),
    "an impossible date": (b"---\ndate: 2024-13-45\n---\n", "content/bad.md:2:1: invalid value"),
}


@pytest.mark.parametrize("case", FRONT_MATTER)
def test_broken_front_matter_is_exit_2_naming_the_page_and_line(site, reference, case):
    data, message = FRONT_MATTER[case]
    site.run("build")
    previous = snapshot(site.output)
    (site.root / "content" / "bad.md").write_bytes(data)
    run = site.run("build")
    assert run.exit_code == 2, str(run)
    assert "Traceback" not in run.output
    assert message in run.stderr, str(run)
    assert snapshot(site.output) == previous


def test_a_template_path_out_of_the_templates_folder_is_not_read(site, tmp_path):
    secret = tmp_path / "secret.html"
    secret.write_text("TOP SECRET {{ page.title }}")
    page = f"---\ntemplate: ../../../{secret.name}\n---\nText\n"
    (site.root / "content" / "bad.md").write_text(page)
    run = site.run("build")
    assert run.exit_code == 1, str(run)
    assert "content/bad.md:2:1: template '../../../secret.html' not found" in run.stderr
    assert not site.output.exists()


# -- random pages through the whole builder --------------------------------------------------

FRONT = st.lists(
    st.sampled_from(
        [
            "title: T\n",
            "title: '<script>x</script>'\n",
            "template: article.html\n",
            "template: page.html\n",
            "hero: 101\n",
            "hero: abc\n",
            "hero: -1\n",
            "hero: [1, 2]\n",
            "hero: {a: 1}\n",
            "hero: 1e99\n",
            "date: 2024-13-45\n",
            "draft: false\n",
            "draft: yes\n",
            "{% raw %}\n",
            "{{ 7 }}: x\n",
        ]
    ),
    max_size=5,
).map(lambda lines: "---\n" + "".join(lines) + "---\n")
BODY = st.lists(
    st.sampled_from(
        [
            "<% media_image 101 %>",
            "<% media_image 101 thumb alt=",
            "<% media_video 201 embed=flash %>",
            "<% media_image 99999999999999999999 %>",
            '<% media_image 102 caption="a\n\nb" %>',
            "<% media_image 103 w=10 %>",
            "<%",
            "%>",
            "\\<%",
            "`<% media_image 1 %>`",
            "```\n<% media_image 1 %>\n```\n",
            "{{ page.title }}",
            "{% if %}",
            "<script>",
            "</div>",
            "\n",
            "\n\n",
            "- ",
            "> ",
            "    ",
            "\ue000",
            "\ue0000\ue001",
            "\x00",
            "é",
            "text ",
        ]
    )
    | st.text(max_size=5),
    max_size=30,
).map("".join)


@pytest.fixture(scope="module")
def fuzz_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example site's layouts with one page, checked for syntax only (no service)."""
    root = tmp_path_factory.mktemp("fuzz") / "site"
    (root / "content").mkdir(parents=True)
    for name in ("templates", "static"):
        shutil.copytree(EXAMPLE_SITE / name, root / name)
    (root / config_mod.CONFIG_NAME).write_text("[service]\nsandbox = true\n")
    return root


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(front=st.none() | FRONT, body=BODY)
def test_any_page_text_is_built_or_refused_with_positions_never_crashing(fuzz_site, front, body):
    text = (front or "") + body
    (fuzz_site / "content" / "page.md").write_text(text, encoding="utf-8")
    config = config_mod.load(fuzz_site)
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.chdir(fuzz_site)  # problems name paths as an author sees them from the site
            SiteBuilder(config, BuildOptions(check_only=True, syntax_only=True)).build()
    except ContentError as exc:
        assert exc.problems
        lines = len(re.split(r"\r\n|\r|\n", text))  # line ends as Python reads the file
        for problem in exc.problems:
            assert problem.message
            if problem.path == "content/page.md":
                assert 1 <= problem.line <= lines and problem.col >= 1, problem
            else:
                assert problem.path.startswith("templates/") and problem.line >= 1, problem
    except ConfigError as exc:  # front matter: exit 2, every unreadable page at its line
        problems = getattr(exc, "problems", None)
        assert problems, exc
        assert all(p.path == "content/page.md" and p.line >= 1 for p in problems), exc
