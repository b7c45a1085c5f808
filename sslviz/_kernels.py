"""Compiled kernels (Numba): conjugate gradients, the harmonic systems (1)–(2) assembled
and solved for many σ at once, the subtraction-free (GTH) elimination, dense and on a
sparse structure, and the steps of the breakpoint searches.

CG has one loop per storage, each parameterised rather than copied: :func:`cg_csr` (many
systems sharing one CSR pattern, systems along the last axis; one system is a batch of
one) and :func:`cg_dense` (one dense system, from any start, to a tolerance or a fixed t;
behind :func:`sslviz.solvers.solve_cg`). Both take a Jacobi preconditioner or none and
record the side of ½ of every iterate (a ``trace``). The harmonic assemblies call them:
:func:`harmonic_cg` (eqs. (1)–(2) on a sparse pattern, for m values of σ, the derivative's
right-hand side or not) and :func:`harmonic_cg_dense` (on a dense graph at one σ); the
compiled search (:func:`cg_search`) evaluates its σ through the same two.

All compiled code lives in this one module, so Numba's on-disk cache (keyed on this
file) never serves a kernel compiled against an older version of another.

Numba itself is imported at the first call of a kernel, not with this module: the home page
and the CLI's commands that need no kernel do without it (:func:`_jit`).

The kernels are compiled for a portable CPU, x86-64-v3 (AVX2 and FMA) where this one has
its features, else the generic x86-64, and the package ships Numba's cache of them for both
(:data:`CACHE_DIR`): the first sweep after a plain ``pip install`` loads them instead of
waiting for the compiler (``benchmarks/first_sweep.py``). The arithmetic is the same on
every target: no fast-math, so no FMA contraction or reordered sums.
``python scripts/build_kernel_cache.py`` rebuilds it after a change to this file.
"""

import functools
import hashlib
import os
import platform
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

_PYTHON: dict[str, tuple[Callable, dict]] = {}
_COMPILED: dict[str, Callable] = {}
_LOCK = threading.Lock()


def _jit(**options) -> Callable[[Callable], Callable]:
    """``numba.njit(cache=True, **options)``, applied at the first call of any kernel.

    Until then the module's name for a kernel is a stand-in that compiles them all (each
    name in this module then holds its Numba dispatcher, so compiled kernels calling one
    another see dispatchers) and calls its own. Modules that call kernels in hot loops
    reach them as ``_kernels.name``: the dispatcher itself once compiled."""

    def register(func: Callable) -> Callable:
        name = func.__name__
        _PYTHON[name] = (func, {"cache": True, **options})

        @functools.wraps(func)
        def first_call(*args):
            if not _COMPILED:
                _compile_all()
            return _COMPILED[name](*args)

        return first_call

    return register


CACHE_DIR = Path(__file__).with_name("_kernel_cache")
"""Numba's on-disk cache of these kernels, shipped with the package, for each CPU of
:data:`PORTABLE_CPUS` (built by ``scripts/build_kernel_cache.py``)."""
PORTABLE_CPUS = ("x86-64-v3", "generic")
"""The CPUs (LLVM names) the kernels are compiled for on x86-64: the first whose features
this CPU has (:func:`portable_cpu`)."""
_X86_64_V3 = (
    *("cx16", "sahf", "popcnt", "sse3", "ssse3", "sse4.1", "sse4.2"),  # x86-64-v2
    *("avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave"),
)


def portable_cpu() -> str | None:
    """The CPU the kernels are compiled for here: ``"x86-64-v3"`` where this CPU (and its
    OS) supports all of that level's features, ``"generic"`` on other x86-64 CPUs, None
    (this CPU itself, nothing shipped) elsewhere."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    import llvmlite.binding as ll

    features = ll.get_host_cpu_features()
    return PORTABLE_CPUS[0] if all(features.get(f) for f in _X86_64_V3) else PORTABLE_CPUS[1]


@functools.cache
def _source_stamp() -> str:
    """The freshness of this file in Numba's cache index: a hash of its content (not its
    modification time, which an install does not keep), read once (every kernel's cache
    asks for it)."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def _shipped_cache_locator():
    """Numba's cache locator for :data:`CACHE_DIR` (this file's kernels only; where the
    directory is not writable, Numba's own locators take over and compile). Not at import:
    it subclasses one of Numba's."""
    from numba.core import caching

    in_tree = getattr(caching, "InTreeCacheLocator", None) or caching._InTreeCacheLocator

    class ShippedCacheLocator(in_tree):
        def __init__(self, py_func, py_file):
            super().__init__(py_func, py_file)
            self._cache_path = str(CACHE_DIR)

        def get_source_stamp(self):
            return _source_stamp()

        @classmethod
        def from_function(cls, py_func, py_file):
            if Path(py_file).resolve() != Path(__file__).resolve():
                return None
            return super().from_function(py_func, py_file)

    return ShippedCacheLocator


def _compile_all() -> None:
    """Import Numba and put every kernel's dispatcher in place of its stand-in (once;
    Numba compiles each at its first call, or loads it from the shipped cache).

    Unless Numba has compiled something before or ``NUMBA_CPU_NAME`` chooses a CPU, the
    kernels are compiled for :func:`portable_cpu` (Numba's configuration, set before it
    builds its code generator), so that :data:`CACHE_DIR` fits. A ``NUMBA_CACHE_DIR``
    comes first."""
    with _LOCK:
        if _COMPILED:
            return
        # Intel's SVML (where installed) would vectorise some weight loops and not others.
        os.environ.setdefault("NUMBA_DISABLE_INTEL_SVML", "1")
        import numba
        from numba.core import caching, config, registry

        # Numba builds its code generator (for the configured CPU) with its first compile.
        built = "_toplevel_target_context" in vars(registry.cpu_target)
        cpu = None if built or config.CPU_NAME is not None else portable_cpu()
        if cpu is not None:
            config.CPU_NAME, config.CPU_FEATURES = cpu, ""
        impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # Numba < 0.61
        locators = impl._locator_classes
        if not any(c.__name__ == "ShippedCacheLocator" for c in locators):
            locators.insert(1, _shipped_cache_locator())  # after NUMBA_CACHE_DIR's

        compiled = {name: numba.njit(**options)(func) for name, (func, options) in _PYTHON.items()}
        for name, dispatcher in compiled.items():
            if getattr(globals()[name], "__wrapped__", None) is _PYTHON[name][0]:
                globals()[name] = dispatcher  # a stand-in (a test may have put another)
        _COMPILED.update(compiled)


_TINY = float(np.finfo(float).tiny)
UNDERFLOW = 1e-290  # below this a row's unscaled weights are not representable
NO_TRACE = np.zeros((0, 1, 1), dtype=np.bool_)
"""The ``trace`` of :func:`cg_csr` that records no sides."""
NO_TRACE_ONE = np.zeros((0, 1), dtype=np.bool_)
"""The ``trace`` of :func:`cg_dense` that records no sides."""
NO_X0 = np.zeros(0)
"""The ``x0`` of :func:`cg_dense` that starts from zero."""
NO_PATH = np.zeros((0, 1))
"""The ``path`` of :func:`cg_dense` that records no iterates."""


@_jit(error_model="numpy")
def cg_csr(indptr, indices, values, B, iterations, diag_inv, precondition, trace):
    """t steps of CG (Jacobi-PCG if ``precondition``) from zero on the m systems
    A_j x = B[:, j]; A_j has CSR pattern ``indptr``/``indices`` and entries values[:, j]
    (``diag_inv`` (n, m): 1/diag(A_j), read only if ``precondition``).

    The one CG loop on CSR storage. The systems run along the last axis: each loop over
    them is contiguous, and each system's own arithmetic is in the same order whatever the
    batch (one system, m = 1, is a batch of one: the same bits). Dot products are summed in
    index order. Returns X (n, m) and the products per system (t, fewer where a residual
    collapsed first or a system broke down). ``trace`` (t, n, m) bool, if it has rows, gets
    X > 1/2 after each iteration s = 1..t (row s − 1; a stopped system keeps its x): the
    iterates of a t-step run are those of every shorter run, the same bits (CG's iterates
    are nested)."""
    n, m = B.shape
    R = B.copy()
    x = np.zeros((n, m))
    P = np.zeros((n, m))
    Q = np.empty((n, m))
    Z = R
    if precondition:
        Z = np.empty((n, m))
    rr = np.zeros(m)
    for i in range(n):
        for j in range(m):
            rr[j] += R[i, j] * R[i, j]
    stop2 = np.empty(m)
    live = np.empty(m)  # 1.0 while a system iterates, 0.0 once it has stopped
    for j in range(m):
        stop = max(1e-30 * np.sqrt(rr[j]), _TINY)
        stop2[j] = stop * stop
        live[j] = 1.0 if (rr[j] > 0.0 and rr[j] >= stop2[j]) else 0.0
    rho = np.empty(m)
    rho_prev = np.ones(m)
    beta = np.zeros(m)
    pq = np.empty(m)
    alpha = np.empty(m)
    matvecs = np.zeros(m, dtype=np.int64)
    ran = 0
    for it in range(iterations):
        if live.max() == 0.0:
            break
        if precondition:
            rho[:] = 0.0
            for i in range(n):
                for j in range(m):
                    Z[i, j] = diag_inv[i, j] * R[i, j]
                    rho[j] += R[i, j] * Z[i, j]
        else:
            rho[:] = rr
        for j in range(m):
            beta[j] = rho[j] / rho_prev[j] if (it > 0 and live[j] == 1.0) else 0.0
        for i in range(n):
            for j in range(m):
                P[i, j] = live[j] * (Z[i, j] + beta[j] * P[i, j])
        pq[:] = 0.0
        for i in range(n):
            if m == 1:  # one system: a scalar loop (same sums in the same order)
                acc = 0.0
                for k in range(indptr[i], indptr[i + 1]):
                    acc += values[k, 0] * P[indices[k], 0]
                Q[i, 0] = acc
            else:
                Q[i, :] = 0.0
                for k in range(indptr[i], indptr[i + 1]):
                    c = indices[k]
                    for j in range(m):
                        Q[i, j] += values[k, j] * P[c, j]
            for j in range(m):
                pq[j] += P[i, j] * Q[i, j]
        for j in range(m):
            if live[j] == 1.0:
                matvecs[j] += 1
                if not pq[j] > 0.0:  # breakdown: not positive definite on p, or p = 0
                    live[j] = 0.0
            alpha[j] = rho[j] / pq[j] if live[j] == 1.0 else 0.0
        rr[:] = 0.0
        for i in range(n):
            for j in range(m):
                x[i, j] += alpha[j] * P[i, j]
                R[i, j] -= alpha[j] * Q[i, j]
                rr[j] += R[i, j] * R[i, j]
        for j in range(m):
            if live[j] == 1.0:
                rho_prev[j] = rho[j]
                if not rr[j] >= stop2[j]:
                    live[j] = 0.0
        ran = it + 1
        if trace.shape[0] > 0:
            trace[it] = x > 0.5
    for it in range(ran, trace.shape[0]):
        trace[it] = x > 0.5
    return x, matvecs


@_jit(error_model="numpy")
def edge_weight(d2, s2):
    """The Gaussian weight exp(−d²/σ²) of an edge of squared length ``d2`` at σ² = ``s2``.

    Every compiled kernel forms its weights here (libm's ``exp``, scalar), so the batched
    and one-σ solves agree bit for bit on any CPU; NumPy's ``exp`` may differ in the last
    bit where it dispatches to SIMD code (AVX-512), so no weight these kernels use is
    formed by NumPy."""
    return np.exp(-d2 / s2)


@_jit(error_model="numpy")
def harmonic_cg(
    d,
    dl,
    sig,
    uu_ptr,
    uu_col,
    ul_ptr,
    y_ul,
    keep,
    kept,
    L_ptr,
    L_idx,
    L_src,
    iterations,
    precondition,
    derivative,
    trace,
):
    """Equations (1)–(2) by fixed-t CG for m values of σ (systems along the last axis).

    d (E,), dl (E_L,): squared distances of the U–U edges (row-major, ``uu_ptr``/``uu_col``)
    and the U–L edges (``ul_ptr``, labels ``y_ul``); their weights are formed here by
    :func:`edge_weight`. L_kk = diag(deg) − W_kk on the kept
    nodes has CSR pattern ``L_ptr``/``L_idx``; ``L_src`` names the U–U edge of each
    off-diagonal entry (−1 on the diagonal). Returns f, f' (n_u, m), ``ok`` (m,) — False
    where a weight or a row sum underflows — and the products per system. ``trace``: the
    sides of f's iterates on the kept nodes, as in :func:`cg_csr` (no rows: none).
    """
    n_u, m = keep.size, sig.size
    s2 = np.empty(m)
    for j in range(m):
        s2[j] = sig[j] * sig[j]
    W = np.empty((d.size, m))  # systems along the last axis
    for e in range(d.size):
        for j in range(m):
            W[e, j] = edge_weight(d[e], s2[j])
    WL = np.empty((dl.size, m))
    for e in range(dl.size):
        for j in range(m):
            WL[e, j] = edge_weight(dl[e], s2[j])
    ok = np.ones(m, dtype=np.bool_)
    for e in range(W.shape[0]):
        for j in range(m):
            if not W[e, j] > 0.0:
                ok[j] = False
    for e in range(WL.shape[0]):
        for j in range(m):
            if not WL[e, j] > 0.0:
                ok[j] = False
    deg = np.zeros((n_u, m))
    b = np.zeros((n_u, m))
    to_l = np.empty(m)
    for i in range(n_u):
        for e in range(uu_ptr[i], uu_ptr[i + 1]):
            for j in range(m):
                deg[i, j] += W[e, j]
        to_l[:] = 0.0
        for e in range(ul_ptr[i], ul_ptr[i + 1]):
            for j in range(m):
                to_l[j] += WL[e, j]
                b[i, j] += WL[e, j] * y_ul[e]
        for j in range(m):
            deg[i, j] += to_l[j]
            if not deg[i, j] >= UNDERFLOW:
                ok[j] = False
        for e in range(uu_ptr[i], uu_ptr[i + 1]):  # weight into nodes held at 1/2
            if not keep[uu_col[e]]:
                for j in range(m):
                    b[i, j] += 0.5 * W[e, j]
    nk = kept.size
    values = np.empty((L_idx.size, m))
    Bk = np.zeros((nk, m))
    diag_inv = np.empty((nk, m) if precondition else (0, 0))
    for r in range(nk):
        i = kept[r]
        for q in range(L_ptr[r], L_ptr[r + 1]):
            src = L_src[q]
            for j in range(m):
                values[q, j] = deg[i, j] if src < 0 else -W[src, j]
        for j in range(m):
            if ok[j]:  # a zero right-hand side: the failed systems do no work
                Bk[r, j] = b[i, j]
            if precondition:
                diag_inv[r, j] = 1.0 / deg[i, j] if ok[j] else 1.0
    X, matvecs = cg_csr(L_ptr, L_idx, values, Bk, iterations, diag_inv, precondition, trace)
    f = np.full((n_u, m), 0.5)
    for r in range(nk):
        f[kept[r]] = X[r]
    df = np.zeros((n_u, m))
    if derivative:
        s3 = np.empty(m)
        for j in range(m):
            s3[j] = sig[j] * sig[j] * sig[j]
        ddeg = np.empty(m)
        acc = np.empty(m)
        for r in range(nk):
            i = kept[r]
            ddeg[:] = 0.0
            acc[:] = 0.0
            for e in range(uu_ptr[i], uu_ptr[i + 1]):
                c = uu_col[e]
                for j in range(m):
                    dw = 2.0 * W[e, j] * d[e] / s3[j]
                    ddeg[j] += dw
                    acc[j] += dw * f[c, j]
            for e in range(ul_ptr[i], ul_ptr[i + 1]):
                for j in range(m):
                    ddeg[j] += 2.0 * WL[e, j] * dl[e] / s3[j]
            for j in range(m):
                to_l[j] = 0.0
            for e in range(ul_ptr[i], ul_ptr[i + 1]):
                for j in range(m):
                    to_l[j] += 2.0 * WL[e, j] * dl[e] / s3[j] * y_ul[e]
            for j in range(m):
                Bk[r, j] = (to_l[j] - (ddeg[j] * f[i, j] - acc[j])) if ok[j] else 0.0
        X, mv = cg_csr(
            L_ptr,
            L_idx,
            values,
            Bk,
            iterations,
            diag_inv,
            precondition,
            np.zeros((0, 1, 1), dtype=np.bool_),
        )
        for r in range(nk):
            df[kept[r]] = X[r]
        matvecs += mv
    return f, df, ok, matvecs


@_jit(error_model="numpy")
def knn_exhaustive(X, Q, k, exclude_self):
    """The k nearest rows of X (n, p) to each row of Q (m, p), every pair tried: squared
    coordinate differences summed in feature order, then the square root (the numbers of
    scikit-learn's ball tree, bit for bit), ascending by (distance, index). Row i of Q is
    not its own neighbour when ``exclude_self`` (Q is X). Returns distances (m, k) and
    indices (m, k)."""
    n, p = X.shape
    m = Q.shape[0]
    dist = np.empty((m, k))
    ind = np.empty((m, k), np.int64)
    best = np.empty(k)
    at = np.empty(k, np.int64)
    for i in range(m):
        best[:] = np.inf
        at[:] = -1
        for j in range(n):
            if exclude_self and j == i:
                continue
            s = 0.0
            for f in range(p):
                t = Q[i, f] - X[j, f]
                s += t * t
            if at[k - 1] >= 0 and not s < best[k - 1]:
                continue
            q = k - 1  # insert; j grows, so equal distances stay in index order
            while q > 0 and (at[q - 1] < 0 or best[q - 1] > s):
                best[q] = best[q - 1]
                at[q] = at[q - 1]
                q -= 1
            best[q] = s
            at[q] = j
        for q in range(k):
            dist[i, q] = np.sqrt(best[q])
            ind[i, q] = at[q]
    return dist, ind


@_jit(error_model="numpy")
def cg_dense(A, b, x0, iterations, atol, rtol, diag_inv, trace, path):
    """CG from ``x0`` (empty: zero) on a dense A x = b, Jacobi-PCG where ``diag_inv`` (n,)
    has entries (z = diag_inv · r, the preconditioner :func:`sslviz.solvers.jacobi`): the
    one CG loop on dense storage, behind :func:`sslviz.solvers.solve_cg` and
    :func:`harmonic_cg_dense`.

    SciPy's ``cg`` iteration, operation for operation as :func:`sslviz.solvers.solve_cg`
    writes it in NumPy (the products by BLAS ``dgemv``/``ddot`` through ``np.dot``, the
    updates element by element), without the interpreter's cost per iteration. It stops
    after ``iterations`` iterations, once ‖r‖ < max(``atol``, ``rtol``·‖b‖, 1e-30·‖b‖,
    tiny) (the recursively updated residual), or at a breakdown (pᵀA p ≤ 0). ``trace``
    (t, n) bool, if it has rows, gets x > 1/2 after each iteration, ``path`` (t, n), if it
    has rows, x itself (row s − 1 after iteration s; a run that stops early repeats its
    last x: CG's iterates are nested). Returns ``(x, iterations, matvecs, rr, bnorm)``: the
    iterations completed, the products with A (a breakdown's and a nonzero x0's
    included), ‖r‖² and ‖b‖."""
    n = b.shape[0]
    x = np.zeros(n)
    bnorm = np.sqrt(np.dot(b, b))
    if bnorm == 0.0:  # as SciPy: the solution of A x = 0 is 0
        trace[:] = False
        path[:] = 0.0
        return x, 0, 0, 0.0, 0.0
    stop = max(atol, rtol * bnorm, 1e-30 * bnorm, _TINY)
    stop2 = stop * stop
    precondition = diag_inv.size > 0
    matvecs = 0
    if x0.size > 0:
        x[:] = x0
        r = b - np.dot(A, x)
        matvecs = 1
    else:
        r = b.copy()
    z = np.empty(n)
    p = np.empty(n)
    rr = np.dot(r, r)
    it = 0
    rho_prev = 0.0
    while it < iterations and rr >= stop2:
        if precondition:
            for i in range(n):
                z[i] = diag_inv[i] * r[i]
            rho = np.dot(r, z)
        else:
            rho = rr
        beta = rho / rho_prev if it > 0 else 0.0
        src = z if precondition else r
        if it > 0:
            for i in range(n):
                p[i] = src[i] + beta * p[i]
        else:
            p[:] = src
        q = np.dot(A, p)
        pq = np.dot(p, q)
        matvecs += 1
        if not pq > 0.0:  # breakdown: A not positive definite on p, or p = 0
            break
        alpha = rho / pq
        for i in range(n):
            x[i] += alpha * p[i]
            r[i] -= alpha * q[i]
        it += 1
        if trace.shape[0] > 0:
            for i in range(n):
                trace[it - 1, i] = x[i] > 0.5
        if path.shape[0] > 0:
            path[it - 1] = x
        rho_prev = rho
        rr = np.dot(r, r)
    for s in range(it, trace.shape[0]):  # stopped early: x stays
        for i in range(n):
            trace[s, i] = x[i] > 0.5
    for s in range(it, path.shape[0]):
        path[s] = x
    return x, it, matvecs, rr, bnorm


@_jit()
def _pairwise_block(a, lo, n):
    # NumPy's pairwise sum of a block of at most 128 (8 running sums), see _pairwise_sum.
    if n < 8:
        res = -0.0
        for i in range(n):
            res += a[lo + i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    while i < n - n % 8:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@_jit()
def _pairwise_sum(a):
    # NumPy's pairwise sum of ``a`` (its ``add.reduce`` along a contiguous axis, as in
    # ``W.sum(axis=1)``): blocks of at most 128 summed by _pairwise_block, longer runs
    # split in halves (a multiple of 8 first) and the halves' sums added, the same
    # additions in the same order, so the same bits. The halving runs on an explicit stack
    # (Numba's cache cannot load a recursive function).
    n = a.size
    if n <= 128:
        return _pairwise_block(a, 0, n)
    lo = np.empty(64, np.int64)  # a run's start, length and how far it is
    ln = np.empty(64, np.int64)  # (0 new, 1 left half summed, 2 both)
    at = np.zeros(64, np.int64)
    sums = np.empty(64)
    lo[0], ln[0], at[0] = 0, n, 0
    top, k = 1, 0
    while top > 0:
        j = top - 1
        m = ln[j]
        if m <= 128:
            sums[k] = _pairwise_block(a, lo[j], m)
            k += 1
            top -= 1
            continue
        half = m // 2
        half -= half % 8
        if at[j] < 2:
            lo[top] = lo[j] + (half if at[j] == 1 else 0)
            ln[top] = m - half if at[j] == 1 else half
            at[top] = 0
            at[j] += 1
            top += 1
        else:
            sums[k - 2] = sums[k - 2] + sums[k - 1]
            k -= 1
            top -= 1
    return sums[0]


@_jit(error_model="numpy")
def _row_sums(A):
    """``A.sum(axis=1)`` of a C-contiguous (m, n) ``A``, NumPy's bits."""
    out = np.empty(A.shape[0])
    for i in range(A.shape[0]):
        out[i] = 0.0 + _pairwise_sum(A[i])
    return out


@_jit(error_model="numpy")
def _dense_weights(D2, s, square, derivative):
    # W = exp(−D2/σ²) (+inf: no edge, weight 0) and ∂W/∂σ = 2·W·D2/σ³ (0 where W is 0):
    # sslviz.graphs.gaussian_weights with no shift, element for element. A ``square``
    # block gets a zero diagonal, and each symmetric pair's weight once (the same number).
    m, n = D2.shape
    s2 = s * s
    W = np.empty((m, n))
    for i in range(m):
        if square:
            W[i, i] = 0.0
            for j in range(i + 1, n):
                W[i, j] = edge_weight(D2[i, j], s2)
                same = D2[j, i] == D2[i, j]
                W[j, i] = W[i, j] if same else edge_weight(D2[j, i], s2)
        else:
            for j in range(n):
                W[i, j] = edge_weight(D2[i, j], s2)
    if not derivative:
        return W, np.empty((0, 0))
    s3 = s2 * s
    dW = np.empty((m, n))
    for i in range(m):
        for j in range(n):
            dW[i, j] = (W[i, j] * 2.0) * D2[i, j] / s3 if W[i, j] != 0.0 else 0.0
    return W, dW


@_jit(error_model="numpy")
def _anchored(W, to_l):
    # Whether every node reaches one with a weight to L (to_l > 0) along edges i → j with
    # W[i, j] > 0 (sslviz.systems.unanchored finds none).
    n = to_l.size
    reached = to_l > 0
    grown = True
    while grown:
        grown = False
        for i in range(n):
            if not reached[i]:
                for j in range(n):
                    if reached[j] and W[i, j] > 0:
                        reached[i] = grown = True
                        break
    return reached.all()


@_jit(error_model="numpy")
def harmonic_cg_dense(D2_UU, D2_UL, y_l, sigma, iterations, precondition, derivative, trace):
    """Eqs. (1)–(2) by t steps of CG (:func:`cg_dense`; Jacobi-PCG if ``precondition``) on a
    dense graph at one σ, in one call: the operations of
    :meth:`sslviz.labeling.HarmonicModel.soft_labels` there (weights, NumPy's pairwise row
    sums, the products by BLAS, the assembled right-hand side of eq. (2)) in the same order,
    so the same bits. ``D2_UU`` (n_u, n_u) and ``D2_UL`` (n_u, n_l) hold squared distances
    (+inf: no edge). Returns f, f' (empty unless ``derivative``) and the products, or
    products −1 where some node has no path of non-zero weights to L or a row sum is below
    :data:`UNDERFLOW` (f, f' empty: the model's general path holds such nodes at ½).
    ``trace`` (t, n_u) bool, if it has rows, gets f > ½ after each iteration."""
    system = _cg_dense_system(D2_UU, D2_UL, sigma, precondition, derivative)
    if not system[-1]:
        return np.empty(0), np.empty(0), -1
    return _cg_dense_column(system, y_l, iterations, derivative, trace)


@_jit(error_model="numpy")
def harmonic_cg_dense_scores(D2_UU, D2_UL, Y, sigma, iterations, precondition, derivative):
    """:func:`harmonic_cg_dense` for every one-vs-all column at once (docs/method.md §13):
    the weights, row sums and matrix formed once, then each column's t steps of CG on its
    labels ``Y[c]`` (``Y`` (C, n_l), rows contiguous), each column's operations those of
    :func:`harmonic_cg_dense` with ``y_l = Y[c]``, so the same bits. Returns F (n_u, C), F'
    (the same shape; empty unless ``derivative``) and the products over all columns, or
    products −1 where :func:`harmonic_cg_dense` returns it."""
    system = _cg_dense_system(D2_UU, D2_UL, sigma, precondition, derivative)
    n, C = D2_UU.shape[0], Y.shape[0]
    if not system[-1]:
        return np.empty((0, C)), np.empty((0, C)), -1
    F = np.empty((n, C))
    dF = np.empty((n if derivative else 0, C))
    matvecs = 0
    no_trace = np.zeros((0, n), np.bool_)
    for c in range(C):
        f, df, mv = _cg_dense_column(system, Y[c], iterations, derivative, no_trace)
        F[:, c] = f
        if derivative:
            dF[:, c] = df
        matvecs += mv
    return F, dF, matvecs


@_jit(error_model="numpy")
def _cg_dense_system(D2_UU, D2_UL, sigma, precondition, derivative):
    # The σ's part of harmonic_cg_dense that does not read the labels: weights, L_UU, the
    # Jacobi preconditioner, the row sums of W' (empty unless ``derivative``); the last
    # entry False where a row underflows or a node is cut off from L.
    W, dW = _dense_weights(D2_UU, sigma, True, derivative)
    WL, dWL = _dense_weights(D2_UL, sigma, False, derivative)
    to_l = _row_sums(WL)
    deg = _row_sums(W) + to_l
    diag_inv = np.empty(deg.size if precondition else 0)
    ddeg = np.empty(0)
    for i in range(deg.size):
        if deg[i] < UNDERFLOW:
            return W, WL, dW, dWL, diag_inv, ddeg, False
    if not _anchored(W, to_l):
        return W, WL, dW, dWL, diag_inv, ddeg, False
    M = -W
    for i in range(deg.size):
        M[i, i] += deg[i]
    for i in range(diag_inv.size):  # solvers.jacobi: 1 / diag(M)
        diag_inv[i] = 1.0 / M[i, i]
    if derivative:
        ddeg = _row_sums(dW) + _row_sums(dWL)
    return M, WL, dW, dWL, diag_inv, ddeg, True


@_jit(error_model="numpy")
def _cg_dense_column(system, y_l, iterations, derivative, trace):
    # The labels' part of harmonic_cg_dense: eq. (1) and eq. (2) by t steps of CG each.
    M, WL, dW, dWL, diag_inv, ddeg, _ = system
    no_x0, no_path = np.zeros(0), np.zeros((0, 1))
    f, _, matvecs, _, _ = cg_dense(
        M, np.dot(WL, y_l), no_x0, iterations, 0.0, 0.0, diag_inv, trace, no_path
    )
    if not derivative:
        return f, np.empty(0), matvecs
    rhs = np.dot(dWL, y_l) - (ddeg * f - np.dot(dW, f))
    df, _, mv, _, _ = cg_dense(M, rhs, no_x0, iterations, 0.0, 0.0, diag_inv, trace[:0], no_path)
    return f, df, matvecs + mv


@_jit(error_model="numpy")
def gth_dense_factor(A, s):
    """Subtraction-free (GTH) elimination of diag(A 1 + s) − A in place, for a dense
    (m, m) ``A`` of non-negative weights with a zero diagonal and leaks ``s`` (m,), both
    overwritten: below the diagonal the multipliers w_ik/piv_k (the raw weight where k is
    cut), above it the remaining weights. Each pivot is the sum of its row's remaining
    weights and leak, so nothing cancels (docs/method.md §4.3). Returns ``(piv, cut)``: ``cut``
    marks pivots that underflowed to 0 (held at 1/2 by :func:`gth_dense_solve`)."""
    m = s.size
    piv = np.zeros(m)
    cut = np.zeros(m, dtype=np.bool_)
    for k in range(m):
        p = s[k]
        for j in range(k + 1, m):
            p += A[k, j]
        piv[k] = p
        if not p > 0.0:
            cut[k] = True
            for i in range(k + 1, m):
                s[i] += A[i, k]  # weight into a fixed node leaks
            continue
        row_k = A[k, k + 1 :]
        for i in range(k + 1, m):
            mult = A[i, k] / p
            A[i, k] = mult
            if mult != 0.0:
                row_i = A[i, k + 1 :]  # row views: the loop below is vectorised
                for j in range(row_k.size):
                    row_i[j] += mult * row_k[j]
                s[i] += mult * s[k]
    return piv, cut


@_jit(error_model="numpy")
def gth_dense_solve(A, piv, cut, b):
    """Solve with the factors of :func:`gth_dense_factor`."""
    m = b.size
    c = b.copy()
    for k in range(m - 1):
        ck = 0.5 if cut[k] else c[k]
        for i in range(k + 1, m):
            c[i] += A[i, k] * ck
    x = np.zeros(m)
    for k in range(m - 1, -1, -1):
        if cut[k]:
            x[k] = 0.5
            continue
        acc = c[k]
        for j in range(k + 1, m):
            acc += A[k, j] * x[j]
        x[k] = acc / piv[k]
    return x


@_jit(error_model="numpy")
def harmonic_gth_dense(W, WL, dW, dWL, y_l, b, derivative, edges, edges_l):
    """Eqs. (1)–(2) solved exactly by GTH on a dense graph at one σ, from its row-scaled
    weights (and their derivatives, empty unless ``derivative``) and b = W_UL y_L: the
    operations of :meth:`sslviz.labeling.HarmonicModel.soft_labels` there (NumPy's pairwise
    row sums, :func:`gth_dense_factor` and :func:`gth_dense_solve`, eq. (2)'s right-hand
    side summed edge by edge as :func:`sslviz.systems.edge_flux`) in the same order, so the
    same bits. Returns f, f' (empty unless ``derivative``) and the solves, or solves −1
    where the model's general path has more to do: a weight that underflowed (non-zero
    weights other than ``edges`` and ``edges_l``) or a GTH pivot that did."""
    n = W.shape[0]
    if np.count_nonzero(W) != edges or np.count_nonzero(WL) != edges_l:
        return np.empty(0), np.empty(0), -1
    to_l = _row_sums(WL)
    A = W.copy()
    piv, cut = gth_dense_factor(A, to_l)
    if cut.any():
        return np.empty(0), np.empty(0), -1
    f = gth_dense_solve(A, piv, cut, b)
    if not derivative:
        return f, np.empty(0), 1
    flux, flux_l = np.empty((n, n)), np.empty(WL.shape)
    for i in range(n):
        for j in range(n):
            flux[i, j] = (f[j] - f[i]) * dW[i, j]
        for j in range(WL.shape[1]):
            flux_l[i, j] = (y_l[j] - f[i]) * dWL[i, j]
    df = gth_dense_solve(A, piv, cut, _row_sums(flux) + _row_sums(flux_l))
    return f, df, 2


@_jit(error_model="numpy")
def gth_dense_solve_columns(A, piv, cut, B):
    """:func:`gth_dense_solve` of every column of ``B`` (m, C) at once, each column's
    operations those of :func:`gth_dense_solve` in the same order (the same bits), the
    factors read once for all columns."""
    m, C = B.shape
    c = B.copy()
    for k in range(m - 1):
        ck = c[k].copy()
        if cut[k]:
            ck[:] = 0.5
        for i in range(k + 1, m):
            a = A[i, k]
            row = c[i]
            for q in range(C):
                row[q] += a * ck[q]
    X = np.zeros((m, C))
    acc = np.empty(C)
    for k in range(m - 1, -1, -1):
        if cut[k]:
            X[k, :] = 0.5
            continue
        acc[:] = c[k]
        for j in range(k + 1, m):
            a = A[k, j]
            xj = X[j]
            for q in range(C):
                acc[q] += a * xj[q]
        for q in range(C):
            X[k, q] = acc[q] / piv[k]
    return X


@_jit(error_model="numpy")
def harmonic_gth_dense_scores(W, WL, dW, dWL, Y, B, derivative, edges, edges_l):
    """:func:`harmonic_gth_dense` for every one-vs-all column at once (docs/method.md §13):
    one GTH factorisation, then each column's solves of eqs. (1)–(2) with its labels
    ``Y[:, c]`` (``Y`` (n_l, C)) and b = ``B[:, c]`` (``B`` = W_UL Y, (n_u, C)), each column's
    operations those of :func:`harmonic_gth_dense` (the same bits). Returns F, F' (n_u, C;
    F' empty unless ``derivative``) and the solves, or solves −1 where
    :func:`harmonic_gth_dense` returns it."""
    n, C = W.shape[0], Y.shape[1]
    if np.count_nonzero(W) != edges or np.count_nonzero(WL) != edges_l:
        return np.empty((0, C)), np.empty((0, C)), -1
    A = W.copy()
    piv, cut = gth_dense_factor(A, _row_sums(WL))
    if cut.any():
        return np.empty((0, C)), np.empty((0, C)), -1
    F = gth_dense_solve_columns(A, piv, cut, B)
    if not derivative:
        return F, np.empty((0, C)), C
    rhs = np.empty((n, C))
    flux, flux_l = np.empty((n, n)), np.empty(WL.shape)
    for q in range(C):
        for i in range(n):
            fi = F[i, q]
            for j in range(n):
                flux[i, j] = (F[j, q] - fi) * dW[i, j]
            for j in range(WL.shape[1]):
                flux_l[i, j] = (Y[j, q] - fi) * dWL[i, j]
        rhs[:, q] = _row_sums(flux) + _row_sums(flux_l)
    return F, gth_dense_solve_columns(A, piv, cut, rhs), 2 * C


@_jit(error_model="numpy")
def paper_step(sigma, f_prev, step, lam, y_prev, it, tmin, tmax, f, df, deg, bounds, rule):
    """One step of Algorithm 4's iteration of every node from its current σ (paper mode,
    :meth:`sslviz.algorithm4._NodeIterations.advance`): NumPy's operations there, node by
    node (the same IEEE operations in the same order, so the same bits). The state (σ, the
    previous f, the last step, Nesterov's λ, the previous y, the iteration count, the
    iterates' extent) is updated in place for the nodes that go on. ``bounds``: [σ_l, σ_h],
    then ε, root_tol, η and the iteration cap, then per node the lower and the upper end of
    its own sub-bracket (none: only the six); ``rule`` 0 hybrid, 1 gradient, 2 Newton.
    Returns (9, k): finished, root (NaN: none), parked, the next point, a gradient step,
    converged, near ½, flat and outside [σ_l, σ_h], per node (booleans as 0/1)."""
    lo, hi, eps, root_tol, eta, max_iter = (
        bounds[0],
        bounds[1],
        bounds[2],
        bounds[3],
        bounds[4],
        bounds[5],
    )
    k = f.size
    inner = bounds.size > 6
    out = np.zeros((9, k))
    for i in range(k):
        x = sigma[i]
        h = f[i] - 0.5
        g = h * h
        dg = 2.0 * h * df[i]
        near = abs(h) <= root_tol
        converged = (not deg[i]) and abs(f[i] - f_prev[i]) < eps and abs(step[i]) < eps
        flat = (not deg[i]) and (not converged) and dg == 0.0
        root = np.nan
        if (converged and near) or (flat and h == 0.0):
            root = x
        xi_gd = eta * dg
        xi_n = 2.0 * g / dg
        if rule == 1:
            gd = True
        elif rule == 2:
            gd = False
        else:
            gd = abs(xi_gd) < abs(xi_n)
        y_next = x - (xi_gd if gd else xi_n)
        lam_next = (1.0 + np.sqrt(1.0 + 4.0 * lam[i] * lam[i])) / 2.0
        gamma = (1.0 - lam[i]) / lam_next
        new = (1.0 - gamma) * y_next + gamma * y_prev[i] if gd else y_next
        outside = not (lo <= new and new <= hi)  # NaN: outside
        finished = deg[i] or converged or flat or outside or it[i] + 1 >= max_iter
        parked = False
        if not finished:
            if inner:
                parked = not (bounds[6 + i] <= new and new <= bounds[6 + k + i])
            if gd:
                lam[i] = lam_next
            y_prev[i] = y_next
            step[i] = new - x
            f_prev[i] = f[i]
            sigma[i] = new
            tmin[i] = min(tmin[i], new)
            tmax[i] = max(tmax[i], new)
            it[i] += 1
        out[0, i] = finished
        out[1, i] = root
        out[2, i] = parked
        out[3, i] = new
        out[4, i] = gd
        out[5, i] = converged
        out[6, i] = near
        out[7, i] = flat
        out[8, i] = outside
    return out


@_jit(error_model="numpy")
def gth_sparse_factor(w_ptr, w_idx, w_val, leak, l_ptr, l_idx, u_ptr, u_idx):
    """Subtraction-free (GTH) elimination of a grounded Laplacian on a fixed sparse
    structure: :class:`sslviz.solvers.GTHFactorization`, row by row (IKJ).

    The system is diag(W 1 + leak) − W with W (n, n) non-negative off-diagonal weights in
    CSR (``w_ptr``, ``w_idx``, ``w_val``; any diagonal entry is ignored), already in
    elimination order. ``l_ptr``/``l_idx`` and ``u_ptr``/``u_idx`` are the CSR structures
    of the strictly lower and strictly upper parts of its LU factors in that order (each
    row's columns ascending): every entry the elimination fills must be in them. Row k of
    the Schur complement is built in a dense work vector from W's row k and the finished
    rows m < k; its pivot is the sum of its remaining weights and of its leak (what
    flowed to the grounded nodes), so nothing cancels. Returns ``piv`` (n,), ``lval`` (the
    multipliers w_km/piv_m ≥ 0, or the raw weight w_km where node m is cut), ``uval``
    (the remaining weights ≥ 0 of each row to later nodes) and ``cut`` (n,): nodes whose
    pivot underflowed to 0, held at 1/2 by :func:`gth_sparse_solve`.
    """
    n = leak.size
    work = np.zeros(n)
    lval = np.empty(l_idx.size)
    uval = np.empty(u_idx.size)
    piv = np.empty(n)
    kept_leak = np.empty(n)  # each node's leak when it was eliminated
    cut = np.zeros(n, dtype=np.bool_)
    for k in range(n):
        for q in range(w_ptr[k], w_ptr[k + 1]):
            if w_idx[q] != k:
                work[w_idx[q]] = w_val[q]
        s = leak[k]
        for q in range(l_ptr[k], l_ptr[k + 1]):
            m = l_idx[q]
            w = work[m]
            work[m] = 0.0
            if cut[m]:  # weight into a node held at 1/2 leaks
                lval[q] = w
                s += w
                continue
            mult = w / piv[m]
            lval[q] = mult
            s += mult * kept_leak[m]
            for p in range(u_ptr[m], u_ptr[m + 1]):
                j = u_idx[p]
                if j != k:  # the flow k → m → k is a self-loop: it drops out
                    work[j] += mult * uval[p]
        total = s
        for p in range(u_ptr[k], u_ptr[k + 1]):
            j = u_idx[p]
            uval[p] = work[j]
            total += work[j]
            work[j] = 0.0
        kept_leak[k] = s
        piv[k] = total
        if not total > 0.0:
            cut[k] = True
    return piv, lval, uval, cut


@_jit(error_model="numpy")
def gth_sparse_solve(l_ptr, l_idx, lval, u_ptr, u_idx, uval, piv, cut, b):
    """Solve with the factors of :func:`gth_sparse_factor` (elimination order)."""
    n = b.size
    c = np.empty(n)
    for k in range(n):
        acc = b[k]
        for q in range(l_ptr[k], l_ptr[k + 1]):
            m = l_idx[q]
            acc += lval[q] * (0.5 if cut[m] else c[m])
        c[k] = acc
    x = np.empty(n)
    for k in range(n - 1, -1, -1):
        if cut[k]:
            x[k] = 0.5
            continue
        acc = c[k]
        for p in range(u_ptr[k], u_ptr[k + 1]):
            acc += uval[p] * x[u_idx[p]]
        x[k] = acc / piv[k]
    return x


def warm_up() -> None:
    """Compile the kernels now (Numba caches them on disk): installs call this, so the
    first sweep in the app or the CLI does not wait for the compiler."""
    ptr = np.array([0, 1, 2], dtype=np.uint64)
    idx = np.array([0, 1], dtype=np.uint64)
    for pre in (False, True):
        cg_csr(ptr, idx, np.ones((2, 1)), np.ones((2, 1)), 2, np.ones((2, 1)), pre, NO_TRACE)
    for diag_inv in (np.empty(0), np.ones(2)):
        for x0, path in ((NO_X0, NO_PATH), (np.ones(2), np.zeros((2, 2)))):
            cg_dense(np.eye(2), np.ones(2), x0, 2, 0.0, 0.0, diag_inv, NO_TRACE_ONE, path)
    one = np.ones(1)
    state = [one.copy() for _ in range(5)] + [np.zeros(1, np.int64)] + [one.copy(), one.copy()]
    paper_step(*state, one, one, np.zeros(1, np.bool_), np.array([0.0, 2, 1, 1, 1, 9]), 0)
    A = np.array([[0.0, 1.0], [1.0, 0.0]])
    piv, cut = gth_dense_factor(A, np.ones(2))
    gth_dense_solve(A, piv, cut, np.ones(2))
    gth_dense_solve_columns(A, piv, cut, np.ones((2, 2)))
    one_ptr = np.array([0, 1, 2], dtype=np.int64)
    one_idx = np.array([1, 0], dtype=np.int64)
    lp, li = np.array([0, 0, 1], dtype=np.int64), np.zeros(1, np.int64)
    up, ui = np.array([0, 1, 1], dtype=np.int64), np.ones(1, np.int64)
    piv, lv, uv, cut = gth_sparse_factor(one_ptr, one_idx, np.ones(2), np.ones(2), lp, li, up, ui)
    gth_sparse_solve(lp, li, lv, up, ui, uv, piv, cut, np.ones(2))
    X = np.zeros((3, 2))
    for writable in (True, False):  # points loaded from a file are read-only
        X.setflags(write=writable)
        knn_exhaustive(X, X, 1, True)
    D2, D2_L, y_l = np.array([[0.0, 1.0], [1.0, 0.0]]), np.ones((2, 1)), np.ones(1)
    for a in (D2, D2_L, y_l):  # a model's arrays are read-only
        a.setflags(write=False)
    for trace in (NO_TRACE_ONE, np.zeros((2, 2), np.bool_)):
        for precondition in (False, True):
            harmonic_cg_dense(D2, D2_L, y_l, 1.0, 2, precondition, True, trace)
    for precondition in (False, True):
        harmonic_cg_dense_scores(D2, D2_L, np.ones((2, 1)), 1.0, 2, precondition, True)
    iptr = np.array([0, 0, 1], dtype=np.int64)
    harmonic_cg(
        np.ones(1),
        np.ones(1),
        np.ones(1),
        iptr,
        np.zeros(1, np.int64),
        np.array([0, 1, 1], dtype=np.int64),
        np.ones(1),
        np.ones(2, np.bool_),
        np.arange(2, dtype=np.int64),
        ptr,
        idx,
        np.full(2, -1, np.int64),
        2,
        True,
        True,
        NO_TRACE,
    )


@_jit(error_model="numpy")
def hermite_split(a, b, ha, hb, da, db, ga, gb, basis, touch):
    """The Hermite split test of :func:`sslviz.crossings.needs_split`, decision for decision.

    Each non-degenerate node's cubic Hermite interpolant on [a, b] (values ``ha``/``hb``,
    derivatives ``da``/``db``) is evaluated at the fractions whose basis functions are the
    rows of ``basis`` (4, q), in the order of operations of NumPy's
    ``h00·ha + h10·w·da + h01·hb + h11·w·db``, so the values are the same bits. True when
    some node's sign changes more often than its ends say, or when an interior value comes
    within ``touch`` of 0 and below half its smaller end value (a pair of crossings the
    cubic may hide).
    """
    w = b - a
    q = basis.shape[1]
    vals = np.empty(q + 2)
    for i in range(ha.size):
        if ga[i] or gb[i]:
            continue
        vals[0] = ha[i]
        vals[q + 1] = hb[i]
        for k in range(q):
            vals[k + 1] = (
                basis[0, k] * ha[i] + basis[1, k] * w * da[i] + basis[2, k] * hb[i]
            ) + basis[3, k] * w * db[i]
        changes = 0
        for k in range(q + 1):
            if np.sign(vals[k + 1]) - np.sign(vals[k]) != 0.0:
                changes += 1
        differ = np.sign(ha[i]) != np.sign(hb[i])
        if changes > (1 if differ else 0):
            return True
        if differ:
            continue
        # Near-touch: NumPy's argmin would stop at a NaN, whose comparisons are all False.
        low = np.inf
        at = 0
        nan = False
        for k in range(q + 2):
            m = abs(vals[k])
            if m != m:
                nan = True
                break
            if m < low:
                low, at = m, k
        if nan:
            continue
        ends = min(abs(vals[0]), abs(vals[q + 1]))
        if 0 < at < q + 1 and low < touch and low < 0.5 * ends:
            return True
    return False


@_jit(error_model="numpy")
def refine_step(
    x, hn, dn, lo, hi, hlo, hhi, side, prop, prev_step, root, act, fast, newton_ok, rtol
):
    """One step of the bracketed root search of :func:`sslviz.crossings.refine_roots`, in
    place, element for element as its NumPy form did it (so the same bits).

    ``hn``/``dn``: every node's h and h' at the σ ``x`` just evaluated. Each node still
    open whose bracket (lo, hi) holds x (``act``) moves one end to x (Illinois: an end kept
    twice in a row has its value halved), then proposes its next point: the Newton step
    while steps at least halve (``fast``; only when ``newton_ok``), else the midpoint, or
    the Illinois secant when ``newton_ok`` is False. A node is done at a zero, a Newton
    step below 1e-3·rtol·x, or a bracket narrower than rtol·lo. Returns the next σ to
    evaluate and its node (the first open one), or ``(nan, -1)`` when all are done.
    """
    k = lo.size
    for i in range(k):
        a = root[i] != root[i] and lo[i] < x and x < hi[i]
        act[i] = a
        fast[i] = False
        if not a:
            continue
        h = hn[i]
        if (h > 0 and hlo[i] > 0) or (h < 0 and hlo[i] < 0) or (h == 0 and hlo[i] == 0):
            if side[i] == 1:
                hhi[i] *= 0.5
            lo[i] = x
            hlo[i] = h
            side[i] = 1
        else:
            if side[i] == -1:
                hlo[i] *= 0.5
            hi[i] = x
            hhi[i] = h
            side[i] = -1
        step = h / dn[i] if dn[i] != 0 else np.inf
        newton = x - step
        if newton_ok:
            fast[i] = abs(step) <= 0.5 * prev_step[i]
            prop[i] = newton if fast[i] else 0.5 * (lo[i] + hi[i])
            prev_step[i] = abs(step)
        else:
            prop[i] = lo[i] - hlo[i] * (hi[i] - lo[i]) / (hhi[i] - hlo[i])
            step = np.inf
        if h == 0:
            root[i] = x
        elif abs(step) < 1e-3 * (rtol * x) and lo[i] <= newton and newton <= hi[i]:
            root[i] = newton
    nxt = -1
    for i in range(k):
        if root[i] != root[i] and hi[i] - lo[i] <= rtol * lo[i]:
            root[i] = 0.5 * (lo[i] + hi[i])
        if nxt < 0 and root[i] != root[i]:
            nxt = i
    if nxt < 0:
        return np.nan, -1
    p = prop[nxt]
    return (p if lo[nxt] < p and p < hi[nxt] else 0.5 * (lo[nxt] + hi[nxt])), nxt


@_jit()
def _sgn(x):
    """np.sign: −1, 0, 1, or NaN for NaN."""
    if x > 0:
        return 1.0
    if x < 0:
        return -1.0
    return 0.0 if x == 0 else x


@_jit(error_model="numpy")
def root_proposals(a, b, ha, hb, da, db, s, basis):
    """First points of the root search of :func:`sslviz.crossings.refine_roots` on [a, b]:
    for each node (values ``ha``/``hb``, derivatives ``da``/``db``, shape (k,)), the first
    sign change of its cubic Hermite interpolant at the fractions ``s`` (basis functions
    ``basis`` (4, q), evaluated in the order NumPy evaluates them), linearly interpolated;
    the secant root where the cubic does not change sign."""
    w = b - a
    q = basis.shape[1]
    prop = np.empty(ha.size)
    vals = np.empty(q)
    for i in range(ha.size):
        prop[i] = a + (b - a) * ha[i] / (ha[i] - hb[i])
        for t in range(q):
            first = basis[0, t] * ha[i] + basis[1, t] * w * da[i]
            vals[t] = (first + basis[2, t] * hb[i]) + basis[3, t] * w * db[i]
        for t in range(q - 1):
            if _sgn(vals[t]) != _sgn(vals[t + 1]):
                prop[i] = a + (b - a) * (
                    s[t] + (s[t + 1] - s[t]) * vals[t] / (vals[t] - vals[t + 1])
                )
                break
    return prop


@_jit(error_model="numpy")
def _cg_eval(x, st, d, dl, pattern, dense, iterations, precondition):
    """One σ of the compiled search: h = f − ½ and f' of fixed-t CG, stored in the search
    state ``st``: :func:`harmonic_cg`'s numbers (a batch of one σ) on the sparse system
    ``d``, ``dl``, ``pattern``, or :func:`harmonic_cg_dense`'s on the dense one, ``dense`` =
    (D2_UU, D2_UL, y_l), where that has rows. Returns the row, or −1 where the kernel hands
    the σ over (underflowing weights; the Python search takes over). A σ already evaluated
    is found in ``S`` (σ of each row), not solved again."""
    S, H, D, mv, count = st
    for r in range(count[0]):
        if S[r] == x:
            return r
    k = count[0]
    if k == H.shape[0]:  # grow the rows first (the caller's arrays are replaced in the state)
        return -2
    if dense[0].shape[0] > 0:
        D2_UU, D2_UL, y_l = dense
        no_trace = np.zeros((0, D2_UU.shape[0]), np.bool_)
        f, df, m = harmonic_cg_dense(D2_UU, D2_UL, y_l, x, iterations, precondition, True, no_trace)
    else:
        sig = np.full(1, x)
        no_trace = np.zeros((0, 1, 1), np.bool_)
        F, DF, ok, ms = harmonic_cg(d, dl, sig, *pattern, iterations, precondition, True, no_trace)
        if not ok[0]:
            return -1
        f, df, m = F[:, 0], DF[:, 0], ms[0]
    if m < 0:
        return -1
    for u in range(f.shape[0]):
        H[k, u] = f[u] - 0.5
        D[k, u] = df[u]
    mv[k] = m
    S[k] = x
    count[0] = k + 1
    return k


@_jit(error_model="numpy")
def cg_search(
    grid,
    todo,
    st,
    d,
    dl,
    pattern,
    dense,
    iterations,
    precondition,
    degenerate,
    basis,
    root_s,
    root_basis,
    rtol,
    touch,
    min_width,
    max_evaluations,
    pause_at,
):
    """The Hermite search of :func:`sslviz.truth.true_loss_curve` on fixed-t CG soft labels
    of a harmonic model (Algorithm 4's fast mode), sparse or dense (:func:`_cg_eval`),
    compiled: the same σ in the same order, the same split test (:func:`hermite_split`)
    and root steps (:func:`refine_step`, Illinois secant: CG's f' is not a derivative), so
    the same bits. ``st`` = (σ of each row, H, D, matvecs, [count]) holds every σ
    evaluated, in the order evaluated.

    ``todo`` (rows (a, b), the last searched next) is the search's stack where it stopped;
    with no rows the search starts from ``grid``. Returns (status, roots σ and their nodes
    found in this call, the stack where it stopped): status 0 done, −1 a σ where a weight
    underflows (the Python search, which solves it another way, runs instead), −2 the rows
    are full (call again with more), −3 paused once ``pause_at`` σ are stored (call again
    to go on: a caller reports progress between calls)."""
    roots_s = []
    roots_u = []
    stack = [(todo[i, 0], todo[i, 1]) for i in range(todo.shape[0])]
    if todo.shape[0] == 0:
        for x in grid:
            r = _cg_eval(x, st, d, dl, pattern, dense, iterations, precondition)
            if r < 0:
                return r, roots_s, roots_u, todo
        for i in range(grid.size - 2, -1, -1):
            stack.append((grid[i], grid[i + 1]))
    S, H, D, mv, count = st
    n = degenerate.size
    while len(stack):
        if count[0] >= pause_at:
            return -3, roots_s, roots_u, _stack_rows(stack)
        a, b = stack.pop()
        ia = _cg_eval(a, st, d, dl, pattern, dense, iterations, precondition)
        ib = _cg_eval(b, st, d, dl, pattern, dense, iterations, precondition)
        if ia < 0 or ib < 0:
            stack.append((a, b))  # rows full: searched again, from its stored σ, next call
            return min(ia, ib), roots_s, roots_u, _stack_rows(stack)
        if (
            (b - a) > min_width * a
            and count[0] < max_evaluations
            and hermite_split(
                a, b, H[ia], H[ib], D[ia], D[ib], degenerate, degenerate, basis, touch
            )
        ):
            m = 0.5 * (a + b)
            stack.append((m, b))
            stack.append((a, m))
            continue
        nodes = np.empty(n, np.int64)  # the nodes whose sign differs at the two ends
        k = 0
        for u in range(n):
            if not degenerate[u] and _sgn(H[ia, u]) != _sgn(H[ib, u]) and H[ia, u] != 0:
                nodes[k] = u
                k += 1
        if k == 0:
            continue
        nodes = nodes[:k]
        lo = np.full(k, a)
        hi = np.full(k, b)
        hlo = H[ia][nodes]
        hhi = H[ib][nodes]
        side = np.zeros(k, np.int64)
        prop = root_proposals(a, b, hlo, hhi, D[ia][nodes], D[ib][nodes], root_s, root_basis)
        root = np.full(k, np.nan)
        prev_step = np.full(k, b - a)
        act = np.zeros(k, np.bool_)
        fast = np.zeros(k, np.bool_)
        j = 0
        x = prop[0] if lo[0] < prop[0] and prop[0] < hi[0] else 0.5 * (lo[0] + hi[0])
        hn = np.empty(k)
        dn = np.empty(k)
        for _ in range(100 * k):
            if j < 0:
                break
            r = _cg_eval(x, st, d, dl, pattern, dense, iterations, precondition)
            if r < 0:
                stack.append((a, b))
                return r, roots_s, roots_u, _stack_rows(stack)
            for i in range(k):
                hn[i] = H[r, nodes[i]]
                dn[i] = D[r, nodes[i]]
            x, j = refine_step(
                x, hn, dn, lo, hi, hlo, hhi, side, prop, prev_step, root, act, fast, False, rtol
            )
        for i in range(k):
            if root[i] != root[i]:
                root[i] = 0.5 * (lo[i] + hi[i])
            roots_s.append(root[i])
            roots_u.append(nodes[i])
    return 0, roots_s, roots_u, np.empty((0, 2))


@_jit()
def _stack_rows(stack):
    """:func:`cg_search`'s stack of cells (a, b) as rows of an (m, 2) array."""
    out = np.empty((len(stack), 2))
    for i in range(len(stack)):
        out[i, 0], out[i, 1] = stack[i]
    return out
