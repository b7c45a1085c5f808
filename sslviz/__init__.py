"""sslviz: learning the graph in graph-based semi-supervised learning, made visible.

Modules
-------
specs         every setting, once: frozen specs with one field table each (default, rule,
              help, CLI flag, URL key) and the cross-field checks; CLI, URL, widgets and
              reproducing commands are generated from them
data          datasets, PCA, problem instances (the process's one dataset cache)
graphs        graph families: σ-independent pattern + weights and ∂W/∂σ
labeling      harmonic and Delalleau soft labels and σ-derivatives (Algorithms 2, 3), and
              the counted solve oracle (LabelOracle)
solvers       fixed-t CG / Jacobi-PCG (counted), exact LU, matrix inverse
truth         loss curves l(σ) (exact or from any solver) and their breakpoints
intervals     Algorithm 4 (paper mode), the fast mode, scoring against the truth
conditioning  κ(I − P_UU), κ(A) across σ
online        the Approximate Continuous Exp3-Set learner (Algorithm 1)
experiment    regret experiments: rounds, repetitions, joblib / Dask
problem       settings → instance → model, and graph-backed online rounds
export        every result → dict / DataFrame: one JSON schema for the CLI and the app
plots         Plotly figure builders
cli           the ``sslviz`` command, options generated from the specs

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
