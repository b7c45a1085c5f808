"""Exact soft labels where LU's pivot test is blind: against 50-digit arithmetic (mpmath).

On digits 3 vs 8, complete graph, n = 80, round seed 30 of the regret experiment, at
σ = 0.2238 every LU pivot passed the 1e-10 test, yet LU put a node at f = 0.195 where the
answer is 0.999999: a loss piece (0.086 instead of 0.029) that is not there. Small dense
systems are now solved by GTH (``sslviz.exact_solves.GTH_DENSE_MAX``).
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from sslviz.problem import build_problem
from sslviz.specs import ProblemSpec

SPEC = ProblemSpec(dataset="digits", classes=(3, 8), n=80, n_labeled=10, family="complete")


def _reference(model, sigma: float, digits: int = 50) -> np.ndarray:
    """f_U of eq. (1) from the same squared distances, every step in ``digits`` digits."""
    with mpmath.workdps(digits):
        s2 = mpmath.mpf(sigma) ** 2
        D_UU, D_UL = model._D2_UU, model._D2_UL
        n_u, n_l = D_UL.shape
        W = [
            [
                mpmath.exp(-mpmath.mpf(float(D_UU[i, j])) / s2) if i != j else mpmath.mpf(0)
                for j in range(n_u)
            ]
            for i in range(n_u)
        ]
        WL = [
            [mpmath.exp(-mpmath.mpf(float(D_UL[i, j])) / s2) for j in range(n_l)]
            for i in range(n_u)
        ]
        A = mpmath.matrix(n_u, n_u)
        b = mpmath.matrix(n_u, 1)
        for i in range(n_u):
            deg = mpmath.fsum(W[i]) + mpmath.fsum(WL[i])
            for j in range(n_u):
                A[i, j] = -W[i][j]
            A[i, i] = deg
            b[i] = mpmath.fsum(WL[i][j] * float(model.y_l[j]) for j in range(n_l))
        f = mpmath.lu_solve(A, b)
        return np.array([float(f[i]) for i in range(n_u)])


@pytest.mark.slow  # over 1.5 s: outside the quick run
@pytest.mark.parametrize("sigma", [0.2238, 0.2264])
def test_exact_labels_match_50_digit_reference_where_lu_was_wrong(sigma):
    problem = build_problem(SPEC.with_seed(30))
    sl = problem.model.soft_labels(sigma)
    ref = _reference(problem.model, sigma)
    assert np.array_equal(sl.f > 0.5, ref > 0.5)
    np.testing.assert_allclose(sl.f, ref, rtol=0, atol=1e-9)


@pytest.mark.parametrize("sigma", [0.2238, 0.5])
def test_exact_derivative_matches_finite_differences_dense(sigma):
    """∂f/∂σ on the same dense instance, eq. (2) summed edge by edge, against central
    differences of exact f."""
    model = build_problem(SPEC.with_seed(30)).model
    h = 1e-5 * sigma
    up, down = (model.soft_labels(sigma + s, derivative=False).f for s in (h, -h))
    fd = (up - down) / (2 * h)
    df = model.soft_labels(sigma).df
    assert np.abs(df - fd).max() <= 1e-6 * max(np.abs(fd).max(), 1e-12)
