"""Across machines, what is promised (README, "Reproducibility"): a ``--no-timings`` JSON
computed on another CPU differs only in the last bits of floats, with the same keys,
counts, losses, nodes and causes.

Another CPU is stood in for by this one's other dispatches: NumPy on its baseline SIMD
code only (its ``exp`` then is not the AVX-512 one) and the compiled kernels built for a
generic CPU.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from dispatch import dispatch_environments

pytestmark = pytest.mark.slow  # subprocesses under three dispatches

FLOAT_TOL = 1e-10  # |a − b| ≤ FLOAT_TOL · max(1, |a|, |b|) for every float
EXACT_FLOATS = {"loss"}  # a piece's loss: a count of wrong nodes over |U|

COMMANDS = {
    "loss-knn": "loss --dataset digits --classes 0 1 --n 120 --family knn --k 6 "
    "--sigma-min 1 --sigma-max 7",
    "loss-complete": "loss --dataset digits --classes 2 3 --n 100 --family complete",
    "intervals-fast": "intervals --dataset digits --classes 2 3 --n 100 --family complete "
    "--solver cg --cg-iters 20 --mode fast --score",
    "intervals-knn-pcg": "intervals --dataset digits --classes 4 9 --n 150 --family knn --k 8 "
    "--sigma-min 1.5 --sigma-max 5 --solver pcg --cg-iters 5 --mode fast --score",
    "regret": "regret --dataset digits --n 60 --labeled 10 --family knn --k 6 --sigma-min 0.5 "
    "--sigma-max 5 --rounds 6 --repeats 2 --feedback approx,exact,full,uniform --cg-iters 20",
}


def assert_same_but_last_bits(a, b, path: str = "") -> int:
    """The two JSON values agree: the same keys, lengths, strings, integers and booleans;
    floats to FLOAT_TOL (exactly for the keys in EXACT_FLOATS). Returns how many floats
    differed in their last bits."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), path
        return sum(assert_same_but_last_bits(a[k], b[k], f"{path}.{k}") for k in a)
    if isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), f"{path}: {len(a)} != {len(b)}"
        return sum(
            assert_same_but_last_bits(x, y, f"{path}[{i}]")
            for i, (x, y) in enumerate(zip(a, b, strict=True))
        )
    if isinstance(a, float) and isinstance(b, float):
        if path.rsplit(".", 1)[-1] in EXACT_FLOATS:
            assert a == b, f"{path}: {a!r} != {b!r}"
        assert abs(a - b) <= FLOAT_TOL * max(1.0, abs(a), abs(b)), f"{path}: {a!r} != {b!r}"
        return int(a != b)
    assert type(a) is type(b) and a == b, f"{path}: {a!r} != {b!r}"
    return 0


def _run(command: str, env: dict[str, str], out) -> dict:
    args = [sys.executable, "-m", "sslviz.cli", *command.split(), "--no-timings", "--out", str(out)]
    subprocess.run(args, env=env, check=True, capture_output=True, timeout=600)
    return json.loads(out.read_text())


@pytest.mark.parametrize("name", list(COMMANDS))
def test_other_dispatches_differ_only_in_last_bits(name, tmp_path):
    envs = dispatch_environments()
    native = _run(COMMANDS[name], envs.pop("native"), tmp_path / "native.json")
    for dispatch, env in envs.items():
        other = _run(COMMANDS[name], env, tmp_path / f"{dispatch}.json")
        assert_same_but_last_bits(native, other, dispatch)


def test_the_comparison_catches_what_it_must():
    """A changed count, loss or key fails; a float off in its last bits passes."""
    piece = {"lo": 1.0, "hi": 1.2345678901234, "loss": 0.25}
    doc = {"pieces": [piece], "M": 3}
    assert assert_same_but_last_bits(doc, json.loads(json.dumps(doc))) == 0
    near = {"pieces": [{**piece, "hi": piece["hi"] * (1 + 4e-16)}], "M": 3}
    assert assert_same_but_last_bits(doc, near) == 1
    bad = [
        {**doc, "M": 4},
        {**doc, "extra": 1},
        {"pieces": [{**piece, "loss": math.nextafter(0.25, 1.0)}], "M": 3},
        {"pieces": [{**piece, "hi": 1.2346}], "M": 3},
    ]
    for other in bad:
        with pytest.raises(AssertionError):
            assert_same_but_last_bits(doc, other)
