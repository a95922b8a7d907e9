"""The import graph of ``optsched/`` and ``models/`` has no cycle and keeps the layers apart.

The graph is read from the source with :mod:`ast`: every ``import`` and
``from ... import`` of an optsched module, at module level *and* inside
functions (a lazy import that dodges a cycle still is one).  Imports under
``if TYPE_CHECKING:`` are left out (never executed), and so are the implicit
imports of parent packages and ``importlib.import_module`` by name (the
registry's plugin lookup of ``optsched.<key>.paper``).  ``models/`` is the
package ``optsched.models``.  ``from a.b import c`` is an edge to ``a.b.c``
when that is a module, else to ``a.b``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Package folders and the module prefix they are installed under.
FOLDERS = {"optsched": "optsched", "models": "optsched.models"}
#: Names a model may import from its slice's online module: the pricing
#: subroutine the online algorithm and the column generation share (issue 24).
SHARED_PRICING = {"optsched.oasis.online": {"place", "slot_cost_curve"}}


def _modules() -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file of the two folders."""
    out = {}
    for folder, prefix in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join([prefix, *parts])] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterator[tuple[ast.AST, bool]]:
    """``(import node, inside a function)`` for every executed import of ``tree``."""

    def walk(node: ast.AST, in_function: bool) -> Iterator[tuple[ast.AST, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for alt in child.orelse:  # the ``else:`` branch does run
                    yield from walk(alt, in_function)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child, in_function
            inner = in_function or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
            )
            yield from walk(child, inner)

    yield from walk(tree, False)


def _targets(
    node: ast.AST, module: str, is_package: bool, known: dict[str, Path]
) -> list[tuple[str, str | None]]:
    """``(imported optsched module, imported name or None)`` of one import node."""
    if isinstance(node, ast.Import):
        return [(a.name, None) for a in node.names]
    assert isinstance(node, ast.ImportFrom)
    if node.level:
        base = module.split(".")
        if not is_package:
            base = base[:-1]
        base = base[: len(base) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    out = []
    for alias in node.names:
        sub = f"{source}.{alias.name}"
        out.append((sub, None) if sub in known else (source, alias.name))
    return out


def import_graph() -> tuple[dict[str, set[str]], list[tuple[str, str, int]]]:
    """Edges ``module -> imported modules`` and the imports made inside functions.

    Returns
    -------
    edges
        Every optsched module (also those that import nothing) -> the
        optsched modules it imports.
    lazy
        ``(module, imported module, line)`` of each import inside a function.
    """
    known = _modules()
    edges: dict[str, set[str]] = {m: set() for m in known}
    lazy: list[tuple[str, str, int]] = []
    for module, path in known.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        is_package = path.name == "__init__.py"
        for node, in_function in _imports(tree):
            for target, _ in _targets(node, module, is_package, known):
                if not target.startswith("optsched"):
                    continue
                while target and target not in known:  # a name inside a module
                    target = target.rpartition(".")[0]
                if target and target != module:
                    edges[module].add(target)
                    if in_function and (module, target, node.lineno) not in lazy:
                        lazy.append((module, target, node.lineno))
    return edges, lazy


def find_cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with a cycle (Tarjan, iterative), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1 or v in edges.get(v, ()):
                        cycles.append(sorted(comp))
    return sorted(cycles)


@pytest.fixture(scope="module")
def graph() -> tuple[dict[str, set[str]], list[tuple[str, str, int]]]:
    return import_graph()


def test_cycle_finder_finds_planted_cycles():
    """The finder reports a two-module cycle, a three-module cycle, and none in a DAG."""
    dag = {"a": {"b", "c"}, "b": {"c"}, "c": set()}
    assert find_cycles(dag) == []
    assert find_cycles({**dag, "c": {"a"}}) == [["a", "b", "c"]]
    two = {"x": {"y"}, "y": {"x"}, "z": {"x"}}
    assert find_cycles(two) == [["x", "y"]]


def test_graph_sees_module_level_and_lazy_imports(graph):
    """The graph has the edges read by hand from three files (both kinds of import)."""
    edges, lazy = graph
    # module level, absolute: models/oasis.py imports the OASiS checker
    assert "optsched.oasis.check" in edges["optsched.models.oasis"]
    # module level, relative: okita's schedule imports its instance module
    assert "optsched.okita.instance" in edges["optsched.okita.schedule"]
    # inside a function: the bounds solve the placement MILP on first use
    assert (
        "optsched.asrpt.bounds",
        "optsched.models.asrpt_placement",
    ) in {(m, t) for m, t, _ in lazy}


def test_no_import_cycle(graph):
    """No cycle in the import graph of optsched/ and models/, lazy imports included."""
    edges, _ = graph
    assert find_cycles(edges) == []


def test_models_import_no_registry_paper_or_algorithm(graph):
    """A model imports neither the registry, a paper record, nor online/baseline code.

    (Except the pricing subroutine OASiS's online algorithm and its column
    generation share, :data:`SHARED_PRICING`.)
    """
    known = _modules()
    bad = []
    for module, path in known.items():
        if not module.startswith("optsched.models."):
            continue
        tree = ast.parse(path.read_text())
        for node, _ in _imports(tree):
            for target, name in _targets(node, module, False, known):
                last = target.rpartition(".")[2]
                if target == "optsched.core.registry" or last in (
                    "paper",
                    "online",
                    "baselines",
                    "variants",
                ):
                    if name in SHARED_PRICING.get(target, ()):
                        continue
                    bad.append(f"{module} imports {target} {name or ''}".strip())
    assert bad == []


def test_models_and_paper_records_have_no_lazy_optsched_import(graph):
    """No import of an optsched module inside a function of a model or a paper record."""
    _, lazy = graph
    where = [
        f"{m}:{line} -> {t}"
        for m, t, line in lazy
        if m.startswith("optsched.models.") or m.endswith(".paper")
    ]
    assert where == []


SLICES = ("oasis", "hetero", "edgecloud", "okita", "asrpt")


def _slice_of(module: str) -> str | None:
    """The paper slice a module belongs to (its models too), or None for core."""
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in SLICES:
        return parts[1]
    if parts[1:2] == ["models"] and len(parts) > 2:
        return next((k for k in SLICES if parts[2].startswith(k)), None)
    return None


def test_core_imports_no_slice_and_slices_import_no_other_slice(graph):
    """``optsched.core`` imports no paper slice; a slice (and its models) imports no other slice."""
    edges, _ = graph
    bad = []
    for module, targets in edges.items():
        if module.startswith("optsched.core"):
            bad += [(module, t) for t in targets if _slice_of(t) is not None]
            continue
        own = _slice_of(module)
        if own is not None:
            bad += [(module, t) for t in targets if _slice_of(t) not in (None, own)]
    assert bad == []
