#!/usr/bin/env bash
# The tests, as CI runs them (after `bash scripts/install.sh test`): ruff (lint and format),
# then the whole suite on this CPU's own dispatch, and the tests marked `dispatch` (those
# that compare bits or results across paths: the kernels against their NumPy forms and the
# references of tests/reference.py, one σ against a batch, the compiled search against the
# Python one, thread counts) again under two others, so that a result promised bit for bit
# on every path cannot rest on one CPU's arithmetic (README, Reproducibility):
#   - NumPy on its baseline SIMD code only (NPY_DISABLE_CPU_FEATURES names every target
#     above the baseline that this CPU has: tests/dispatch.py);
#   - the compiled kernels built for a generic CPU (NUMBA_CPU_NAME=generic).
# Extra arguments go to every pytest run (e.g. -x, -k NAME).
set -euo pipefail
cd "$(dirname "$0")/.."
ruff check .
ruff format --check .
pytest=(python -m pytest -q -p no:cacheprovider -m "slow or not slow" "$@")
"${pytest[@]}"
# tests/unit/test_cross_dispatch.py runs every dispatch itself: once is enough.
others=(-m dispatch --ignore=tests/unit/test_cross_dispatch.py)
echo "== NumPy baseline dispatch: NPY_DISABLE_CPU_FEATURES='$(python tests/dispatch.py)'"
NPY_DISABLE_CPU_FEATURES="$(python tests/dispatch.py)" "${pytest[@]}" "${others[@]}"
echo "== compiled kernels for a generic CPU: NUMBA_CPU_NAME=generic"
NUMBA_CPU_NAME=generic "${pytest[@]}" "${others[@]}"
