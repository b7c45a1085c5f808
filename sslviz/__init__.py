"""sslviz: learning the graph in graph-based semi-supervised learning, made visible.

Modules
-------
settings      the settings framework: rules, rows, frozen specs, the CLI and URL codecs
specs         every setting, once (default, rule, help, CLI flag, URL key) and the
              cross-field checks; CLI, URL, widgets and reproducing commands come from it
datasets      the named datasets and a user's files (the process's one dataset cache)
data          problem instances: the two-class pool, its PCA, the points drawn
graphs        a graph's σ-independent pattern + weights and ∂W/∂σ; the kNN rule
families      the graph families, one class each (GraphFamily)
labeling      what every model states and answers (SoftLabelModel); harmonic soft labels
              and σ-derivatives (Algorithm 2)
delalleau     Delalleau et al.'s soft labels (Algorithm 3)
registry      the families and models by name: the built-ins and the plug-ins of other
              packages (entry points sslviz.families, sslviz.models), filled on first use
checks        check_family, check_model: a family's or model's class checked, as a
              plug-in's tests and the registry run them
systems, exact_solves, solvers    the models' linear systems, the exact-solve policy, the
              solvers (CG / Jacobi-PCG through one entry, solve_cg; LU, GTH, the inverse)
oracle        the counted solves a search asks for (LabelOracle)
crossings     where soft labels cross ½: Hermite, Chebyshev and compiled searches
truth         loss curves l(σ) (exact or from any solver) and their breakpoints
algorithm4    Algorithm 4 (paper mode and its events, the fast mode), feedback sets
scoring, attribution, sentences   an estimate against the truth, each miss's cause, the
              verdict in words (``intervals`` gathers their public names)
conditioning  κ(I − P_UU), κ(A) and where CG-t can be trusted, across σ
convergence   the estimate for every t from one CG run
online        the Approximate Continuous Exp3-Set learner (Algorithm 1)
experiment    regret experiments: rounds, repetitions, joblib / Dask
learn         σ (and k) learned by ERM from many instances (paper §2 and §4)
problem       settings → instance → model, and graph-backed online rounds
costs         the cost model behind the app's caps
measure       robust timings and their comparison
piecewise     piecewise-constant losses
tours         the guided tours' texts and settings
export        every result → dict / DataFrame: one JSON schema for the CLI and the app
plots         Plotly figure builders, one module per view; animation: the players
summary       what a command computed, in a few plain lines read off its JSON document
cli           the ``sslviz`` command, options generated from the specs
api           the Python API on arrays: ``sslviz.loss_curve``, ``intervals``, ``condition``,
              ``regret``, ``learn`` (imported on first use; docs/python.md)
sklearn       ExactGammaSearchCV, scikit-learn's γ chosen by exact cross-validation

Nothing here imports Streamlit, torch, scikit-learn or Numba at import time (Numba at the
first call of a compiled kernel: ``sslviz._kernels``), and the default view never imports
scikit-learn (kNN graphs, Delalleau's subsets and the PCA of tall pools
do), so a cold start loads only what its first view uses (``benchmarks/cold_start.py``). Importing
sslviz sets one BLAS/OpenMP thread for the process, so results are identical to the bit
whatever the machine's cores and whatever runs beside them (``sslviz._threads``;
``SSLVIZ_THREADS=n`` sets another count).
"""

from sslviz._threads import pin_process as _pin_process

__version__ = "0.1.0"

_pin_process()

_API = ("loss_curve", "intervals", "condition", "regret", "learn")
"""The Python API's functions (:mod:`sslviz.api`), imported on first use."""


def __getattr__(name: str):
    if name == "intervals":  # the module of that name, callable as api.intervals
        import sslviz.intervals

        return sslviz.intervals
    if name == "learn":  # the module of that name, callable as api.learn
        import sslviz.learn

        return sslviz.learn
    if name in _API:
        from sslviz import api

        return getattr(api, name)
    raise AttributeError(f"module 'sslviz' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_API])
