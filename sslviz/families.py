"""Graph families (docs/method.md §2.3): one class each, stating everything about itself.

A family gives the σ-independent part of its graph, the edges and the squared distances on
them (:meth:`GraphFamily.pattern`, a :class:`sslviz.graphs.Graph`); the weights on that
pattern are exp(−d²/σ²) with ∂W/∂σ = 2·W∘d²/σ³ (§2.2, :class:`sslviz.graphs.Graph`), or
for a family that is not Gaussian the unweighted 1[d ≤ r], whose parameter is r instead
of σ (§5.5). Everything else sslviz does with a family reads its attributes, never its
name: which settings it reads (the settings tables, the URL, the widgets), its storage
(the solvers' paths, the cost model and the server's caps), whether k can be learned with
σ (§10.5) and its pseudo-dimension shape (§10.4).

==============  =====================================================  ======  ======
family          edges                                                  reads   storage
==============  =====================================================  ======  ======
``complete``    every pair i ≠ j                                       --      dense
``knn``         j ∈ N_k(i) or i ∈ N_k(j) (the symmetrised "or")        k       CSR
``mutual-knn``  j ∈ N_k(i) and i ∈ N_k(j) (Definition 1b)              k       CSR
``threshold``   the mutual-kNN edges, 1[d_ij ≤ r] (Definition 1a)      k       CSR
==============  =====================================================  ======  ======

All families are in one table, :data:`sslviz.registry.FAMILIES`, with the plug-ins of other
packages (entry-point group ``sslviz.families``; ``docs/extending.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp
from scipy.spatial.distance import cdist

from sslviz import registry
from sslviz._validation import check_int, options_text
from sslviz.graphs import Graph, knn_pattern


class GraphFamily:
    """A graph family (docs/method.md §2.3). A subclass sets the class attributes below and
    writes :meth:`pattern`; :func:`sslviz.checks.check_family` checks both.

    Attributes
    ----------
    name : str
        What ``--family``, the link and the JSON write (lower-case words joined by
        hyphens).
    label : str
        The family in sentences and messages ("kNN").
    help : str
        One clause of ``--family``'s help: what the graph is, in the paper's terms.
    reads : tuple of str
        The graph settings :meth:`pattern` reads (``("k",)``); the others do not apply to
        it (left out of the link and the command, their widgets disabled).
    gaussian : bool
        True: the weights are exp(−d²/σ²) on the pattern and the parameter is σ. False: the
        unweighted 1[d ≤ r] on the pattern, whose parameter is r; its exact loss l(r) is
        read off the edge lengths (§5.5), and Algorithm 4, conditioning, regret and
        Delalleau's model, all about σ, do not apply.
    sparse : bool
        The pattern's storage: True, CSR (its stored entries are the edges); False, a dense
        (n, n) array (every pair an edge). The solvers' paths, the cost model and the
        server's caps (a dense graph holds n² weights) follow it.
    learns_k : bool
        Whether k is learned jointly with σ on the learning page (``--k-range``): each k
        is one exact curve per instance (§10.5).
    pseudo_dimension : str or None
        The paper's bound on the pseudo-dimension of the family's loss class, in words
        (§10.4); None when none is known.
    """

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""
    help: ClassVar[str] = ""
    reads: ClassVar[tuple[str, ...]] = ()
    gaussian: ClassVar[bool] = True
    sparse: ClassVar[bool] = True
    learns_k: ClassVar[bool] = False
    pseudo_dimension: ClassVar[str | None] = None

    @property
    def parameter(self) -> str:
        """The family's parameter as the pages write it: "σ", or "r" when not Gaussian."""
        return "σ" if self.gaussian else "r"

    def pattern(self, X: np.ndarray, spec: Any) -> Graph:
        """The σ-independent graph on the rows of ``X``.

        Parameters
        ----------
        X : ndarray of shape (n, p)
            The points (PCA space), float64.
        spec : sslviz.specs.GraphSpec
            The family and the settings it reads (``spec.k``).

        Returns
        -------
        Graph
            ``Graph(spec, n, sqdist)``: ``sqdist`` an (n, n) array of squared distances
            (dense families; the diagonal is not an edge) or a CSR matrix of shape (n, n)
            whose stored entries are exactly the edges, symmetric, with no diagonal entry,
            each the squared distance of its two points (explicit zeros included).
        """
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<graph family {self.name!r}>"


def named(where: Callable[[GraphFamily], bool]) -> str:
    """The names of the families ``where`` keeps, in words ("knn or mutual-knn"), for a
    message that says which to pick."""
    return options_text([f.name for f in registry.FAMILIES.values() if where(f)])


class Complete(GraphFamily):
    """The complete Gaussian graph: every pair is an edge (stored dense)."""

    name = "complete"
    label = "complete"
    help = "complete Gaussian graph"
    sparse = False
    pseudo_dimension = "Θ(n) (Balcan & Sharma 2021)"

    def pattern(self, X: np.ndarray, spec: Any) -> Graph:
        return Graph(spec, X.shape[0], cdist(X, X, "sqeuclidean"))


class _Neighbours(GraphFamily):
    """The kNN patterns (§2.3, the point itself excluded): the edges chosen by either end
    (``both`` False) or by both."""

    reads = ("k",)
    both: ClassVar[bool] = False

    def pattern(self, X: np.ndarray, spec: Any) -> Graph:
        n = X.shape[0]
        check_int("k", spec.k, "build_graph", low=1, high=n - 1)
        A = knn_pattern(X, spec.k)
        # Symmetrise through the pattern alone, so explicit zero distances stay edges.
        P = sp.csr_matrix((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape)
        S = P + P.T
        S = S.tocsr()
        S.sort_indices()
        keep = S.data >= 2.0 if self.both else S.data >= 1.0
        rows = np.repeat(np.arange(n), np.diff(S.indptr))[keep]
        cols = S.indices[keep]
        d2 = np.sum((X[rows] - X[cols]) ** 2, axis=1)
        D = sp.csr_matrix((d2, (rows, cols)), shape=(n, n))
        if D.nnz != rows.size:  # coo->csr keeps explicit zeros; guard the invariant
            raise RuntimeError("edge pattern lost entries while building the graph")
        D.sort_indices()
        return Graph(spec, n, D)


_KNN_BOUND = "O(K + log n) over k ≤ K (Theorem 4.1, proved for mincut labeling)"


class KNN(_Neighbours):
    """The symmetrised "or" kNN graph: an edge when either end chose the other."""

    name = "knn"
    label = "kNN"
    help = "kNN (symmetrised 'or', as in the paper's experiments)"
    learns_k = True
    pseudo_dimension = _KNN_BOUND


class MutualKNN(_Neighbours):
    """The mutual kNN graph (Definition 1b): an edge when both ends chose each other."""

    name = "mutual-knn"
    label = "mutual kNN"
    help = "mutual kNN (Def. 1b)"
    both = True
    learns_k = True
    pseudo_dimension = _KNN_BOUND


class Threshold(_Neighbours):
    """The threshold graph (Definition 1a): 1[d_ij ≤ r] on the mutual-kNN edges."""

    name = "threshold"
    label = "threshold"
    help = (
        "threshold 1[d_ij ≤ r] on the mutual-kNN pattern (Def. 1a), whose parameter is r "
        "instead of σ"
    )
    both = True
    gaussian = False
    pseudo_dimension = "O(log n) over (k, r) (Theorem 4.2)"
