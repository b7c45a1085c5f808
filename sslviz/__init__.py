"""sslviz: learning the graph in graph-based semi-supervised learning, made visible.

Modules
-------
data          datasets, PCA, problem instances
graphs        graph families: σ-independent pattern + weights and ∂W/∂σ
labeling      harmonic and Delalleau soft labels and σ-derivatives (Algorithms 2, 3)
solvers       fixed-t CG / Jacobi-PCG (counted), exact LU, matrix inverse
truth         the exact loss curve l(σ) and its breakpoints
intervals     Algorithm 4 (paper mode), the fast mode, scoring against the truth
conditioning  κ(I − P_UU), κ(A) across σ
online        Approximate Continuous Exp3-Set (Algorithm 1) and regret experiments
problem       settings → instance → model, shared by the CLI, the app and the online runs
plots         Plotly figure builders
cli           the ``sslviz`` command

Nothing here imports Streamlit or torch at import time.
"""

__version__ = "0.1.0"
