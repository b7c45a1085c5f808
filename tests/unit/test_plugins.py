"""Plug-ins installed through entry points (tests/plugins, tests/plugin_helpers.py): the toy
graph family (a Gaussian ε-ball graph) and the toy labeling model (the harmonic model
row-normalised, solved as the paper writes it), each one file of their package, reach every
surface of sslviz with no file of sslviz changed for them, and their results agree with
independent references (brute force, dense NumPy solves, sslviz's harmonic model). Three
bad plug-ins are each left out with one line naming them, and the rest works as before."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp
from plugin_helpers import (
    TOY_FAMILY,
    TOY_MODEL,
    install_bad,
    install_toy,
    installed,
    run_sslviz,
)
from reference import RTOL_BREAKPOINT, RTOL_ITERATE, assert_same_curve_to_tolerance, sqdist
from scipy.sparse.csgraph import connected_components

from sslviz import registry
from sslviz import specs as S
from sslviz.algorithm4 import sweep
from sslviz.checks import check_family, check_model
from sslviz.graphs import build_graph
from sslviz.problem import build_problem, loss_curve, make_model, suggest_sigma_range


def _toy(**changes) -> S.ProblemSpec:
    """A digits instance on both toys (once they are installed), with ``changes``."""
    toy = {"family": TOY_FAMILY, "labeling": TOY_MODEL}
    return S.ProblemSpec(classes=(2, 3), n=80, n_labeled=8, **(toy | changes))


@pytest.fixture(scope="module")
def toy_site(tmp_path_factory):
    """The toy distribution installed in a temporary folder (this process and subprocesses)."""
    site = tmp_path_factory.mktemp("site")
    install_toy(site)
    with installed(site):
        yield site


@pytest.fixture(scope="module")
def bad_site(tmp_path_factory):
    """The toy distribution and the three bad plug-ins, installed together."""
    site = tmp_path_factory.mktemp("bad_site")
    install_toy(site)
    install_bad(site)
    with installed(site):
        yield site


def _points(seed=0, n=40):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = 0.6 * rng.normal(size=(n, 3)) + 1.5 * y[:, None]
    labeled = np.zeros(n, bool)
    labeled[[0, 1, 2, n // 2, n // 2 + 1, n // 2 + 2]] = True
    return X, labeled, y


def _eps_ball_mask(X, k):
    """The ε-ball graph by brute force: every pair's distance, each point's k-th nearest
    other point, ε the largest of those distances, an edge where d ≤ ε."""
    n = X.shape[0]
    d = np.array([[np.sqrt(np.sum((X[i] - X[j]) ** 2)) for j in range(n)] for i in range(n)])
    kth = [sorted(d[i, j] for j in range(n) if j != i)[k - 1] for i in range(n)]
    eps = max(kth)
    return (d <= eps) & ~np.eye(n, dtype=bool)


def _row_normalised(X, labeled, y, mask, sigma):
    """f_U of (I − P_UU) f_U = P_UL f_L, P = D⁻¹W, by a dense NumPy solve, on the unlabeled
    nodes whose component of the graph holds a labeled node (the others at ½)."""
    _, comp = connected_components(sp.csr_matrix(mask), directed=False)
    U = np.flatnonzero(~labeled & np.isin(comp, comp[labeled]))
    L = np.flatnonzero(labeled)
    W = np.where(mask, np.exp(-sqdist(X) / sigma**2), 0.0)
    P = W / np.maximum(W.sum(axis=1, keepdims=True), np.finfo(float).tiny)
    f = np.full(X.shape[0], 0.5)
    A = np.eye(U.size) - P[np.ix_(U, U)]
    f[U] = np.linalg.solve(A, P[np.ix_(U, L)] @ y[L].astype(float))
    return f[~labeled]


def _edges(graph):
    """The edge mask of a graph (its stored entries; every pair i ≠ j when dense)."""
    if isinstance(graph.sqdist, np.ndarray):
        return ~np.eye(graph.n, dtype=bool)
    mask = np.zeros((graph.n, graph.n), bool)
    D = graph.sqdist
    mask[np.repeat(np.arange(graph.n), np.diff(D.indptr)), D.indices] = True
    return mask


# --------------------------------------------------------------------------- every surface


def test_the_toys_are_in_every_table_and_pass_their_checks(toy_site):
    assert registry.problems() == []
    assert TOY_FAMILY in S.FAMILIES and TOY_FAMILY in S.GAUSSIAN_FAMILIES
    assert TOY_MODEL in S.LABELINGS
    family, model = registry.family(TOY_FAMILY), registry.model(TOY_MODEL)
    check_family(type(family))  # what the plug-in's author runs in their tests
    check_model(model)
    assert family.help in S.setting(S.ProblemSpec, "family").help  # --family's help
    assert model.help in S.setting(S.ProblemSpec, "labeling").help
    query = {"family": TOY_FAMILY, "labeling": TOY_MODEL, "k": "5"}
    values, warnings = S.from_query(S.ProblemSpec, query)  # the link
    spec = S.ProblemSpec(**values)
    assert not warnings and (spec.family, spec.labeling, spec.k) == (TOY_FAMILY, TOY_MODEL, 5)
    assert S.to_query(spec)["k"] == "5"  # the toy family reads k: it travels in the link
    command = S.to_command(spec)  # the reproducing command
    assert command[command.index("--family") + 1] == TOY_FAMILY
    assert command[command.index("--k") + 1] == "5"
    assert command[command.index("--labeling") + 1] == TOY_MODEL
    assert type(registry.family("knn")).__module__ == "sslviz.families"  # the built-ins stay
    # the model is refused on a family it does not accept, in words
    X, labeled, y = _points()
    with pytest.raises(ValueError, match="needs a Gaussian graph family .* got family='threshold'"):
        make_model(X, labeled, y, S.GraphSpec("threshold", 4), S.LabelingSpec(TOY_MODEL))


def test_the_eps_ball_graph_is_the_brute_force_one(toy_site):
    for seed, k in ((0, 3), (1, 6)):
        X, _, _ = _points(seed)
        g = build_graph(X, S.GraphSpec(TOY_FAMILY, k))
        mask = _eps_ball_mask(X, k)
        D = g.sqdist.toarray()
        assert np.array_equal(_edges(g), mask)
        np.testing.assert_allclose(D[mask], sqdist(X)[mask], rtol=1e-12)


@pytest.mark.parametrize("family", [TOY_FAMILY, "knn", "complete"])
def test_the_toy_models_soft_labels_are_the_dense_solve(toy_site, family):
    X, labeled, y = _points(2)
    model = make_model(X, labeled, y, S.GraphSpec(family, 5), S.LabelingSpec(TOY_MODEL))
    harmonic = make_model(X, labeled, y, S.GraphSpec(family, 5))
    mask = _edges(model.graph)
    for sigma in (0.5, 0.9, 1.7):
        sl = model.soft_labels(sigma, solver="exact")
        assert np.array_equal(sl.degenerate, harmonic.soft_labels(sigma).degenerate)
        ref = _row_normalised(X, labeled, y, mask, sigma)
        np.testing.assert_allclose(sl.f, ref, rtol=0, atol=1e-10)
        h = 1e-6 * sigma
        up, down = (_row_normalised(X, labeled, y, mask, sigma + s) for s in (h, -h))
        np.testing.assert_allclose(sl.df, (up - down) / (2 * h), rtol=1e-5, atol=1e-7)
        # the same function as the harmonic model's (multiply row u by d_u)
        np.testing.assert_allclose(sl.f, harmonic.soft_labels(sigma).f, rtol=0, atol=1e-10)
        # its CG on D^½(I − P_UU)D^-½ is Jacobi-PCG on L_UU: the same iterates, to rounding
        for t in (3, 10):
            cg = model.soft_labels(sigma, solver="cg", cg_iters=t).f
            pcg = harmonic.soft_labels(sigma, solver="pcg", cg_iters=t).f
            assert np.linalg.norm(cg - pcg) <= RTOL_ITERATE * np.linalg.norm(pcg)


def test_the_exact_curve_and_the_fast_sweep_of_the_toys(toy_site):
    problem = build_problem(_toy())
    model = problem.model
    assert model.search_system("cg") is None and not model.cholesky_exact  # general paths
    lo, hi = suggest_sigma_range(problem)
    curve = loss_curve(problem, lo, hi)
    assert curve.breakpoints.size > 3 and curve.complete
    # the harmonic model on the same graph: the same function, solved another way
    harmonic = build_problem(_toy(labeling="harmonic"))
    assert_same_curve_to_tolerance(curve, loss_curve(harmonic, lo, hi), RTOL_BREAKPOINT)
    # brute force: the loss at the middle of each piece, from a dense solve
    inst = problem.instance
    mask = _edges(problem.graph)
    edges = curve.loss.edges
    for a, b, value in zip(edges[:-1], edges[1:], curve.loss.values, strict=True):
        f = _row_normalised(inst.X, inst.labeled, inst.y, mask, 0.5 * (a + b))
        assert np.mean((f > 0.5) != (problem.y_unlabeled == 1)) == pytest.approx(value)
    # the fast sweep: its Python search on the toy's CG-t (≡ the harmonic model's PCG-t,
    # whose sweep is compiled), the same pieces, each end located to ε by both
    settings = S.SweepSettings(solver="cg", cg_iters=10)
    est = sweep(model, problem.y_unlabeled, lo, hi, settings).estimated_loss()
    pcg = sweep(harmonic.model, harmonic.y_unlabeled, lo, hi, settings.replace(solver="pcg"))
    other = pcg.estimated_loss()
    assert np.array_equal(est.values, other.values) and est.edges.size > 3
    np.testing.assert_allclose(est.edges, other.edges, rtol=0, atol=settings.epsilon)
    for a, b, value in zip(est.edges[:-1], est.edges[1:], est.values, strict=True):
        f = model.soft_labels(0.5 * (a + b), solver="cg", cg_iters=10, derivative=False).f
        assert np.mean((f > 0.5) != (problem.y_unlabeled == 1)) == pytest.approx(value)


# --------------------------------------------------------------------------- command line

DIGITS = ["--dataset", "digits", "--classes", "2", "3", "--n", "80", "--labeled", "8"]


@pytest.mark.slow
def test_sslviz_loss_on_the_toy_family_and_intervals_on_the_toy_model(toy_site):
    done = run_sslviz(toy_site, "loss", *DIGITS, "--family", TOY_FAMILY, "--json", "--no-timings")
    assert done.returncode == 0 and "warning" not in done.stderr, done.stderr
    doc = json.loads(done.stdout)  # the JSON alone on standard output
    assert doc["settings"]["family"] == TOY_FAMILY
    problem = build_problem(_toy(labeling="harmonic"))
    curve = loss_curve(problem, *suggest_sigma_range(problem))
    np.testing.assert_allclose(doc["breakpoints"], curve.breakpoints, rtol=1e-12)
    args = [*DIGITS, "--family", "knn", "--labeling", TOY_MODEL, "--score"]
    done = run_sslviz(toy_site, "intervals", *args, "--json", "--no-timings")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    problem = build_problem(_toy(family="knn"))
    lo, hi = suggest_sigma_range(problem)
    est = sweep(problem.model, problem.y_unlabeled, lo, hi, S.SweepSettings())
    assert len(doc["intervals"]) == len(est.intervals) and doc["score"]["missed"] >= 0
    np.testing.assert_allclose(
        [iv["hi"] for iv in doc["intervals"]], [iv.hi for iv in est.intervals], rtol=1e-12
    )
    bad = run_sslviz(toy_site, "loss", *DIGITS, "--family", "threshold", "--labeling", TOY_MODEL)
    assert bad.returncode == 2 and "needs a Gaussian graph family" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_the_toy_family_learns_k_and_the_toy_model_runs_regret(toy_site):
    args = [*DIGITS, "--family", TOY_FAMILY, "--k-range", "4:6", "--instances", "2"]
    done = run_sslviz(toy_site, "learn", *args, "--test-instances", "1", "--jobs", "1", "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert [row["k"] for row in doc["grid"]] == [4, 5, 6]
    assert doc["pseudo_dimension_bound"] is None  # the toy states no bound
    args = [*DIGITS, "--family", "knn", "--labeling", TOY_MODEL, "--rounds", "3"]
    done = run_sslviz(toy_site, "regret", *args, "--repeats", "1", "--jobs", "1", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["settings"]["labeling"] == TOY_MODEL


# --------------------------------------------------------------------------- bad plug-ins


def test_each_bad_plugin_is_left_out_in_one_line_naming_it(bad_site):
    lines = registry.problems()
    assert len(lines) == 3 and all("\n" not in line for line in lines)
    broken, clash, lacking = lines
    for line, entry in zip(
        lines,
        (
            "'broken = sslviz_bad.broken:Family'",
            "'knn-again = sslviz_bad.clash:KNNAgain'",
            "'lacking = sslviz_bad.lacking:NoSoftLabels'",
        ),
        strict=True,
    ):
        assert entry in line and "of the distribution sslviz-bad 0.1 is left out" in line, line
    assert (
        "importing it failed (ModuleNotFoundError: No module named 'sslviz_no_such_package')"
        in (broken)
    )
    assert "the graph family name 'knn' is taken by sslviz itself; give it another name." in clash
    assert "NoSoftLabels lacks the method soft_labels(sigma, *, solver, cg_iters" in lacking
    # everything else works: the built-ins, and the good plug-in beside the bad ones
    assert type(registry.family("knn")).__module__ == "sslviz.families"
    assert registry.FAMILIES.names() == ("complete", "knn", "mutual-knn", "threshold", TOY_FAMILY)
    assert registry.MODELS.names() == ("harmonic", "delalleau", "spreading", TOY_MODEL)
    assert "lacking" not in S.LABELINGS and "broken" not in S.FAMILIES


@pytest.mark.slow
def test_with_bad_plugins_the_cli_warns_on_stderr_and_writes_the_same_json(bad_site, tmp_path):
    args = ["loss", *DIGITS, "--family", "knn", "--k", "6", "--json", "--no-timings"]
    done = run_sslviz(bad_site, *args)
    plain = run_sslviz(tmp_path, *args)  # no plug-in installed
    assert done.returncode == plain.returncode == 0
    assert done.stdout == plain.stdout  # the JSON, byte for byte
    warnings = [line for line in done.stderr.splitlines() if line.startswith("sslviz: warning")]
    assert len(warnings) == 3 and "sslviz_bad" not in plain.stderr
    assert all("is left out" in line for line in warnings)
    assert json.loads(done.stdout)["settings"]["family"] == "knn"
    assert run_sslviz(bad_site, "loss", *DIGITS, "--family", TOY_FAMILY, "--json").returncode == 0


# --------------------------------------------------------------------------- the guide


def test_the_guides_examples_are_the_tested_files():
    """docs/extending.md shows the toy's files as they are, and its page example uses
    names that exist."""
    import re

    from plugin_helpers import PLUGINS, ROOT

    text = (ROOT / "docs" / "extending.md").read_text()
    shown = dict(re.findall(r"<!-- (\S+) -->\n```\w+\n(.*?)```", text, re.S))
    assert set(shown) == {
        f"tests/plugins/{p}"
        for p in ("sslviz_toy/families.py", "sslviz_toy/models.py", "pyproject.toml")
    }
    for path, code in shown.items():
        assert (PLUGINS.parent.parent / path).read_text() == code, path
    page = re.search(r'```python\n("""Graph degrees.*?)```', text, re.S)[1]
    compile(page, "Graph_degrees.py", "exec")
    from ui import cache, frame, nav

    assert callable(cache.problem) and callable(frame.page)
    row = re.search(r"\n    (Page\(.*?\)),\n\)\n```", text, re.S)[1]
    assert eval(row, {"Page": nav.Page}).path == "Graph_degrees"
    assert hasattr(build_graph(np.eye(3), S.GraphSpec("complete")), "degrees")
