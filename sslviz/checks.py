"""Checks of a graph family or labeling model class: what a plug-in's author runs in their
tests, and what :mod:`sslviz.registry` runs (the quick form) before it takes a class.

As scikit-learn's ``check_estimator`` does for an estimator, :func:`check_family` and
:func:`check_model` raise :class:`sslviz.registry.PluginError` at the first thing a class
gets wrong, in one line that says what to change, and return None when it passes:

    from sslviz.checks import check_family, check_model

    def test_my_plugins():
        check_family(MyFamily)
        check_model(MyModel)

``quick=True`` checks what the class declares only (its attributes, that its methods are
written, that it reads no settings row sslviz does not have): the registry's check, cheap
enough at every start. The full check also runs it on a small instance of two clusters:
a family's pattern against its points (symmetric, no self-loop, squared distances on its
edges; docs/method.md §2.3), a model's soft labels on every family it accepts (their
shapes, in [0, 1], ∂f/∂σ against central finite differences, every solver, the batched
and one-σ answers equal, each t's side of ½ as the solves with that t say, the
certificate's sides those of the exact solve; docs/method.md §3).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import scipy.sparse as sp

from sslviz import registry
from sslviz.families import GraphFamily
from sslviz.graphs import Graph
from sslviz.labeling import SoftLabelModel, SoftLabels
from sslviz.registry import PluginError
from sslviz.specs import SOLVERS, GraphSpec, LabelingSpec, table

FAMILY_ROWS: tuple[str, ...] = tuple(n for n, _ in table(GraphSpec) if n != "family")
"""The settings rows a family may read (a plug-in cannot add one)."""

MODEL_ROWS: tuple[str, ...] = tuple(
    n for n, _ in table(LabelingSpec) if n not in ("method", "seed")
)
"""The settings rows a model may read besides the seed (a plug-in cannot add one)."""


def _fail(cls: Any, what: str) -> None:
    raise PluginError(f"{getattr(cls, '__name__', repr(cls))} {what}")


def _identity(cls: Any, base: type, kind: str, rows: tuple[str, ...]) -> None:
    """The attributes every family and model states: a subclass of ``base`` with a name,
    a label, a help clause and the settings rows it reads."""
    if not (isinstance(cls, type) and issubclass(cls, base)):
        _fail(cls, f"is not a {kind} class: subclass {base.__module__}.{base.__name__}.")
    name = getattr(cls, "name", "")
    if not isinstance(name, str) or not registry.NAME.fullmatch(name):
        _fail(
            cls,
            f"has no valid name ({name!r}): set the class attribute name to lower-case "
            "letters and digits, words joined by hyphens (it is typed on the command line "
            "and travels in links).",
        )
    for attribute in ("label", "help"):
        value = getattr(cls, attribute, "")
        if not isinstance(value, str) or not value.strip():
            _fail(cls, f"lacks the class attribute {attribute} (a text): set it.")
    reads = getattr(cls, "reads", ())
    if not isinstance(reads, tuple) or not all(isinstance(r, str) for r in reads):
        _fail(cls, f"has reads = {reads!r}: set it to a tuple of setting names.")
    unknown = [r for r in reads if r not in rows]
    if unknown:
        _fail(
            cls,
            f"reads the setting {unknown[0]!r}, which sslviz's settings tables do not have: "
            f"a {kind} may read {', '.join(rows) or 'none'} (a plug-in cannot add a "
            "settings row yet).",
        )


def _flags(cls: Any, names: tuple[str, ...]) -> None:
    for attribute in names:
        value = getattr(cls, attribute, None)
        if not isinstance(value, bool):
            _fail(cls, f"has {attribute} = {value!r}: set it to True or False.")


def _written(cls: Any, base: type, method: str, signature: str) -> None:
    """The class writes ``method`` (the base's raises NotImplementedError)."""
    if not callable(getattr(cls, method, None)) or getattr(cls, method) is getattr(base, method):
        _fail(cls, f"lacks the method {method}{signature}: write it.")


def check_family(cls: type, *, quick: bool = False) -> None:
    """Check a graph family class (:class:`sslviz.families.GraphFamily` subclass).

    Parameters
    ----------
    cls : type
    quick : bool, default=False
        Its declarations only (the registry's check); else also its pattern on a small
        instance, through :func:`sslviz.graphs.build_graph`.

    Raises
    ------
    sslviz.registry.PluginError
        At the first thing it gets wrong, in one line.
    """
    _identity(cls, GraphFamily, "graph family", FAMILY_ROWS)
    _flags(cls, ("gaussian", "sparse", "learns_k"))
    if cls.learns_k and "k" not in cls.reads:
        _fail(cls, "has learns_k = True but does not read k: add 'k' to reads or set it False.")
    if cls.pseudo_dimension is not None and not isinstance(cls.pseudo_dimension, str):
        _fail(cls, "has a pseudo_dimension that is not a text: write the bound, or None.")
    _written(cls, GraphFamily, "pattern", "(X, spec)")
    if quick:
        return
    from sslviz.graphs import build_graph

    X, _, _ = _instance()
    with registry.FAMILIES.trial(cls):
        spec = GraphSpec(cls.name, 4)
        g = build_graph(X, spec)
        again = build_graph(X, spec)
    n = X.shape[0]
    if not isinstance(g, Graph) or g.n != n or g.spec != spec:
        _fail(cls, f"pattern returns {g!r}: return Graph(spec, n, sqdist) for the n = {n} points.")
    D2 = g.sqdist
    if cls.sparse != sp.issparse(D2) or D2.shape != (n, n):
        want = "a CSR matrix" if cls.sparse else "a dense array"
        _fail(cls, f"pattern's sqdist must be {want} of shape ({n}, {n}) (sparse = {cls.sparse}).")
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    if cls.sparse:
        D2 = sp.csr_matrix(D2)
        rows = np.repeat(np.arange(n), np.diff(D2.indptr))
        edges = sp.csr_matrix((np.ones(D2.nnz), D2.indices, D2.indptr), (n, n))
        if np.any(rows == D2.indices):
            _fail(cls, "pattern stores a self-loop (a diagonal entry): leave the diagonal out.")
        if (edges != edges.T).nnz:
            _fail(cls, "pattern is not symmetric: store edge (j, i) with every edge (i, j).")
        if not np.allclose(D2.data, d2[rows, D2.indices], rtol=1e-10, atol=1e-12):
            _fail(cls, "pattern's entries are not the squared distances of their points.")
    elif not np.allclose(D2[~np.eye(n, dtype=bool)], d2[~np.eye(n, dtype=bool)], rtol=1e-10):
        _fail(cls, "pattern's entries are not the squared distances of their points.")
    if not _same(g.sqdist, again.sqdist):
        _fail(cls, "pattern gives two different graphs on the same points: make it deterministic.")


def check_model(cls: type, *, quick: bool = False) -> None:
    """Check a labeling model class (:class:`sslviz.labeling.SoftLabelModel` subclass).

    Parameters
    ----------
    cls : type
    quick : bool, default=False
        Its declarations only (the registry's check); else also its soft labels on a small
        instance, on every registered family it accepts (at least one).

    Raises
    ------
    sslviz.registry.PluginError
        At the first thing it gets wrong, in one line.
    """
    _identity(cls, SoftLabelModel, "labeling model", MODEL_ROWS)
    _flags(cls, ("nested_iterates", "cholesky_exact"))
    for attribute in ("requirement", "system_label"):
        if not isinstance(getattr(cls, attribute, None), str):
            _fail(cls, f"has a {attribute} that is not a text: set it.")
    _written(cls, SoftLabelModel, "soft_labels", "(sigma, *, solver, cg_iters, derivative, x0)")
    for method in ("accepts", "build"):
        if not callable(getattr(cls, method, None)):
            _fail(cls, f"lacks the class method {method}: keep SoftLabelModel's or write one.")
    if quick:
        return
    families = [f for f in registry.FAMILIES.values() if cls.accepts(f)]
    if not families:
        _fail(cls, "accepts none of the graph families sslviz has: accept at least one.")
    X, labeled, y = _instance()
    with registry.MODELS.trial(cls):
        for family in families:
            _check_on(cls, family, X, labeled, y)


def _check_on(cls: type, family: Any, X: np.ndarray, labeled: np.ndarray, y: np.ndarray) -> None:
    """The full model check on one family."""
    on = f"on the {family.name} family"
    labeling = LabelingSpec(cls.name, subset=8)
    model = cls.build(X, labeled, y, GraphSpec(family.name, 4), labeling)
    n_u = int((~labeled).sum())
    if not np.array_equal(np.asarray(model.unlabeled_idx), np.flatnonzero(~labeled)):
        _fail(cls, f"{on}: unlabeled_idx must be the unlabeled rows in order.")
    if model.n_unlabeled != n_u or not isinstance(getattr(model, "graph", None), Graph):
        _fail(cls, f"{on}: n_unlabeled must be {n_u} and graph its Graph.")
    if not family.gaussian:
        _labels(cls, model.soft_labels_at_radius(1.0), n_u, f"{on}, soft_labels_at_radius")
        return
    for sigma in (0.6, 1.2):
        where = f"{on}, σ = {sigma}"
        exact = _labels(cls, model.soft_labels(sigma, solver="exact"), n_u, where)
        if np.any((exact.f < -1e-9) | (exact.f > 1 + 1e-9)):
            _fail(cls, f"{where}: exact soft labels outside [0, 1].")
        h = 1e-5 * sigma
        up, down = (model.soft_labels(sigma + d, solver="exact").f for d in (h, -h))
        fd = (up - down) / (2 * h)
        if not np.allclose(exact.df, fd, rtol=1e-4, atol=1e-6):
            worst = float(np.max(np.abs(exact.df - fd)))
            _fail(cls, f"{where}: ∂f/∂σ is off central finite differences by {worst:.3g}.")
        for solver in SOLVERS:
            one = _labels(cls, model.soft_labels(sigma, solver=solver, cg_iters=5), n_u, where)
            (many,) = model.soft_labels_many([sigma], solver=solver, cg_iters=5)
            if not np.allclose(one.f, many.f, rtol=1e-10, atol=1e-12):
                _fail(cls, f"{where}: soft_labels_many and soft_labels differ ({solver}).")
        sides, degenerate = model.sides_by_t([sigma], solver="cg", iterations=3)
        for t in (1, 2, 3):
            f = model.soft_labels(sigma, solver="cg", cg_iters=t, derivative=False).f
            if not np.array_equal(sides[0, t - 1], f > 0.5):
                _fail(cls, f"{where}: sides_by_t at t = {t} differs from soft_labels' sides.")
        cert = model.certified_labels(sigma, solver="cg", cg_iters=2)
        if cert.status not in ("certified", "fallback"):
            _fail(cls, f"{where}: certified_labels' status must be certified or fallback.")
        keep = ~exact.degenerate
        if not np.array_equal((cert.f > 0.5)[keep], (exact.f > 0.5)[keep]):
            _fail(cls, f"{where}: certified_labels puts a node on the other side of ½.")
        system = model.condition_system(sigma)
        if system is not None and (len(system) != 4 or system[0].shape[0] != system[1].shape[0]):
            _fail(cls, f"{where}: condition_system must be (S, M, b, cut off), S and M square.")


def _labels(cls: type, sl: Any, n_u: int, where: str) -> SoftLabels:
    """``sl`` is the SoftLabels of ``n_u`` unlabeled nodes, finite."""
    if not isinstance(sl, SoftLabels):
        _fail(cls, f"{where}: return a sslviz.labeling.SoftLabels, not {type(sl).__name__}.")
    fields = {f.name: getattr(sl, f.name) for f in dataclasses.fields(sl)}
    for name in ("f", "degenerate") + (("df",) if fields["df"] is not None else ()):
        value = np.asarray(fields[name])
        if value.shape != (n_u,):
            _fail(cls, f"{where}: {name} has shape {value.shape}, not ({n_u},).")
    if not np.all(np.isfinite(sl.f)) or (sl.df is not None and not np.all(np.isfinite(sl.df))):
        _fail(cls, f"{where}: soft labels or derivatives are not finite.")
    if np.asarray(sl.degenerate).dtype != bool:
        _fail(cls, f"{where}: degenerate must be a bool array.")
    return sl


def _same(a: Any, b: Any) -> bool:
    if sp.issparse(a) and sp.issparse(b):
        return a.shape == b.shape and (a != b).nnz == 0
    return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b)


def _instance(seed: int = 0, n: int = 24) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two clusters of 12 points in 3-D at distances about 1, 3 labeled per class."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = 0.5 * rng.normal(size=(n, 3)) + 1.2 * y[:, None]
    labeled = np.zeros(n, bool)
    labeled[[0, 1, 2, n // 2, n // 2 + 1, n // 2 + 2]] = True
    return X, labeled, y
