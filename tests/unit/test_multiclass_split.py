"""``sslviz loss --parts/--jobs/--dask``: the multi-class exact curve searched on σ
sub-ranges (docs/method.md §13.3), the same bytes wherever the sub-ranges run."""

import json

import pytest

from sslviz.cli import main
from sslviz.export import loss_document, without_timings
from sslviz.problem import build_problem
from sslviz.specs import ProblemSpec
from sslviz.truth import split_loss_curve

THREE = ["loss", "--dataset", "digits", "--classes", "3", "5", "8", "--n", "90"]
THREE += ["--labeled", "9", "--seed", "0", "--family", "knn", "--k", "6"]
THREE += ["--sigma-min", "1", "--sigma-max", "12"]
TWO = ["loss", "--dataset", "digits", "--classes", "3", "5", "--n", "90", "--labeled", "9"]


def _json(tmp_path, args, name="out.json") -> str:
    out = tmp_path / name
    assert main([*args, "--no-timings", "--json", "--out", str(out)]) == 0
    return out.read_text()


def _refused(capsys, args) -> str:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("sslviz: error: "), err
    return err


def test_one_part_is_todays_single_search(tmp_path):
    """--parts 1 (the default) writes the bytes of the command without it, and no parts."""
    plain = _json(tmp_path, THREE, "plain.json")
    assert _json(tmp_path, [*THREE, "--parts", "1"], "one.json") == plain
    assert "parts" not in json.loads(plain)["settings"]


def test_parts_are_the_split_curve_the_same_bytes_serially_and_on_two_processes(tmp_path):
    """--parts 3: the JSON is split_loss_curve's (called here directly), records the parts,
    and is the same bytes on one and on two local processes."""
    serial = _json(tmp_path, [*THREE, "--parts", "3", "--jobs", "1"], "serial.json")
    assert _json(tmp_path, [*THREE, "--parts", "3", "--jobs", "2"], "two.json") == serial
    doc = json.loads(serial)
    assert doc["settings"]["parts"] == 3
    spec = ProblemSpec(
        dataset="digits", classes=(3, 5, 8), n=90, n_labeled=9, seed=0, family="knn", k=6
    )
    p = build_problem(spec)
    curve = split_loss_curve(p.model, p.instance.y, p.instance.classes, 1.0, 12.0, 3, n_jobs=1)
    direct = json.loads(json.dumps(without_timings(loss_document(p, curve, (1.0, 12.0), 3))))
    assert doc["breakpoints"] == direct["breakpoints"] and doc == direct
    whole = json.loads(_json(tmp_path, THREE, "whole.json"))
    # against the single search: the same pieces' losses (their σ to the location tolerance)
    assert [q["loss"] for q in doc["pieces"]] == [q["loss"] for q in whole["pieces"]]
    assert doc["best"]["loss"] == whole["best"]["loss"] and doc["inconsistent"] == 0


@pytest.mark.timeout(180)
def test_parts_on_a_dask_cluster_are_the_same_bytes(tmp_path):
    """The sub-ranges on a two-worker Dask LocalCluster (in this process): the same JSON."""
    distributed = pytest.importorskip("dask.distributed")
    args = [*THREE, "--parts", "3"]
    local = _json(tmp_path, [*args, "--jobs", "1"], "local.json")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        remote = _json(tmp_path, [*args, "--dask", cluster.scheduler_address], "dask.json")
    assert remote == local


@pytest.mark.parametrize(
    "args, says",
    [
        ([*THREE, "--parts", "0"], "--parts must be a whole number between 1 and 1,024"),
        ([*THREE, "--parts", "two"], "--parts"),
        ([*THREE, "--jobs", "2"], "--jobs run the σ sub-ranges: give --parts 2 or more"),
        ([*THREE, "--parts", "1", "--dask", "x:1"], "--dask run the σ sub-ranges"),
        ([*TWO, "--parts", "2"], "--parts splits the search of three or more classes"),
        (
            [*THREE[:-4], "--family", "threshold", "--parts", "2"],
            "--parts splits the search of three or more classes on a Gaussian family",
        ),
    ],
)
def test_bad_values_exit_2_with_one_line(capsys, args, says):
    assert says in _refused(capsys, args)


@pytest.mark.timeout(60)
def test_an_unreachable_scheduler_is_one_line(capsys):
    dask = pytest.importorskip("dask")
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        err = _refused(capsys, [*THREE, "--parts", "2", "--dask", "tcp://127.0.0.1:9"])
    assert "cannot run on the Dask scheduler at tcp://127.0.0.1:9" in err
