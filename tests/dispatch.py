"""CPU dispatches to run the tests under (README, "Reproducibility").

``python tests/dispatch.py`` prints the value of ``NPY_DISABLE_CPU_FEATURES`` that leaves
NumPy on its baseline dispatch on this CPU: every dispatch target NumPy was built with
and this CPU has (on an AVX-512 machine, for example, ``X86_V3 X86_V4 AVX512_ICL``).
Empty where NumPy has none above its baseline here.
"""

from __future__ import annotations

import os


def numpy_targets_above_baseline() -> list[str]:
    """NumPy's dispatch targets that this CPU supports (its SIMD code above the baseline)."""
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    return [name for name in __cpu_dispatch__ if __cpu_features__.get(name)]


def dispatch_environments() -> dict[str, dict[str, str]]:
    """Environments for subprocesses, by name: this CPU's own dispatch, NumPy's baseline
    only, and the compiled kernels built for a generic CPU (``NUMBA_CPU_NAME``)."""
    names = ("NPY_DISABLE_CPU_FEATURES", "NUMBA_CPU_NAME")
    base = {k: v for k, v in os.environ.items() if k not in names}
    disabled = " ".join(numpy_targets_above_baseline())
    return {
        "native": base,
        "numpy-baseline": {**base, "NPY_DISABLE_CPU_FEATURES": disabled},
        "numba-generic": {**base, "NUMBA_CPU_NAME": "generic"},
    }


if __name__ == "__main__":
    print(" ".join(numpy_targets_above_baseline()))
