"""What `sslviz COMMAND` prints: a summary read off the JSON document (with --out, or on a
terminal), the JSON itself otherwise (--json, or a pipe), the JSON's bytes the same in
every case."""

import contextlib
import io
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from sslviz import summary
from sslviz.cli import _where, build_parser, command_line, main
from sslviz.sentences import cause_words
from sslviz.specs import ProblemSpec, SweepSettings

ROOT = Path(__file__).resolve().parents[2]
D = ["--dataset", "digits", "--classes", "3", "8", "--n", "60", "--labeled", "6"]
COMMANDS = {
    "loss": ["loss", *D, "--family", "complete"],
    "threshold": ["loss", *D, "--family", "threshold"],
    "intervals": ["intervals", *D, "--family", "complete", "--score"],
    "certified": ["intervals", *D, "--family", "complete", "--cg-iters", "3", "--certify"],
    "condition": ["condition", *D, "--family", "knn", "--sigmas", "0.2:3:8", "--trust"],
    "regret": [
        "regret",
        *D,
        "--family",
        "knn",
        "--sigma-min",
        "0.5",
        "--sigma-max",
        "5",
        "--rounds",
        "4",
        "--repeats",
        "2",
        "--jobs",
        "1",
    ],
    "learn": [
        "learn",
        *D,
        "--family",
        "knn",
        "--k-range",
        "3:4",
        "--instances",
        "3",
        "--test-instances",
        "2",
        "--curve",
        "1,2",
        "--repeats",
        "2",
        "--compare-t",
        "5",
        "--jobs",
        "1",
    ],
}
"""Small instances (digits 3 vs 8, n = 60) with something to say: breakpoints, misses,
a capped iteration count, a learned k."""

SNAKE = re.compile(r"\b[a-z0-9]+_[a-z0-9_]+\b")
"""A snake_case identifier (``lo_node``, ``t_needed_cg``), as no summary line may hold."""


def _main(argv: list[str]) -> tuple[int, str, str]:
    """``main(argv)`` with standard output and error captured (neither is a terminal)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


class Ran:
    """One command run with ``--no-timings --out FILE``: the JSON bytes, the document,
    the printed lines (the summary, then where the JSON went) and standard error."""

    def __init__(self, argv: list[str], folder: Path, timings: bool = False) -> None:
        self.argv = argv + ([] if timings else ["--no-timings"])
        self.file = folder / "out.json"
        rc, self.stdout, self.stderr = _main([*self.argv, "--out", str(self.file)])
        assert rc == 0, self.stderr
        self.bytes = self.file.read_bytes()
        self.doc = json.loads(self.bytes)
        self.lines = self.stdout.splitlines()

    def line(self, start: str) -> str:
        """The one summary line that starts with ``start``."""
        found = [x for x in self.lines if x.startswith(start)]
        assert len(found) == 1, (start, self.lines)
        return found[0]


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    cache: dict[str, Ran] = {}

    def get(name: str) -> Ran:
        if name not in cache:
            cache[name] = Ran(COMMANDS[name], tmp_path_factory.mktemp(name))
        return cache[name]

    return get


# -- the summary of each command, against its document --------------------------------------


def test_loss_summary_states_the_documents_numbers(ran):
    r = ran("loss")
    d, n_u = r.doc, r.doc["n_unlabeled"]
    assert 3 <= len(r.lines) <= 15
    assert r.lines[0].startswith("exact loss l(σ) of digits, classes 3 vs 8, n = 60, |L| = 6")
    assert "complete graph" in r.lines[0] and "harmonic labeling" in r.lines[0]
    s = d["settings"]
    assert r.line("σ range:") == f"σ range: {s['sigma_min']:.4g} to {s['sigma_max']:.4g}"
    b = d["breakpoints"]
    assert len(b) == 3  # the instance has something to show
    assert r.line("breakpoints:") == "breakpoints: 3, at σ ≈ " + ", ".join(f"{x:.4g}" for x in b)
    assert r.line("pieces:").startswith(f"pieces: {len(d['pieces'])}, loss from ")
    losses = sorted(round(p["loss"] * n_u) for p in d["pieces"])
    assert f"from {losses[0]}/{n_u} " in r.line("pieces:")
    assert f"to {losses[-1]}/{n_u} " in r.line("pieces:")
    best = d["best"]
    k = round(best["loss"] * n_u)
    assert r.line("best loss:") == (
        f"best loss: {k}/{n_u} ({100 * best['loss']:.1f}%), for σ in "
        f"[{best['lo']:.4g}, {best['hi']:.4g}]"
    )
    assert d["degenerate"]["ranges"] == []
    assert r.line("cut off from the labels:").endswith("no node anywhere in the range")
    assert r.line("exact solves:") == f"exact solves: {d['solves']}, at {d['evaluations']} σ"
    assert r.lines[-1] == f"JSON written to {r.file}"


def test_loss_summary_of_the_threshold_family_speaks_of_r_and_cut_off_nodes(ran):
    r = ran("threshold")
    d = r.doc
    assert d["parameter"] == "r" and r.lines[0].startswith("exact loss l(r) of ")
    assert r.line("breakpoints:").startswith(f"breakpoints: {len(d['breakpoints'])}, at r ≈ ")
    ranges = d["degenerate"]["ranges"]
    assert ranges
    cut = r.line("cut off from the labels:")
    assert f"up to {d['degenerate']['max_count']} of the {d['n_unlabeled']} unlabeled" in cut
    assert f"for r in [{ranges[0]['lo']:.4g}, {ranges[-1]['hi']:.4g}]" in cut


def test_intervals_summary_names_solver_mode_work_and_the_scores_causes(ran):
    r = ran("intervals")
    d, sc = r.doc, r.doc["score"]
    assert 3 <= len(r.lines) <= 15
    assert r.line("solver") == f"solver CG-20, fast mode: M = {d['M']} intervals"
    assert r.line("work:") == f"work: {d['solves']} solves, {d['matvecs']:,} matrix-vector products"
    assert "time_per_interval" not in d and "per interval (wall" not in r.stdout  # --no-timings
    assert sc["missed"] and sc["spurious"]  # the instance has misses to explain
    assert r.line("score") == (
        f"score (tolerance 0.001): {sc['missed']} of {sc['true_breakpoints']} true breakpoints "
        f"missed, {sc['spurious']} spurious endpoints, ε-volume {sc['eps_volume']:.3g}"
    )
    words = SweepSettings()  # CG-20, the verdict's words for its causes
    for key, start in (("miss_causes", "missed:"), ("spurious_causes", "spurious:")):
        said = r.line(start).removeprefix(start + " ").split(", ")
        want = [f"{k} {cause_words(c, words)}" for c, k in sc[key].items() if k]
        assert said == want
    assert sum(int(p.split()[0]) for p in r.line("missed:")[8:].split(", ")) == sc["missed"]


def test_intervals_summary_with_timings_says_the_time_per_interval(tmp_path):
    r = Ran(COMMANDS["intervals"], tmp_path, timings=True)
    ms = 1e3 * r.doc["time_per_interval"]
    assert f"; {ms:.3g} ms per interval (wall time of this run)" in r.line("work:")


def test_certified_intervals_summary_counts_the_proofs(ran):
    r = ran("certified")
    c = r.doc["certify"]
    assert r.line("solver").startswith("solver certified CG-3, fast mode: M = ")
    assert r.line("certified:") == (
        f"certified: {c['certified_sigmas']} of {c['evaluations']} σ proven by CG, "
        f"{c['exact_fallbacks']} by an exact solve; CG iterations per σ "
        f"{c['iterations']['min']} to {c['iterations']['max']}"
    )
    assert not any(x.startswith("score") for x in r.lines)  # no --score, no score line


def test_condition_summary_writes_a_capped_count_as_more_than_the_cap(ran):
    r = ran("condition")
    d = r.doc
    its, sig = d["iterations_needed"], d["sigma"]
    cap = 10 * 54  # |U| = 60 − 6 rows, none cut off: CG stopped at 10 per row
    assert max(its) == cap and its[0] == cap and min(d["degenerate"]) == 0
    line = r.line("CG iterations needed")
    assert f"> {cap} at 1 σ (σ = {sig[0]:.3g}: stopped at the cap" in line
    measured = [t for t in its if t < cap]
    assert f"{min(measured)} (σ = " in line and f"to {max(measured)} (σ = " in line
    assert f" {cap} (σ" not in line and f"to {cap}" not in line  # never as a measurement
    assert r.line("σ grid:") == f"σ grid: {len(sig)} points from {sig[0]:.3g} to {sig[-1]:.3g}"
    k = d["sqrt_kappa"]
    assert r.line("√κ(I − P_UU):") == (
        f"√κ(I − P_UU): from {min(k):.3g} (σ = {sig[k.index(min(k))]:.3g}) to "
        f"{max(k):.3g} (σ = {sig[k.index(max(k))]:.3g})"
    )
    assert r.line("trust") == f"trust (the same 8-point grid): {d['trust']['reading']}"


def test_condition_caps_are_ten_per_row_of_the_system_cg_ran_on():
    from sslviz.conditioning import condition_curve
    from sslviz.problem import build_problem

    problem = build_problem(ProblemSpec(classes=(3, 8), n=60, n_labeled=6, family="knn"))
    curve = condition_curve(problem.model, [0.2, 1.0])
    assert curve.iteration_cap.tolist() == [540, 540]
    assert curve.reached.tolist() == [False, True]  # 0.2: stopped at the cap


def test_condition_summary_of_unrepresentable_and_all_capped_grids(ran):
    doc = json.loads(json.dumps(ran("condition").doc))
    n = len(doc["sigma"])
    doc["iterations_needed"] = [-1] + [540] * (n - 1)
    line = next(x for x in summary.condition_summary(doc, [540] * n) if "iterations" in x)
    assert line.endswith(
        f": > 540 at {n - 1} σ ({doc['sigma'][1]:.4g}, {doc['sigma'][2]:.4g}, … "
        f"{doc['sigma'][-1]:.4g}: stopped at the cap, 10 iterations per unknown); none at 1 σ "
        "(the system is not representable)"
    )


def test_regret_summary_gives_each_models_final_regret_and_band(ran):
    r = ran("regret")
    d = r.doc
    assert 3 <= len(r.lines) <= 15
    assert r.line("4 rounds × 2 repetitions; step size λ = ").endswith("on average")
    for name, m in d["models"].items():
        by = " (CG-20)" if name == "approx" else ""
        assert r.line(f"  {name} feedback") == (
            f"  {name} feedback{by}: {m['regret_mean'][-1]:.3g} "
            f"({m['regret_low'][-1]:.3g} to {m['regret_high'][-1]:.3g})"
        )
    lo, hi = d["models"]["approx"]["best_sigma"]
    assert f"σ in [{lo:.4g}, {hi:.4g}]" in r.line("best fixed σ in hindsight")
    assert r.line("Theorem 3.1's rate") == f"Theorem 3.1's rate after 4 rounds: {d['rate'][-1]:.3g}"


def test_regret_progress_stays_on_standard_error(ran):
    r = ran("regret")
    assert "repetition 1/2 done" in r.stderr and "done" not in r.stdout


def test_learn_summary_gives_sigma_hat_erm_losses_and_k(ran):
    r = ran("learn")
    d = r.doc
    assert 3 <= len(r.lines) <= 15
    assert r.lines[0].startswith("σ learned from m = 3 training and 2 held-out instances of ")
    ks = [row["k"] for row in d["grid"]]
    assert r.line("k̂ =") == f"k̂ = {d['k']}, the k of the smallest training average over k = 3..4"
    assert ks == [3, 4]
    erm = d["erm"]
    ivs = ", ".join(f"[{iv['lo']:.4g}, {iv['hi']:.4g}]" for iv in erm["intervals"])
    assert ivs in r.line("ERM on the exact losses:")
    assert r.line("ERM on").startswith(
        f"ERM on the exact losses: training average {100 * erm['loss']:.1f}%"
    )
    assert r.line("ERM on").endswith(f"σ̂ = {d['sigma_hat']:.3g}")
    t = d["test"]
    assert r.line("held-out:") == (
        f"held-out: σ̂ loses {100 * t['loss_at_sigma_hat']:.1f}%, {100 * t['excess']:.1f} "
        f"points above the best σ there ({100 * t['best_loss']:.1f}%); uniform gap "
        f"{100 * t['uniform_gap']:.1f} points"
    )
    c = d["learning_curve"]
    assert r.line("learning curve").startswith(
        f"learning curve (mean of 2 draws): m = 1: excess {100 * c['excess']['mean'][0]:.1f} points"
    )
    a = d["approximate"][0]
    assert r.line("on Algorithm 4's estimates:") == (
        f"on Algorithm 4's estimates: CG-5 σ̂ = {a['sigma_hat']:.3g}, held-out "
        f"{100 * a['test_loss']:.1f}% ({100 * a['excess_over_exact_erm']:+.1f} points)"
    )


def test_no_summary_line_holds_a_snake_case_name(ran):
    assert SNAKE.search("the lo_node_u column") and not SNAKE.search("√κ(I − P_UU), σ̂ = 1")
    for name in COMMANDS:
        r = ran(name)
        lines = r.lines[:-1] + [_where(None)]  # the last names the --out path, a user's
        bad = [x for x in lines if SNAKE.search(x)]
        assert not bad, (name, bad)


def test_the_summary_is_the_documents_as_written(ran):
    """The printed summary is the summary function of the JSON the file holds."""
    functions = {
        "loss": summary.loss_summary,
        "threshold": summary.loss_summary,
        "intervals": summary.intervals_summary,
        "certified": summary.intervals_summary,
        "regret": summary.regret_summary,
        "learn": summary.learn_summary,
    }
    for name, function in functions.items():
        r = ran(name)
        assert r.lines[:-1] == function(r.doc), name


# -- where the JSON goes: its bytes never change ---------------------------------------------


@pytest.mark.parametrize("name", ["loss", "condition", "learn"])
def test_json_bytes_are_the_same_with_out_json_or_a_pipe(ran, tmp_path, name):
    r = ran(name)
    rc, printed, _ = _main([*r.argv, "--json"])
    assert rc == 0 and printed == r.bytes.decode() + "\n"
    rc, piped, _ = _main(r.argv)  # standard output is no terminal: the JSON, as before
    assert rc == 0 and piped == printed
    quiet = tmp_path / "quiet.json"
    rc, nothing, _ = _main([*r.argv, "--json", "--out", str(quiet)])
    assert rc == 0 and nothing == "" and quiet.read_bytes() == r.bytes


def test_a_terminal_gets_the_summary_and_no_json(ran, capsys, monkeypatch):
    r = ran("loss")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(r.argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:-1] == r.lines[:-1]
    assert lines[-1] == "JSON not written: add --out FILE to keep it, or --json to print it"
    assert main([*r.argv, "--json"]) == 0
    assert capsys.readouterr().out == r.bytes.decode() + "\n"


@pytest.mark.slow
def test_a_real_terminal_gets_the_summary(ran):
    """The command in a pseudo-terminal, as a person runs it."""
    import os
    import pty

    r = ran("loss")
    parent, child = pty.openpty()
    p = subprocess.run(
        [sys.executable, "-m", "sslviz.cli", *r.argv],
        stdout=child,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        timeout=120,
    )
    os.close(child)
    chunks = []
    while True:
        try:
            chunk = os.read(parent, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(parent)
    assert p.returncode == 0, p.stderr
    text = b"".join(chunks).decode().replace("\r\n", "\n")
    printed = re.sub(r"\x1b\[[0-9;]*m", "", text).splitlines()  # Numba's colour reset at exit
    assert printed[:-1] == r.lines[:-1] and printed[-1].startswith("JSON not written")


def test_help_says_where_the_output_goes_and_what_no_timings_promises(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["loss", "--help"])
    flat = " ".join(capsys.readouterr().out.split())
    assert "--json" in flat and "a short summary" in flat and "the JSON goes to FILE only" in flat
    assert "within 1e-10 relative" in flat and "machine to machine" not in flat


# -- errors: exit 2, one line, nothing on standard output ------------------------------------


def test_an_out_folder_that_does_not_exist_is_refused_before_any_work(tmp_path):
    rc, out, err = _main([*COMMANDS["loss"], "--out", str(tmp_path / "no" / "x.json")])
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "create it or write elsewhere" in err
    rc, out, err = _main([*COMMANDS["loss"], "--out", str(tmp_path)])
    assert rc == 2 and "is a folder; give a file name" in err


@pytest.mark.parametrize(
    "args, said",
    [
        (["nope"], "nope is not a command: choose loss, condition, intervals, regret, learn or cv"),
        ([], "give a command: loss, condition, intervals, regret, learn or cv"),
        (["loss", "--family", "x"], "--family x: choose complete, knn, mutual-knn or threshold"),
        (["loss", "--n", "abc"], "--n abc: not a whole number"),
        (["loss", "--classes", "1"], "--classes must name 2 to 10 different classes"),
        (["loss", "--n"], "--n: give a value"),
        (["loss", "--bogus"], "unknown option --bogus"),
        (["condition", "--sigmas", "7:1:3"], "--sigmas 7:1:3: X must be above 0 and below Y"),
        (["condition", "--family", "threshold"], "use --family complete, knn or mutual-knn"),
    ],
)
def test_the_clis_own_messages_are_words(args, said):
    rc, out, err = _main(args)
    assert rc == 2 and out == ""
    assert said in err and len(err.strip().splitlines()) == 1
    assert "Got" not in err and not re.search(r"'[\w:.-]+'", err.split(" (see ")[0])


def test_command_line_refuses_a_table_the_command_does_not_take_in_words():
    with pytest.raises(ValueError) as info:
        command_line("loss", SweepSettings())
    text = str(info.value)
    assert "SweepSettings" not in text
    assert text == (
        "sslviz loss does not take the solver and Algorithm 4 settings; it takes those of: "
        "instance, graph and labeling; bandwidth range; σ sub-ranges"
    )


# -- the docs show real output ---------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("doc", ["README.md", "docs/cli.md"])
def test_the_docs_example_output_is_what_the_command_prints(doc, tmp_path, monkeypatch):
    """The example command of the README's "Command line" section and of docs/cli.md's
    "What it prints", and the block after it, verbatim."""
    text = (ROOT / doc).read_text()
    found = re.search(r"```bash\n(sslviz [^`]*?)```\n\n[^`]*?\n```\n(.*?)```", text, re.S)
    assert found, doc
    monkeypatch.chdir(tmp_path)  # the example's --out file is written here
    rc, printed, _ = _main(shlex.split(found[1].replace("\\\n", " "))[1:])
    assert rc == 0 and printed == found[2]
