"""The layout of docs/architecture.md holds in the code: one-way dependencies between the
packages (pages → ui → sslviz; sslviz imports neither), no import cycle inside either
package, and the picture's edges between the ``ui`` modules are the imports' edges."""

from __future__ import annotations

import ast
import graphlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def imports(package: str) -> dict[str, set[str]]:
    """Module → the top-level packages and sibling modules it imports (anywhere in it); a
    subpackage (``sslviz.plots``) is one module, its files' imports together."""
    folder = ROOT / package
    members = {p.stem: [p] for p in folder.glob("*.py")}
    members |= {
        d.name: sorted(d.glob("*.py")) for d in folder.iterdir() if (d / "__init__.py").is_file()
    }
    graph = {}
    for module, paths in sorted(members.items()):
        found = set()
        for path in paths:
            for node in ast.walk(ast.parse(path.read_text())):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
                for name in names:
                    parts = name.split(".")
                    found.add(parts[0])
                    if parts[0] == package and len(parts) > 1 and parts[1] in members:
                        found.add(f"{package}.{parts[1]}")
        graph[module] = found
    return graph


def test_sslviz_imports_neither_streamlit_nor_the_app():
    for module, found in imports("sslviz").items():
        assert not found & {"streamlit", "ui", "pages", "app"}, module


def test_ui_imports_no_page_and_pages_only_ui_and_sslviz():
    for module, found in imports("ui").items():
        assert not found & {"pages", "app"}, module
    for page, found in imports("pages").items():
        assert "ui" in found, page  # every page goes through ui.frame
        assert not found & {"pages", "app"}, page


def _acyclic(package: str) -> dict[str, set[str]]:
    graph = {
        m: {d.split(".")[1] for d in found if d.startswith(f"{package}.")} - {m}
        for m, found in imports(package).items()
    }
    list(graphlib.TopologicalSorter(graph).static_order())  # raises CycleError on a cycle
    return graph


def test_no_import_cycle_inside_sslviz_or_ui():
    _acyclic("sslviz")
    _acyclic("ui")


def test_the_pictures_ui_edges_are_the_imports():
    text = (ROOT / "docs" / "architecture.md").read_text()
    block = text.split("```mermaid", 2)[2].split("```", 1)[0]  # the second picture: ui
    drawn = {(a, b) for a, b in re.findall(r"^\s*(\w+) --> (\w+)\s*$", block, re.M)}
    graph = _acyclic("ui")
    actual = {(m, d) for m, deps in graph.items() for d in deps if m != "__init__"}
    assert drawn == actual


def test_sslviz_layers_of_the_picture_hold():
    """Every module of sslviz is in one row of the layer table, and imports only modules
    of the rows above it."""
    text = (ROOT / "docs" / "architecture.md").read_text().split("## `sslviz`: layers")[1]
    rows = [
        re.findall(r"`(\w+)`", line.split("|")[2])
        for line in text.splitlines()
        if line.startswith("| ") and not line.startswith("| layer")
    ]
    row_of = {m: i for i, mods in enumerate(rows) for m in mods}
    graph = _acyclic("sslviz")
    assert set(row_of) == set(graph) - {"__init__"}
    for module, deps in graph.items():
        if module != "__init__":
            assert all(row_of[d] < row_of[module] for d in deps - {"__init__"}), module


def test_page_scripts_hold_no_bare_strings_but_their_docstring():
    """Streamlit's magic writes a page script's bare expressions on the page: a string
    under an assignment, meant as its docstring, would be shown to the user."""
    import ast

    for path in [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]:
        body = ast.parse(path.read_text()).body
        stray = [
            node.lineno
            for node in body[1:]
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        ]
        assert not stray, f"{path.name}: bare constants on lines {stray}"


def test_each_family_and_model_is_named_in_at_most_three_product_files():
    """A family or model is one class: its name is a string in its definition, a tour that
    uses it and one more place (a default) at most, no annotation joins two concrete models
    and no ``isinstance`` tests one (``benchmarks/name_counts.py`` prints the counts)."""
    import importlib.util

    path = ROOT / "benchmarks" / "name_counts.py"
    spec = importlib.util.spec_from_file_location("name_counts", path)
    counts = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(counts)
    found = counts.counts()
    assert {n: f for n, f in found["names"].items() if len(f) > 3} == {}
    assert all(
        f
        and f[0]
        in (
            "sslviz/families.py",
            "sslviz/labeling.py",
            "sslviz/delalleau.py",
            "sslviz/spreading.py",
        )
        for f in found["names"].values()
    )
    assert found["unions"] == [] and found["isinstance"] == []
