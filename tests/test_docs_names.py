"""Docs and docstrings name only modules and docs that exist (issue 28, item 8).

Scans README.md, CHANGELOG.md, docs/**/*.md and the package's docstrings and comments for
dotted names (``mediashortcodes.site.builder``, ``mediashortcodes.jinja.Extension``),
module paths (``site/builder.py``, ``mediashortcodes/media/cache.py``,
``benchmarks/run.py``) and file names (``site.py``). A dotted name must be a module or
package, or a module followed by a name that module defines or imports at its top level.
A path must be a file, relative to the repository, to the package or to the file naming
it; a file name alone must be the name of some file of the repository (or a host's file,
such as ``manage.py``).
"""

from __future__ import annotations

import ast
import importlib
import io
import re
import tokenize
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "mediashortcodes"

DOTTED = re.compile(r"(?<![\w.])mediashortcodes(?:\.[A-Za-z_]\w*)+")
# A path of folders ending in a .py file (not part of a URL or of a longer path).
PATH = re.compile(r"(?<![\w./:-])((?:[A-Za-z_][\w-]*/)+[A-Za-z_]\w*\.py)\b")
# A doc of the repository: ``docs/site-builder.md``.
DOC = re.compile(r"(?<![\w./:-])(docs/[\w/-]+\.md)\b")
# A host's own pages the docs show in examples (an MkDocs site's docs/ folder).
HOST_DOCS = {"docs/page.md"}
# A file name alone: ``site.py``, ``fileio.py``.
BARE = re.compile(r"(?<![\w./:-])([A-Za-z_]\w*\.py)\b")
# The hosts' own files that the docs name (a Django project's, a Pelican site's).
HOST_FILES = {"manage.py", "settings.py", "pelicanconf.py", "publishconf.py", "conf.py"}
# Names that look dotted but are not modules: the configuration file.
NOT_MODULES = {"mediashortcodes.toml"}
# Folders a path may start from, at the repository's top (others are the package's).
TOP = {"mediashortcodes", "benchmarks", "tests", "docs", "example_site", "tools"}


def docs() -> Iterator[Path]:
    yield from (p for p in (ROOT / "README.md", ROOT / "CHANGELOG.md") if p.exists())
    yield from sorted((ROOT / "docs").rglob("*.md"))


def prose_of_module(path: Path) -> Iterator[tuple[int, str]]:
    """(line, text) of every docstring and comment of a Python file."""
    source = path.read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            docstring = ast.get_docstring(node, clean=False)
            if docstring is not None:
                first = node.body[0].lineno
                for offset, line in enumerate(docstring.splitlines()):
                    yield first + offset, line
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string


def prose() -> Iterator[tuple[Path, int, str]]:
    for doc in docs():
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            yield doc, number, line
    for module in sorted(PACKAGE.rglob("*.py")):
        for number, line in prose_of_module(module):
            yield module, number, line


@cache
def module_file(dotted: str) -> Path | None:
    """The file of a module or package ``a.b.c`` in this repository, or None."""
    base = ROOT.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@cache
def top_level_names(path: Path) -> frozenset[str]:
    """The names a module defines or imports at its top level (``if`` blocks included)."""
    names: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = list(tree.body)
    while nodes:
        node = nodes.pop()
        if isinstance(node, ast.If | ast.Try):
            nodes += [*node.body, *node.orelse, *getattr(node, "finalbody", [])]
            for handler in getattr(node, "handlers", []):
                nodes += handler.body
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return frozenset(names)


def dotted_name_exists(name: str) -> bool:
    """``name`` is a module, or the longest module prefix defines its next part."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        found = module_file(".".join(parts[:end]))
        if found is not None:
            if end == len(parts):
                return True
            # A package's submodule is a module prefix handled above; otherwise the next
            # part must be a top-level name (deeper parts are that object's attributes).
            return parts[end] in top_level_names(found) or parts[end] in lazy_names(found)
    return False


def lazy_names(path: Path) -> frozenset[str]:
    """The names a package's ``__init__`` gives on demand (its ``__all__``, as
    ``mediashortcodes.AsyncClient`` is given by ``__getattr__``)."""
    if path.name != "__init__.py" or "__getattr__" not in top_level_names(path):
        return frozenset()
    module = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    return frozenset(importlib.import_module(module).__all__)


def path_exists(path: str, where: Path) -> bool:
    first = path.split("/")[0]
    bases = [ROOT] if first in TOP else [PACKAGE, where.parent, ROOT]
    return any((base / path).is_file() for base in bases)


def is_logger(after: str) -> bool:
    """A dotted name followed by "logger" is a logger's name (``mediashortcodes.api``)."""
    return after.lstrip("`'\"").startswith(" logger")


@cache
def repository_file_names() -> frozenset[str]:
    files = ROOT.rglob("*.py")
    return frozenset(f.name for f in files if not any(p.startswith(".") for p in f.parts))


def bare_name_exists(name: str, where: Path) -> bool:
    """A file name alone is ambiguous: any file of that name in the repository will do."""
    return name in HOST_FILES or name in repository_file_names()


def missing_names() -> list[str]:
    missing = []
    for where, number, line in prose():
        names = [
            m[0]
            for m in DOTTED.finditer(line)
            if m[0] not in NOT_MODULES and not is_logger(line[m.end() :])
        ]
        names = [n for n in names if not dotted_name_exists(n)]
        names += [p for p in PATH.findall(line) if not path_exists(p, where)]
        names += [b for b in BARE.findall(line) if not bare_name_exists(b, where)]
        names += [d for d in DOC.findall(line) if d not in HOST_DOCS and not (ROOT / d).is_file()]
        missing += [f"{where.relative_to(ROOT)}:{number}: {name}" for name in names]
    return missing


def test_docs_and_docstrings_name_only_modules_that_exist() -> None:
    missing = missing_names()
    assert not missing, "names of modules that do not exist:\n" + "\n".join(missing)


def test_the_check_tells_real_names_from_missing_ones(tmp_path: Path) -> None:
    assert dotted_name_exists("mediashortcodes.jinja")
    assert dotted_name_exists("mediashortcodes.jinja.MediaShortcodesExtension")
    assert dotted_name_exists("mediashortcodes.config.BuildConfig.jobs")  # an attribute's attribute
    assert not dotted_name_exists("mediashortcodes.api")
    assert not dotted_name_exists("mediashortcodes.jinja.NoSuchThing")
    assert is_logger("` logger at INFO") and not is_logger("`, the client's module")
    assert path_exists("config.py", PACKAGE / "x.py")
    assert path_exists("benchmarks/run.py", ROOT / "README.md")
    assert not bare_name_exists("site.py", PACKAGE / "media" / "live.py")
    assert bare_name_exists("fileio.py", ROOT / "README.md")
    assert not path_exists("media/nothing.py", ROOT / "README.md")
    assert DOC.findall("(docs/cache.md), [x](docs/site-builder.md#the-page-memo)") == [
        "docs/cache.md",
        "docs/site-builder.md",
    ]
    assert PATH.findall("see `site/builder.py` and https://example.org/a/b.py") == [
        "site/builder.py"
    ]
