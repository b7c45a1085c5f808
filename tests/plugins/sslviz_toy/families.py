"""A toy graph family: the Gaussian ε-ball graph.

An edge {i, j} wherever d_ij ≤ ε, with ε the largest distance of a point to its k-th
nearest neighbour: every point has at least k neighbours, as in the kNN graph, and k sets
the graph's scale. The weights are sslviz's Gaussian exp(−d²/σ²) on those edges.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.spatial.distance import cdist

from sslviz.families import GraphFamily
from sslviz.graphs import Graph, neighbours


class EpsBall(GraphFamily):
    name = "eps-ball"
    label = "ε-ball"
    help = "ε-ball: an edge where d_ij ≤ ε, ε the largest distance to a k-th neighbour"
    reads = ("k",)
    learns_k = True

    def pattern(self, X, spec):
        n = X.shape[0]
        eps = float(neighbours(X, spec.k)[0][:, -1].max())
        d2 = cdist(X, X, "sqeuclidean")
        near = np.sqrt(d2) <= eps  # lengths compared, not their squares
        np.fill_diagonal(near, False)
        rows, cols = np.nonzero(near)
        D = sp.csr_matrix((d2[rows, cols], (rows, cols)), shape=(n, n))
        D.sort_indices()
        return Graph(spec, n, D)
