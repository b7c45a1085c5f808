"""One BLAS/OpenMP thread inside every computation: results identical to the bit.

OpenBLAS splits a product or a dot over its threads, and the split (so the rounding)
depends on the thread count: the same loss curve computed with one and with two threads
differs in the last bits of a breakpoint, and a discrete result (an iteration count, a
node's side of ½) can flip where it sits on a rounding edge. On the small systems of this
project one thread is also faster, since the threads' start-up costs more than they save
(``benchmarks/reproducible.py``).

So importing ``sslviz`` sets one BLAS/OpenMP thread for the process (:func:`pin_process`;
``SSLVIZ_THREADS=n`` in the environment sets another count, to measure the difference). It
has to be the process: OpenBLAS ignores a limit set from a worker thread once one was set
and restored in the main thread, so a limit set per call in a server's session threads would
not hold. :func:`one_thread` also wraps the public entry points (loss curves, sweeps,
conditioning, the online experiment): a caller that raised the count in the main thread gets
one thread inside them and its own count back after. That limit is reference-counted, so
concurrent computations never restore it under each other.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import scipy.linalg  # noqa: F401 - load SciPy's BLAS too before the libraries are listed
import scipy.sparse.linalg  # noqa: F401
from threadpoolctl import ThreadpoolController

F = TypeVar("F", bound=Callable[..., Any])

THREADS = max(1, int(os.environ.get("SSLVIZ_THREADS", "1") or 1))
"""The thread count inside computations (``SSLVIZ_THREADS``; 1 unless set, for measuring)."""

_lock = threading.Lock()
_active = 0
_restore: Any = None
_pinned = False
_controller: ThreadpoolController | None = None


def _get_controller() -> ThreadpoolController:
    global _controller
    if _controller is None:
        _controller = ThreadpoolController()
    return _controller


def _enter() -> None:
    global _active, _restore
    with _lock:
        if _active == 0:
            _restore = _get_controller().limit(limits=THREADS)
        _active += 1


def _exit() -> None:
    global _active, _restore
    with _lock:
        _active -= 1
        if _active == 0 and _restore is not None:
            _restore.restore_original_limits()
            _restore = None


def one_thread(func: F) -> F:
    """Run ``func`` with one BLAS/OpenMP thread (see the module docstring)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        _enter()
        try:
            return func(*args, **kwargs)
        finally:
            _exit()

    return wrapper  # type: ignore[return-value]


def pin_process() -> None:
    """One BLAS/OpenMP thread for the rest of this process (app server, CLI)."""
    global _pinned
    with _lock:
        if not _pinned:
            _get_controller().limit(limits=THREADS)
            _pinned = True


def running() -> int:
    """How many wrapped computations are running in this process now (all threads)."""
    return _active


def blas_threads() -> int:
    """The BLAS thread count in force now (the largest over the loaded libraries)."""
    info = [lib["num_threads"] for lib in _get_controller().info() if lib["user_api"] == "blas"]
    return max(info, default=1)


WORKERS = max(1, min(os.cpu_count() or 1, int(os.environ.get("SSLVIZ_WORKERS", "2") or 1)))
"""Threads that solve independent systems side by side (:func:`parallel_map`): the cores,
at most 2 unless ``SSLVIZ_WORKERS`` says otherwise. Each system is still solved with one
BLAS thread, so the results do not depend on this number."""


def parallel_map(func: Callable, items: list) -> list:
    """``[func(x) for x in items]``, on :data:`WORKERS` threads when there are two items
    or more (LAPACK and NumPy's elementwise functions release the GIL). Every call does
    the same arithmetic whichever thread runs it: the results are the serial ones."""
    if WORKERS == 1 or len(items) < 2:
        return [func(x) for x in items]
    with ThreadPoolExecutor(max_workers=min(WORKERS, len(items))) as pool:
        return list(pool.map(func, items))


def can_fork() -> bool:
    """True where :func:`process_map` forks its workers (Linux, no other thread running)."""
    return sys.platform == "linux" and threading.active_count() == 1


def process_map(
    func: Callable, items: list, n_jobs: int, done: Callable[[int], None] | None = None
) -> list:
    """``[func(x) for x in items]`` on ``n_jobs`` local worker processes (-1: every core);
    ``done(i)`` is called as the results come back in order (i of them so far).

    Where this process runs no other thread (the CLI, a script) on Linux, the workers are
    forked from it: they start at once with everything it has imported, loaded and
    compiled, where joblib's fresh workers each import sslviz, SciPy and scikit-learn and
    load the compiled kernels first. Anywhere else (a server's threads, a notebook)
    forking is not safe, and joblib runs them. The results are the same either way: each
    task's arithmetic is its own, on one BLAS thread (the pin is inherited).
    """
    if n_jobs < 0:
        from joblib import cpu_count

        n_jobs = cpu_count()
    workers = min(n_jobs, len(items))
    if workers <= 1:
        results = map(func, items)
    elif can_fork():
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            return _collect(pool.map(func, items), done)
    else:
        from joblib import Parallel, delayed

        parallel = Parallel(
            n_jobs=workers, return_as="generator", batch_size=1, idle_worker_timeout=WORKER_IDLE
        )
        results = parallel(delayed(func)(x) for x in items)
    return _collect(results, done)


WORKER_IDLE = 3600
"""Seconds an idle joblib worker process stays up. Its start costs seconds of imports
(see :func:`process_map`), so a server keeps its workers between runs."""


def warm_workers(task: Callable[[int], Any], n_jobs: int = WORKERS) -> None:
    """Start the ``n_jobs`` joblib worker processes that :func:`process_map` uses where it
    cannot fork (a server), and run ``task(i)`` once in each (imports, compiled kernels
    loaded, data read), so that a first run there waits for no start-up. Nothing where
    :func:`process_map` would run serially or fork."""
    if n_jobs <= 1 or can_fork():
        return
    process_map(task, list(range(n_jobs)), n_jobs)
    _WARMED.set()


_WARMED = threading.Event()


BEHIND = 10
"""How much lower (Linux ``nice``) :func:`lower_priority` puts a background thread's CPU
priority by default."""


def lower_priority(by: int = BEHIND) -> None:
    """Lower the calling thread's CPU priority by ``by`` (Linux: ``nice`` is per thread, and
    the threads and processes it starts inherit it), so that background work (a server's
    worker processes starting, their imports) gives way to a browser or a visitor's run on
    the same cores and takes every cycle they leave. Nothing where the platform has no
    per-thread priority or refuses."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, 0, os.getpriority(os.PRIO_PROCESS, 0) + by)


def workers_warm() -> bool:
    """Whether :func:`warm_workers` has finished in this process: its worker processes are
    up, so that work sent to them waits for no start-up (seconds of imports each)."""
    return _WARMED.is_set()


def _collect(results, done: Callable[[int], None] | None) -> list:
    out = []
    for x in results:
        out.append(x)
        if done is not None:
            done(len(out))
    return out


def map_tasks(
    func: Callable,
    items: list,
    *,
    n_jobs: int = -1,
    dask: str | None = None,
    done: Callable[[int], None] | None = None,
) -> list:
    """``[func(x) for x in items]`` on local workers (:func:`process_map`) or, with ``dask``
    (a scheduler address), on a Dask cluster; the results, in order, are the same either way.
    ``done(i)`` is called as results come back (i of them so far)."""
    if dask is None:
        return process_map(func, items, n_jobs, done)
    try:
        from dask.distributed import Client, as_completed
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "Running on a Dask cluster needs dask[distributed]; install sslviz[dask]."
        ) from exc
    with Client(dask, set_as_default=False) as client:
        futures = client.map(func, items, pure=False)
        for i, _ in enumerate(as_completed(futures, loop=client.loop), start=1):
            if done is not None:
                done(i)
        return list(client.gather(futures))
