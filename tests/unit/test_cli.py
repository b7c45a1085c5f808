"""The `sslviz` command line: JSON contracts and one-line errors (exit status 2)."""

import json
import subprocess
import sys

import numpy as np
import pytest

from sslviz.cli import main

BASE = [
    "--dataset",
    "digits",
    "--classes",
    "0",
    "1",
    "--n",
    "60",
    "--labeled",
    "6",
    "--family",
    "knn",
    "--k",
    "6",
]


def _run(tmp_path, args):
    out = tmp_path / "out.json"
    rc = main([*args, "--out", str(out)])
    return rc, (json.loads(out.read_text()) if rc == 0 else None)


@pytest.fixture
def npz(tmp_path):
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 30)
    X = rng.normal(size=(60, 5)) + 2.0 * y[:, None]
    labeled = np.zeros(60, bool)
    labeled[[0, 1, 2, 30, 31, 32]] = True
    path = tmp_path / "inst.npz"
    np.savez(path, X=X, y=y, labeled=labeled)
    return path


@pytest.mark.parametrize("family", ["complete", "knn", "mutual-knn", "threshold"])
def test_loss_contract(tmp_path, family):
    rc, d = _run(
        tmp_path,
        [
            "loss",
            *BASE[:-4],
            "--family",
            family,
            "--k",
            "6",
            "--sigma-min",
            "0.5",
            "--sigma-max",
            "5",
        ],
    )
    assert rc == 0
    b = np.array(d["breakpoints"])
    assert np.all(np.diff(b) > 0) and (b.size == 0 or (b[0] > 0.5 and b[-1] < 5))
    assert len(d["nodes"]) == b.size
    p = d["pieces"]
    assert p[0]["lo"] == 0.5 and p[-1]["hi"] == 5
    assert [q["hi"] for q in p[:-1]] == [q["lo"] for q in p[1:]] == d["breakpoints"]
    assert all(0 <= q["loss"] <= 1 for q in p)
    assert {"loss", "lo", "hi"} <= set(d["best"])
    assert {"degenerate", "seconds"} <= set(d)


def test_loss_nodes_are_rows_of_the_file(tmp_path, npz):
    """With a `labeled` mask the instance is the file's rows; nodes index those rows."""
    rc, d = _run(
        tmp_path,
        [
            "loss",
            "--data-file",
            str(npz),
            "--classes",
            "0",
            "1",
            "--pca",
            "0",
            "--family",
            "knn",
            "--k",
            "6",
            "--sigma-min",
            "0.5",
            "--sigma-max",
            "6",
        ],
    )
    assert rc == 0
    labeled = np.load(npz)["labeled"]
    for nodes in d["nodes"]:
        assert nodes and all(not labeled[r] for r in nodes)


def test_condition_contract(tmp_path):
    rc, d = _run(tmp_path, ["condition", *BASE, "--sigmas", "1:7:13"])
    assert rc == 0
    np.testing.assert_allclose(d["sigma"], np.linspace(1, 7, 13))
    assert len(d["kappa"]) == 13 and min(d["kappa"]) >= 1


@pytest.mark.parametrize("mode", ["fast", "paper"])
def test_intervals_contract(tmp_path, mode):
    rc, d = _run(
        tmp_path,
        [
            "intervals",
            *BASE,
            "--sigma-min",
            "1",
            "--sigma-max",
            "5",
            "--solver",
            "cg",
            "--cg-iters",
            "20",
            "--mode",
            mode,
            "--score",
        ],
    )
    assert rc == 0
    assert {"intervals", "seconds", "solves", "matvecs", "score"} <= set(d)
    for iv in d["intervals"]:
        assert 1 <= iv["lo"] <= iv["hi"] <= 5 and 0 <= iv["loss"] <= 1
    assert {"missed", "spurious", "eps_volume", "true_breakpoints"} <= set(d["score"])


def test_regret_contract(tmp_path):
    T = 4
    rc, d = _run(
        tmp_path,
        [
            "regret",
            *BASE,
            "--sigma-min",
            "0.5",
            "--sigma-max",
            "5",
            "--rounds",
            str(T),
            "--repeats",
            "2",
            "--jobs",
            "1",
            "--feedback",
            "approx,exact,full,uniform",
            "--cg-iters",
            "20",
        ],
    )
    assert rc == 0
    for m in ("approx", "exact", "full", "uniform"):
        r = d["models"][m]
        for key in ("regret_mean", "regret_low", "regret_high"):
            assert len(r[key]) == T
        assert "best_sigma" in r and "seconds" in r


ERRORS = {
    "sigma_min": (["loss", *BASE, "--sigma-min", "0", "--sigma-max", "2"], "--sigma-min must"),
    "order": (["loss", *BASE, "--sigma-min", "3", "--sigma-max", "2"], "than --sigma-max 2"),
    "k": (["loss", *BASE[:-2], "--k", "60", "--sigma-min", "1", "--sigma-max", "2"], "--k 60"),
    "k0": (["loss", *BASE[:-2], "--k", "0", "--sigma-min", "1", "--sigma-max", "2"], "--k must"),
    "labeled": (
        ["loss", *BASE[:7], "--labeled", "1", *BASE[9:], "--sigma-min", "1", "--sigma-max", "2"],
        "--labeled must",
    ),
    "labeled_n": (
        ["loss", *BASE[:7], "--labeled", "60", *BASE[9:], "--sigma-min", "1", "--sigma-max", "2"],
        "--labeled 60 must be smaller than --n",
    ),
    "class": (
        [
            "loss",
            "--dataset",
            "digits",
            "--classes",
            "0",
            "42",
            *BASE[5:],
            "--sigma-min",
            "1",
            "--sigma-max",
            "2",
        ],
        "42",
    ),
    "dataset": (
        ["loss", "--dataset", "nope", *BASE[2:], "--sigma-min", "1", "--sigma-max", "2"],
        "nope",
    ),
    "file": (
        ["loss", "--data-file", "/no/such.npz", *BASE[2:], "--sigma-min", "1", "--sigma-max", "2"],
        "no such file",
    ),
    "epsilon": (
        ["intervals", *BASE, "--sigma-min", "1", "--sigma-max", "2", "--epsilon", "0"],
        "--epsilon must",
    ),
    "cg_iters": (
        ["intervals", *BASE, "--sigma-min", "1", "--sigma-max", "2", "--cg-iters", "0"],
        "--cg-iters must",
    ),
    "sigmas": (["condition", *BASE, "--sigmas", "1:7"], "X:Y:COUNT"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_bad_arguments_exit_2_with_one_line(name, capsys):
    args, match = ERRORS[name]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("sslviz: error:")
    assert match in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "args, said",
    [
        (["nope"], "nope is not a command: choose loss, condition"),
        (["loss", "--n", "abc"], "--n abc: not a whole number"),
        (["loss", "--sigma-min", "x"], "--sigma-min x: not a number"),
    ],
)
def test_usage_errors_read_as_sentences(args, said, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert said in err and "sslviz sslviz" not in err and "parse" not in err
    assert err.endswith(f"(see 'sslviz {args[0] + ' ' if len(args) > 1 else ''}--help')")


def test_unreadable_file_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    assert main(["loss", "--data-file", str(bad), "--sigma-min", "1", "--sigma-max", "2"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_console_script_runs():
    p = subprocess.run(
        [sys.executable, "-m", "sslviz.cli", "--version"], capture_output=True, text=True
    )
    assert p.returncode == 0 and "sslviz" in p.stdout


@pytest.mark.parametrize(
    "command",
    [
        ["loss", "--sigma-min", "0.6", "--sigma-max", "3"],
        ["intervals", "--sigma-min", "0.6", "--sigma-max", "3", "--score"],
        ["condition", "--sigmas", "0.6:3:5", "--trust"],
        ["regret", "--sigma-min", "0.6", "--sigma-max", "3", "--rounds", "3", "--repeats", "1"],
    ],
)
def test_no_timings_output_is_identical_from_run_to_run(tmp_path, command):
    """Without the measured times a view's JSON is the same bytes every run (the
    app's downloads are these bytes); with them the contract's 'seconds' keys are there."""
    args = [*command, "--dataset", "digits", "--classes", "2", "3", "--n", "50", "--labeled", "6"]
    texts = []
    for i in range(2):
        out = tmp_path / f"run{i}.json"
        assert main([*args, "--no-timings", "--out", str(out)]) == 0
        texts.append(out.read_bytes())
    assert texts[0] == texts[1]
    assert b'"seconds"' not in texts[0] and b"time_per_interval" not in texts[0]
    rc, timed = _run(tmp_path, args)
    assert rc == 0 and "seconds" in json.dumps(timed)
