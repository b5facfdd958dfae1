"""`serve` previews a branch's layouts in Jinja's sandbox too (issue 29, item 1): a layout
that reaches for Python is shown as a problem at its line, runs nothing, leaks nothing, and
the last good pages stay."""

from __future__ import annotations

import json
import os
from pathlib import Path

from .test_rebuild import Served, site  # noqa: F401  (the example site at the sandbox)

GLOBALS = "cycler.__init__.__globals__"


def test_a_hostile_layout_is_a_problem_in_the_preview_and_leaks_nothing(
    site: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    served = Served(site, tmp_path / "served" / "site")
    assert served.rebuild().startswith("built ")
    before = {p: p.read_bytes() for p in served.output.rglob("*") if p.is_file()}
    secret = os.environ["MEDIASHORTCODES_CLIENT_SECRET"]
    served.edit(
        "templates/page.html",
        "{{ page.content }}",
        f"{{{{ {GLOBALS}.os.environ.get('MEDIASHORTCODES_CLIENT_SECRET') }}}}"
        f"{{{{ {GLOBALS}.os.popen('touch {tmp_path}/PWNED').read() }}}}",
    )
    served.rebuild("templates/page.html")
    [problem] = served.channel.state.problems
    assert problem["path"].endswith("templates/page.html") and problem["line"] == 5
    assert "'__init__' is refused: templates run in a sandbox" in problem["message"]
    shown = json.dumps(served.channel.state.problems) + served.channel.state.message
    assert secret not in shown + "\n".join(served.lines)
    assert {p: p.read_bytes() for p in served.output.rglob("*") if p.is_file()} == before
    assert not (tmp_path / "PWNED").exists()
