"""A shortcode works out its hash once, and a pickled one works in another process's dicts."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

from mediashortcodes.language import Location, Shortcode


def shortcode(line: int = 3) -> Shortcode:
    return Shortcode(
        "media_image", 12, "thumb", (("alt", "A dog"),), Location("p.md", line, 1), "<% x %>"
    )


def test_equal_shortcodes_are_one_key_and_another_place_is_another():
    first, again, elsewhere = shortcode(), shortcode(), shortcode(line=4)
    index = {first: "a"}
    assert hash(first) == hash(first) == hash(again)
    assert index[again] == "a"
    assert elsewhere not in index


def test_a_shortcode_pickled_after_use_as_a_key_is_a_key_in_another_process():
    used = shortcode()
    _ = {used: True}  # its hash is worked out (and kept) in this process
    code = (
        "import pickle, sys\n"
        "from mediashortcodes.language import Location, Shortcode\n"
        "received = pickle.loads(sys.stdin.buffer.read())\n"
        "fresh = Shortcode('media_image', 12, 'thumb', (('alt', 'A dog'),),"
        " Location('p.md', 3, 1), '<% x %>')\n"
        "print({fresh: 'found'}.get(received, 'missing'))\n"
    )
    seed = str(int(os.environ.get("PYTHONHASHSEED", "0") or 0) + 1)
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=pickle.dumps(used),
        capture_output=True,
        env={**os.environ, "PYTHONHASHSEED": seed},
        check=True,
        timeout=60,
    )
    assert done.stdout.decode().strip() == "found"
