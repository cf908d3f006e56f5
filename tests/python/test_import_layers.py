# tests/python/test_import_layers.py: the Python package is built in floors; this test holds the code to them.
"""Every module of python/quadrants belongs to a floor, named by its folder (docs/ARCHITECTURE.md). A module may
import its own floor and the floors below it, never one above; no modules import each other in a circle; no function
imports a module of the package (an import deferred into a function is a hidden upward or circular dependency); and
no file is longer than 600 lines. Imports are read from the source (module level and inside functions alike), so
the test needs no build. The compiled core (quadrants.runtime._core) is a module of the runtime floor."""

import ast
import functools
import os

import pytest

PACKAGE = os.path.join(os.path.dirname(__file__), "..", "..", "python", "quadrants")

# Bottom to top. A folder is a floor; the compatibility layer is upstream's module paths, above every floor it
# re-exports; quadrants/__init__.py alone sits on top.
FLOORS = [
    ("base", ["base"]),
    ("runtime", ["runtime"]),
    ("types", ["types"]),
    ("data", ["data"]),
    ("frontend", ["frontend"]),
    ("kernels", ["kernels"]),
    ("library", ["library"]),
    ("siblings", ["ad", "algorithms", "linalg", "interop", "backends", "sparse", "tools"]),
    ("compatibility", ["lang", "_lib", "_tensor", "math", "profiler", "experimental", "_test_tools"]),
    ("package", [""]),
]
_FLOOR_OF = {top: level for level, (_, tops) in enumerate(FLOORS) for top in tops}
MAX_LINES = 600


def _modules():
    """{module name: path} of every .py file, names relative to the package ('' is quadrants/__init__.py)."""
    root = os.path.abspath(PACKAGE)
    found = {}
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                module = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
                found[module.removesuffix("__init__").rstrip(".")] = path
    found["runtime._core"] = None  # the compiled extension module
    return found


def _resolve(name, modules):
    """The module that a dotted name (relative to the package) denotes: itself, else its longest module prefix."""
    while name not in modules:
        if not name:
            return ""
        name = name.rpartition(".")[0]
    return name


def _imports(module, path, modules):
    """[(imported module, line, inside a function)] of one module's imports of the package."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    package_parts = module.split(".") if path.endswith("__init__.py") else module.split(".")[:-1]
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            targets = []
            if isinstance(child, ast.Import):
                targets = [a.name for a in child.names]
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = [p for p in package_parts if p]
                    base = base[:len(base) - (child.level - 1)]
                    stem = "quadrants." + ".".join(base + ([child.module] if child.module else []))
                else:
                    stem = child.module or ""
                targets = [f"{stem.rstrip('.')}.{a.name}" for a in child.names]
            for target in targets:
                if target == "quadrants" or target.startswith("quadrants."):
                    imported = _resolve(target.removeprefix("quadrants").lstrip("."), modules)
                    if imported != module:
                        found.append((imported, child.lineno, inside))
            visit(child, inside)

    visit(tree, False)
    return found


def _floor(module):
    return _FLOOR_OF[module.split(".")[0]] if module else _FLOOR_OF[""]


@functools.cache
def _graph():
    modules = _modules()
    return modules, {m: _imports(m, p, modules) for m, p in modules.items() if p is not None}


def test_every_module_is_on_a_floor():
    modules, _ = _graph()
    unplaced = sorted(m for m in modules if m.split(".")[0] not in _FLOOR_OF)
    assert not unplaced, f"modules outside every floor (add the folder to FLOORS, or move them): {unplaced}"


def test_no_module_imports_a_higher_floor():
    _, graph = _graph()
    upward = [f"quadrants.{m} (floor {FLOORS[_floor(m)][0]}) line {line} imports quadrants.{target} (floor "
              f"{FLOORS[_floor(target)][0]})" for m, imports in sorted(graph.items()) for target, line, _ in imports
              if _floor(target) > _floor(m)]
    assert not upward, "imports that go up a floor:\n" + "\n".join(upward)


def test_no_function_imports_a_package_module():
    _, graph = _graph()
    deferred = [f"quadrants.{m} line {line} imports quadrants.{target}" for m, imports in sorted(graph.items())
                for target, line, inside in imports if inside]
    assert not deferred, "imports inside functions:\n" + "\n".join(deferred)


def test_no_import_cycle():
    _, graph = _graph()
    edges = {m: sorted({t for t, _, _ in imports if t in graph}) for m, imports in graph.items()}
    index, low, on_stack, stack, cycles = {}, {}, set(), [], []

    def strongly_connected(v):  # Tarjan's algorithm, iterative over each node's edges
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                strongly_connected(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            strongly_connected(v)
    assert not cycles, "modules that import each other in a circle:\n" + "\n".join(map(str, cycles))


@pytest.mark.parametrize("floor", [name for name, _ in FLOORS])
def test_files_stay_short(floor):
    modules, _ = _graph()
    long = [f"{p}: {n} lines" for m, p in sorted(modules.items()) if p is not None and FLOORS[_floor(m)][0] == floor
            for n in [sum(1 for _ in open(p, encoding="utf-8"))] if n > MAX_LINES]
    assert not long, f"files over {MAX_LINES} lines (split them by responsibility):\n" + "\n".join(long)
