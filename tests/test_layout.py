"""The package's shape (docs/architecture.md): no import circle, imports that run one way,
small modules and functions.

No circle counts every import, inside functions too. The layers' direction counts
module-level imports only: an import inside a function (the sandbox started on demand, the
client opened only when something is missing from the cache) is how a lower layer reaches a
higher one lazily.
"""

from __future__ import annotations

import ast
from pathlib import Path

import mediashortcodes

PACKAGE = Path(mediashortcodes.__file__).parent

# A layer may import its own modules and those of layers with a lower rank.
RANKS = {
    "errors": 0,
    "records": 0,
    "config": 0,
    "fileio": 0,
    "client": 1,
    "language": 1,
    "markdown": 2,
    "pymarkdown": 2,  # the Python-Markdown extension, as markdown is the markdown-it plugin
    "jinja": 2,
    "media": 3,
    "usage": 3,
    "site": 4,
}
INTEGRATION_RANK = 5  # wagtail, picker, sandbox, and every integration to come
CLI_RANK = 6
BASE = {"errors", "records", "config", "fileio"}
# Integration modules other integrations may import: the one browsing core of the picker and
# the Wagtail chooser (it imports only layers below the integrations).
SHARED = {"mediashortcodes.picker.browse"}


def _modules() -> dict[str, tuple[Path, bool]]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ["mediashortcodes", *path.relative_to(PACKAGE).with_suffix("").parts]
        is_init = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_init else parts)] = (path, is_init)
    return found


def _imports(*, nested: bool = False) -> dict[str, set[str]]:
    """Each module's imports of the package: module-level ones, or with ``nested`` every one."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, (path, is_init) in modules.items():
        package = name if is_init else name.rsplit(".", 1)[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree) if nested else tree.body:
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                submodules = [f"{target}.{a.name}" for a in node.names]
                named = [m for m in submodules if m in modules]
                if target in modules and len(named) < len(submodules):
                    graph[name].add(target)  # a name defined in the module or package itself
                graph[name].update(named)
            elif isinstance(node, ast.Import):
                graph[name].update(a.name for a in node.names if a.name in modules)
        graph[name].discard(name)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return cycles


def _layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 3 and parts[2] == "cli":  # an integration's command: the command line's
        return "cli"
    return parts[1] if len(parts) > 1 else ""


def _rank(layer: str) -> int:
    if layer == "cli":
        return CLI_RANK
    return RANKS.get(layer, INTEGRATION_RANK)


def test_the_package_has_no_import_circle_not_even_inside_functions() -> None:
    assert _cycles(_imports(nested=True)) == []


MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80


def test_modules_and_functions_stay_small() -> None:
    too_long = []
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(PACKAGE)
        if len(text.splitlines()) > MAX_MODULE_LINES:
            too_long.append(f"{name}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                if length > MAX_FUNCTION_LINES:
                    too_long.append(f"{name}:{node.lineno} {node.name}: {length} lines")
    assert too_long == []


def test_imports_run_down_the_layers() -> None:
    for shared in SHARED:  # a shared module reaches only the layers below the integrations
        assert all(_rank(_layer(t)) < INTEGRATION_RANK for t in _imports()[shared])
    wrong = []
    for module, targets in _imports().items():
        layer = _layer(module)
        for target in targets:
            other = _layer(target)
            if layer == "__main__" or other in ("", layer) or (other in BASE and layer in BASE):
                continue
            if target in SHARED and _rank(layer) >= INTEGRATION_RANK:
                continue
            if _rank(other) >= _rank(layer):
                wrong.append(f"{module} imports {target}")
    assert wrong == []


def test_the_layers_are_folders() -> None:
    loose = sorted(
        p.name for p in PACKAGE.glob("*.py") if p.stem not in {"__init__", "__main__", *RANKS}
    )
    assert loose == []
