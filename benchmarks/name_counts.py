"""Where the product names its graph families and labeling models, and how it chooses a
model's paths: the counts of "one class each, found in one place".

    python benchmarks/name_counts.py    # prints the table, writes results/name_counts.md

For each family and model name of the registry, the product files (``sslviz/``, ``ui/``,
``pages/``, ``app.py``) that hold it as a string literal, leaving out a literal that is a
dict key or a subscript (a JSON field such as ``"complete"``, whether a search finished,
is another word); the annotations that join two concrete models (``A | B`` of two
``SoftLabelModel`` subclasses); the ``isinstance`` calls on a concrete model; and the
references to documents the repository does not hold (``DESIGN``) or to issue numbers.
``tests/unit/test_architecture.py`` asserts the bounds.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "name_counts.md"


def product_files() -> list[Path]:
    files = [ROOT / "app.py"]
    for folder in ("sslviz", "ui", "pages"):
        files += sorted((ROOT / folder).rglob("*.py"))
    return files


def _keys(tree: ast.AST) -> set[int]:
    """ids of the string constants that are a dict key or a subscript."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            out |= {id(k) for k in node.keys if k is not None}
        elif isinstance(node, ast.Subscript):
            out.add(id(node.slice))
    return out


def literal_files(names: list[str]) -> dict[str, list[str]]:
    """Each name → the product files holding it as a string literal (not a key)."""
    found: dict[str, list[str]] = {name: [] for name in names}
    for path in product_files():
        tree = ast.parse(path.read_text())
        keys = _keys(tree)
        here = {
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in keys
        }
        for name in names:
            if name in here:
                found[name].append(str(path.relative_to(ROOT)))
    return found


def model_unions_and_isinstance(model_classes: list[str]) -> tuple[list[str], list[str]]:
    """The ``A | B`` annotations of two concrete models, and the ``isinstance`` calls whose
    class is a concrete model, as ``file:line``."""
    unions, checks = [], []
    for path in product_files():
        tree = ast.parse(path.read_text())
        where = str(path.relative_to(ROOT))
        for node in ast.walk(tree):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
                sides = [n.id for n in (node.left, node.right) if isinstance(n, ast.Name)]
                if sum(s in model_classes for s in sides) == 2:
                    unions.append(f"{where}:{node.lineno}")
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance":
                named = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
                named |= {n.attr for n in ast.walk(node.args[1]) if isinstance(n, ast.Attribute)}
                if named & set(model_classes):
                    checks.append(f"{where}:{node.lineno}")
    return unions, checks


def absent_references() -> list[str]:
    """``file:line`` of each mention of DESIGN or of an issue number in the product."""
    pattern = re.compile(r"\bDESIGN\b|\bissue \d+|\bissue #\d+")
    out = []
    for path in product_files():
        for i, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                out.append(f"{path.relative_to(ROOT)}:{i}")
    return out


def counts() -> dict:
    from sslviz import registry

    def own(obj) -> bool:  # a built-in (a plug-in installed here is not the product's)
        return (obj if isinstance(obj, type) else type(obj)).__module__.startswith("sslviz.")

    families = [f.name for f in registry.FAMILIES.values() if own(f)]
    models = [m for m in registry.MODELS.values() if own(m)]
    classes = [m.__name__ for m in models]
    models = [m.name for m in models]
    unions, checks = model_unions_and_isinstance(classes)
    return {
        "names": literal_files(families + models),
        "unions": unions,
        "isinstance": checks,
        "absent": absent_references(),
    }


def main() -> int:
    c = counts()
    lines = [
        "# Names and type tests in the product",
        "",
        "`python benchmarks/name_counts.py`: each family or model name in the product files "
        "that hold it as a string literal (dict keys and subscripts, JSON field names, left "
        "out), the unions of two concrete models, the `isinstance` calls on one, and the "
        "references to DESIGN or to an issue number.",
        "",
        "| name | files | which |",
        "|---|---|---|",
    ]
    lines += [f"| `{n}` | {len(f)} | {', '.join(f)} |" for n, f in c["names"].items()]
    lines += [
        "",
        f"- model unions: {len(c['unions'])} {', '.join(c['unions'])}",
        f"- isinstance on a concrete model: {len(c['isinstance'])} {', '.join(c['isinstance'])}",
        f"- references to DESIGN or an issue number: {len(c['absent'])}",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
