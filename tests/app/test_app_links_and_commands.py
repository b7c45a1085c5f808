"""Seven app bugs fixed together, one test each (streamlit.testing; commands run through
``sslviz.cli.main``).

Each docstring names the bug and says what the code before commit 059caac did on
the same steps, run in a worktree of that commit.
"""

import math

import numpy as np
import pandas as pd
import pytest
from apptest_helpers import (
    PAGES,
    chart,
    chart_data,
    charts,
    code_lines,
    download,
    download_json,
    metrics,
    open_tab,
    run_cli,
    start,
    values,
)

from sslviz.problem import build_problem, suggest_sigma_range
from sslviz.specs import ProblemSpec
from sslviz.words import COLUMN_WORDS as W
from ui import cache, sidebar, url

SMALL = {"n": "60", "labeled": "6"}
TIMED = {"time per interval"}  # metrics measured anew by every run


def widgets(at) -> dict:
    """Every settings control of the page (widget keys ``w_*``) and its value."""
    out = {}
    for kind in ("number_input", "selectbox", "multiselect", "radio", "checkbox"):
        for w in at.get(kind):
            if w.key and w.key.startswith("w_"):
                v = w.value
                out[w.key] = list(v) if isinstance(v, tuple) else v
    return out


def _nan_free(x):
    """``x`` with NaN written as the string "nan", so that equal views compare equal."""
    if isinstance(x, dict):
        return {k: _nan_free(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_nan_free(v) for v in x]
    return "nan" if isinstance(x, float) and math.isnan(x) else x


def numbers(at) -> list:
    """What the page shows: metrics (timings aside), every chart's data and every table."""
    shown = {k: v for k, v in metrics(at).items() if k not in TIMED}
    tables = [
        df.value.drop(columns=[W["seconds"], W["time_per_interval"]], errors="ignore").to_dict(
            "list"
        )
        for df in at.dataframe
    ]
    return _nan_free([shown, chart_data(at), tables])


def sigma_range(at) -> tuple[float, float]:
    return at.number_input(key="w_sigma_min").value, at.number_input(key="w_sigma_max").value


def suggested(**changes) -> tuple[float, float]:
    return suggest_sigma_range(build_problem(ProblemSpec(**changes)))


def forget_regret_results() -> None:
    """Empty the app's regret memo, so the next Run computes the experiment anew."""
    cache.REGRET_RUNS.clear()


def title_row(at) -> int:
    """The instance row named in the drill-down chart's title (``soft label f_u(σ), row N``)."""
    text = chart(at, 1)["layout"]["annotations"][0]["text"]
    assert text.startswith("soft label f_u(σ), row "), text
    return int(text.rsplit(" ", 1)[1])


def digits_38_csv(path) -> str:
    """scikit-learn's digits of classes 3 and 8 as a CSV: 64 feature columns and ``label``."""
    from sklearn.datasets import load_digits

    d = load_digits()
    keep = np.isin(d.target, [3, 8])
    df = pd.DataFrame(d.data[keep], columns=[f"x{i}" for i in range(d.data.shape[1])])
    df["label"] = d.target[keep]
    df.to_csv(path, index=False)
    return str(path)


# --------------------------------------------------------------------------------------
# a. the regret page on a rerun and in a second session
# --------------------------------------------------------------------------------------


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_a_regret_rerun_and_second_session_show_the_same_result():
    """Bug a — "Online regret page crashes on a rerun".

    Before commit 059caac: n=60, |L|=6, rounds 3, repeats 1: the first Run drew 3 charts; pressing
    Run again raised ``CacheReplayClosureError: While running `regret()`, a streamlit
    element is called on some layout block created outside the function`` and drew no
    chart; a second session with the same settings got the same exception and no chart.
    """
    query = SMALL | {"rounds": "3", "repeats": "1", "classes": "3,8"}
    forget_regret_results()
    at = start(PAGES["regret"], query)
    assert len(charts(at)) == 3  # the default-sized run draws by itself
    at.button(key="reg_run").click().run()
    assert not at.exception and not at.error
    assert len(charts(at)) == 3
    first = numbers(at)
    at.button(key="reg_run").click().run()  # Run again, same settings
    assert not at.exception and not at.error
    assert numbers(at) == first

    other = start(PAGES["regret"], query)  # another session: the result is shown at once
    assert not other.exception and numbers(other) == first
    other.button(key="reg_run").click().run()
    assert not other.exception and numbers(other) == first

    forget_regret_results()  # and computed anew in a third session, the same numbers
    third = start(PAGES["regret"], query)
    third.button(key="reg_run").click().run()
    assert not third.exception and numbers(third) == first


# --------------------------------------------------------------------------------------
# b. a shared link shows the same view
# --------------------------------------------------------------------------------------


def _same_view_from_link(at, page: str, *, run_button: str | None = None) -> None:
    """Start a new session from ``at``'s link: same controls, same numbers."""
    query = dict(at.query_params)
    again = start(page, query)
    assert not again.exception and not again.warning, [w.value for w in again.warning]
    if run_button and not charts(again):
        again.button(key=run_button).click().run()
    assert widgets(again) == widgets(at)
    assert numbers(again) == numbers(at)


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_b_home_link_carries_every_sidebar_setting():
    """Bug b — "A shared link shows a different view" (sidebar).

    Before commit 059caac the sidebar's settings were in the link (classes as c0, c1); the page
    controls were not (tests below). Here every sidebar control is set away from its
    default, one run at a time, and a new session from the link shows the same controls,
    metrics and charts.
    """
    at = start(None)
    steps = {
        "w_classes_0": 3,
        "w_classes_1": 8,
        "w_n": 70,
        "w_labeled": 8,
        "w_seed": 3,
        "w_pca": 20,
        "w_family": "mutual-knn",
        "w_k": 5,
        "w_labeling": "delalleau",
        "w_subset": 30,
        "w_lam": 2.0,
        "w_solver": "pcg",
        "w_t": 12,
        "w_mode": "paper",
        "w_epsilon": 1e-5,
        "w_eta": 0.5,
        "w_step": 0.1,
        "w_max_iter": 50,
        "w_root_tol": 0.02,
    }
    for key, value in steps.items():  # one at a time, as a user would
        at.get_by_key(key).set_value(value).run()
    at.number_input(key="w_sigma_min").set_value(0.9).run()
    at.number_input(key="w_sigma_max").set_value(3.1).run()
    assert not at.exception and not at.error
    assert at.query_params["classes"] == "3,8" and at.query_params["lam"] == "2.0"
    assert (at.query_params["sigma_min"], at.query_params["sigma_max"]) == ("0.9", "3.1")
    _same_view_from_link(at, "app.py")


@pytest.mark.parametrize(
    "page, tables",
    [
        (None, ("ProblemSpec", "SigmaRange", "SweepSettings")),
        ("loss", ("LossView",)),
        ("conditioning", ("ConditionSettings",)),
        ("regret", ("RegretSettings",)),
        ("speed", ("SpeedGrid",)),
        ("cg_iterations", ("ConvergenceView",)),
    ],
)
@pytest.mark.slow  # over 2 s: outside the quick run
def test_b_every_setting_in_the_link_has_a_control(page, tables):
    """Bug b — a setting that travels in the link must be one the page lets the user set.

    Before commit 059caac the page controls had widgets but no URL keys; the other way round, a
    row with a URL key and no widget (e.g. a row added to a table later) could only be
    set by editing the link. Every URL key of the page's tables has its control
    (``w_<url key>``; classes as two selectboxes, the dataset as the source picker). A
    model's own rows show with that model only: each model with rows of its own is opened once.
    """
    from sslviz import specs as S
    from ui import views

    base = {"n": "60", "labeled": "6"}
    queries = [base | {"labeling": "delalleau", "subset": "20"}]
    if "ProblemSpec" in tables:  # LabelSpreading's α box shows with that model only
        queries.append(base | {"labeling": "spreading", "alpha": "0.5"})
    keys = set()
    for query in queries:
        at = start(PAGES.get(page), query)
        assert not at.exception and not at.error
        keys |= set(widgets(at))
    special = {"classes": {"w_classes_0", "w_classes_1"}, "dataset": {"w_source"}}
    for name in tables:
        for field, row in S.table(getattr(S, name, None) or getattr(views, name)):
            if row.url:
                assert special.get(row.url, {f"w_{row.url}"}) <= keys, (name, field)


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_b_loss_page_link_carries_compare_node_and_sigma0():
    """Bug b — page controls of the loss page (compare choice, drill-down node and σ0).

    Before commit 059caac: after choosing compare = "CG t = 5" the link had only the sidebar's
    keys (dataset, c0, c1, n, ..., mode); a new session from it showed compare = "nothing",
    and the node and σ0 of the drill-down were not in it either.
    """
    at = start(PAGES["loss"], SMALL | {"classes": "3,8", "seed": "1"})
    at.number_input(key="w_t").set_value(10).run()
    at.selectbox(key="w_compare").set_value("CG t = 50").run()
    node = at.selectbox(key="w_node")
    rows = [int(r) for r in at.dataframe[0].value[W["hi_node"]].dropna()]
    pick = next(r for r in rows if r != node.value)
    node.set_value(pick).run()
    lo, hi = sigma_range(at)
    at.number_input(key="w_sigma0").set_value(round(lo + 0.6 * (hi - lo), 3)).run()
    assert not at.exception and not at.error
    q = at.query_params
    assert (q["compare"], q["node"], q["t"]) == ("CG t = 50", str(pick), "10")
    assert float(q["sigma0"]) == round(lo + 0.6 * (hi - lo), 3)
    assert title_row(at) == pick
    _same_view_from_link(at, PAGES["loss"])


@pytest.mark.slow  # over 2 s: outside the quick run
def test_b_conditioning_link_carries_families_grid_and_variant():
    """Bug b — page controls of the conditioning page.

    Before commit 059caac: families = [knn, mutual-knn] and 6 grid points were not in the link
    (its keys were the sidebar's only), and after switching to another page and back the
    page showed families = [complete, knn] and 15 points again.
    """
    at = start(PAGES["conditioning"], SMALL)
    at.multiselect(key="w_families").set_value(["knn", "mutual-knn"]).run()
    at.number_input(key="w_points").set_value(7).run()
    at.radio(key="w_cond_solver").set_value("pcg").run()
    at.number_input(key="w_t").set_value(8).run()
    assert not at.exception and not at.error
    q = at.query_params
    assert (q["families"], q["points"], q["cond_solver"]) == ("knn,mutual-knn", "7", "pcg")
    before = widgets(at)
    at.switch_page(PAGES["loss"]).run()
    at.switch_page(PAGES["conditioning"]).run()
    assert widgets(at) == before  # page controls survive a page switch
    _same_view_from_link(at, PAGES["conditioning"])


@pytest.mark.slow  # over 2 s: outside the quick run
def test_b_regret_link_carries_rounds_repeats_and_models():
    """Bug b — page controls of the regret page (rounds, repetitions, feedback models; the
    seed is the sidebar's).

    Before commit 059caac (n=60): after rounds 3, repetitions 1, models [exact, uniform] and page
    seed 2 the link had the sidebar's keys only (c0, c1, dataset, ..., t); after a switch
    to the speed page and back the page showed rounds 20, all four models and seed 0.
    """
    at = start(PAGES["regret"], SMALL | {"classes": "3,8", "seed": "2"})
    at.number_input(key="w_rounds").set_value(3).run()
    at.number_input(key="w_repeats").set_value(1).run()
    at.multiselect(key="w_feedback").set_value(["exact", "uniform"]).run()
    at.number_input(key="w_lr").set_value(0.3).run()
    at.button(key="reg_run").click().run()
    assert not at.exception and len(charts(at)) == 3
    q = at.query_params
    assert (q["rounds"], q["repeats"], q["feedback"], q["seed"], q["lr"]) == (
        "3",
        "1",
        "exact,uniform",
        "2",
        "0.3",
    )
    assert "--lr 0.3" in code_lines(at)[0]
    _same_view_from_link(at, PAGES["regret"])  # the memoised result, shown at once
    forget_regret_results()
    _same_view_from_link(at, PAGES["regret"], run_button="reg_run")  # computed anew


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_b_speed_link_carries_sizes_families_and_solvers():
    """Bug b — page controls of the speed page.

    Before commit 059caac: after sizes [50] and graphs [knn] the link had the sidebar's keys only.
    """
    at = start(PAGES["speed"], {"t": "10"})
    at.multiselect(key="w_sizes").set_value([50]).run()
    at.multiselect(key="w_speed_families").set_value(["knn"]).run()
    at.multiselect(key="w_speed_solvers").set_value(["cg", "exact"]).run()
    at.button(key="speed_run").click().run()
    assert not at.exception and not at.error
    q = at.query_params
    assert (q["sizes"], q["speed_families"], q["speed_solvers"]) == ("50", "knn", "cg,exact")
    query = dict(q)
    again = start(PAGES["speed"], query)
    assert widgets(again) == widgets(at)
    again.button(key="speed_run").click().run()  # results live in the session: run again
    assert not again.exception
    m = [t for t in chart(at)["data"] if t["name"].startswith("M ")]
    assert m == [t for t in chart(again)["data"] if t["name"].startswith("M ")]
    assert numbers(again)[2] == numbers(at)[2]  # the table, timings aside


def test_b_uploaded_file_writes_no_dataset_and_says_so(tmp_path):
    """Bug b — "With an uploaded file the URL still says dataset=digits".

    Before commit 059caac: with an uploaded blobs.npz the link said dataset=digits, and the
    sidebar only said "Using blobs.npz".
    """
    rng = np.random.default_rng(0)
    path = tmp_path / "blobs.npz"
    np.savez(
        path,
        X=np.r_[rng.normal(0, 1, (40, 5)), rng.normal(3, 1, (40, 5))],
        y=np.r_[np.zeros(40, int), np.ones(40, int)],
    )
    cfg = {"data_file": str(path), "data_file_name": "blobs.npz", "n": 60, "labeled": 6, "pca": 0}
    at = start(None, cfg=cfg)
    assert not at.exception and not at.error
    assert at.selectbox(key="w_source").value == sidebar.UPLOAD
    assert "dataset" not in at.query_params
    assert at.query_params["n"] == "60"
    assert any("cannot travel in a link" in c.value for c in at.sidebar.caption)
    at.switch_page(PAGES["loss"]).run()  # still the file on another page, still no dataset=
    assert not at.exception and not at.error
    assert at.selectbox(key="w_source").value == sidebar.UPLOAD
    assert "dataset" not in at.query_params
    assert "--data-file" in code_lines(open_tab(at, "Export"))[0]


# --------------------------------------------------------------------------------------
# c. the σ range follows the data
# --------------------------------------------------------------------------------------


def test_c_sigma_range_follows_the_data():
    """Bug c — "The σ range does not follow the data".

    Before commit 059caac: digits, range [0.5, 2.8]; PCA 45 → 2 kept [0.5, 2.8] (suggested for
    PCA 2: [0.052, 0.63]) with no warning.
    """
    at = start(None)
    assert sigma_range(at) == pytest.approx(suggested())
    at.number_input(key="w_pca").set_value(2).run()
    assert sigma_range(at) == pytest.approx(suggested(pca=2))
    at.selectbox(key="w_classes_0").set_value(3).run()
    at.selectbox(key="w_classes_1").set_value(8).run()
    assert sigma_range(at) == pytest.approx(suggested(pca=2, classes=(3, 8)))
    at.selectbox(key="w_family").set_value("threshold").run()  # r: the edge-length range
    assert sigma_range(at) == pytest.approx(suggested(pca=2, classes=(3, 8), family="threshold"))
    at.selectbox(key="w_family").set_value("knn").run()
    assert sigma_range(at) == pytest.approx(suggested(pca=2, classes=(3, 8)))

    # a range typed for these data stays with them
    at.number_input(key="w_sigma_min").set_value(0.1).run()
    at.number_input(key="w_sigma_max").set_value(0.5).run()
    at.number_input(key="w_pca").set_value(45).run()
    assert sigma_range(at) == pytest.approx(suggested(classes=(3, 8)))
    at.number_input(key="w_pca").set_value(2).run()
    assert sigma_range(at) == pytest.approx((0.1, 0.5))
    assert not at.exception and not at.error


def test_c_far_off_range_warns_with_a_one_click_fix():
    """Bug c — a range far outside the data's distance scale.

    Before commit 059caac: after PCA 45 → 2 the range [0.5, 2.8] (suggested [0.052, 0.63]) showed
    no warning at all.
    """
    at = start(None)
    at.number_input(key="w_sigma_max").set_value(60.0).run()
    at.number_input(key="w_sigma_min").set_value(50.0).run()
    assert sigma_range(at) == (50.0, 60.0)
    assert any("outside the data's distance scale" in w.value for w in at.warning)
    at.button(key="w_fix_range").click().run()
    assert not at.exception
    assert sigma_range(at) == pytest.approx(suggested())
    assert not at.warning
    assert (float(at.query_params["sigma_min"]), float(at.query_params["sigma_max"])) == (
        pytest.approx(suggested())
    )


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_c_digits_to_fashion_mnist_moves_the_range():
    """Bug c — "Switch digits → fashion-mnist: the range stays [0.5, 2.8] while the suggested
    range is [1.6, 9.5], with no warning".

    Before commit 059caac: exactly that (range (0.5, 2.8) after the switch, no warning).
    """
    from sslviz.datasets import DatasetUnavailableError, load_dataset

    try:
        load_dataset("fashion-mnist")
    except DatasetUnavailableError as exc:
        pytest.skip(f"fashion-mnist is not available here: {exc}")
    at = start(None)
    at.selectbox(key="w_source").set_value("fashion-mnist").run()
    assert not at.exception and not at.error
    assert sigma_range(at) == pytest.approx(suggested(dataset="fashion-mnist"))
    at.selectbox(key="w_source").set_value("digits").run()
    assert sigma_range(at) == pytest.approx(suggested())


# --------------------------------------------------------------------------------------
# d. the shown commands reproduce the page
# --------------------------------------------------------------------------------------


def test_d_loss_page_commands_reproduce_its_numbers(tmp_path):
    """Bug d — "The reproduce on the command line is not always a reproduction" (loss).

    Before commit 059caac the loss page showed one ``intervals`` command (no ``loss`` command for
    the true-loss table, none for the comparison).
    """
    at = start(
        PAGES["loss"],
        SMALL | {"classes": "3,8", "family": "complete", "t": "5", "compare": "CG t = 50"},
    )
    assert not at.exception and not at.error
    table = at.dataframe[0].value  # the "Estimated intervals" tab, open at first
    loss_line, intervals_line, trust_line, compare_line = code_lines(open_tab(at, "Export"))
    loss = run_cli(loss_line, tmp_path / "loss.json")
    est = run_cli(intervals_line, tmp_path / "intervals.json")
    cmp = run_cli(compare_line, tmp_path / "compare.json")
    trust = run_cli(trust_line, tmp_path / "trust.json")["trust"]
    panel = open_tab(at, "Trust panel").dataframe[0].value
    assert list(panel[W["sigma"]]) == trust["sigma"]
    cap = trust["t_max"]
    assert list(panel[W["t_needed_cg"]]) == [
        str(t) if t <= cap else f"> {cap}" for t in trust["t_needed_cg"]
    ]
    assert list(panel[W["error"]]) == trust["error"]

    truth = open_tab(at, "True loss").dataframe[0].value
    pieces = truth.rename(columns={W[k]: k for k in ("lo", "hi", "loss")})
    assert pieces[["lo", "hi", "loss"]].to_dict("records") == loss["pieces"]
    true_trace = chart(at)["data"][0]
    assert true_trace["name"] == "true loss l(σ)"
    assert set(loss["breakpoints"]) <= set(values(true_trace))

    m = metrics(at)
    sc = est["score"]
    assert tuple(
        int(m[k].replace(",", ""))
        for k in ("intervals M", "true breakpoints", "missed", "spurious endpoints", "solves")
    ) == (est["M"], sc["true_breakpoints"], sc["missed"], sc["spurious"], est["solves"])
    assert m["ε-volume"] == f"{sc['eps_volume']:.3g}"
    cols = ["lo", "hi", "loss", "sigma0", "lo_node", "hi_node"]
    page = [
        {k: None if pd.isna(v) else v for k, v in r.items()}
        for r in table.rename(columns={W[k]: k for k in cols})[cols].to_dict("records")
    ]
    assert page == [{k: iv[k] for k in cols} for iv in est["intervals"]]
    misses = open_tab(at, "Missed breakpoints").dataframe[0].value
    assert list(misses[W["sigma"]]) == [x["sigma"] for x in sc["misses"]]
    assert any(f"M = {cmp['M']}, missed {cmp['score']['missed']}," in c.value for c in at.caption)


def test_d_conditioning_commands_reproduce_every_family(tmp_path):
    """Bug d — "the conditioning command covers only the first family".

    Before commit 059caac (classes 3/8, n=60): families [complete, knn] on the page, one command
    ``sslviz condition ... --family complete ... --out condition.json``.
    """
    at = start(PAGES["conditioning"], SMALL | {"classes": "3,8", "points": "6"})
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    lines = code_lines(at)
    assert len(lines) == 2
    sqrt_kappa = {t["name"]: values(t, "y") for t in chart(at)["data"]}
    for fam, line in zip(("complete", "knn"), lines, strict=True):
        assert f"--family {fam}" in line
        doc = run_cli(line, tmp_path / f"condition_{fam}.json")
        rows = table[table[W["family"]] == fam]
        np.testing.assert_array_equal(rows[W["sigma"]], doc["sigma"])
        np.testing.assert_array_equal(rows[W["kappa"]], doc["kappa"])
        its = rows[W["iterations_needed"]].to_numpy(float, na_value=-1)  # -1: not representable
        np.testing.assert_array_equal(its, doc["iterations_needed"])
        np.testing.assert_array_equal(rows[W["cg_error"]], doc["cg_error"])
        np.testing.assert_allclose(sqrt_kappa[f"√κ ({fam})"], doc["sqrt_kappa"], rtol=1e-12)


def test_d_regret_command_reproduces_the_final_regret(tmp_path):
    """Bug d — "The regret command omits the page's seed".

    Before commit 059caac (digits 3/8, n=60, |L|=6, rounds 3, repeats 1, page seed 1): the page's
    final regret was 0.0741 for every model, the shown command (which had ``--seed 0``, the
    sidebar's, and not the page's) gave 0.1111.
    """
    at = start(
        PAGES["regret"], SMALL | {"classes": "3,8", "seed": "1", "rounds": "3", "repeats": "1"}
    )
    if not charts(at):
        at.button(key="reg_run").click().run()
    assert not at.exception and not at.error
    (line,) = code_lines(at)
    assert "--seed 1" in line
    doc = run_cli(line, tmp_path / "regret.json")
    summary = at.dataframe[0].value
    page = dict(zip(summary[W["model"]], summary[W["final_regret"]], strict=True))
    assert page == {name: m["regret_mean"][-1] for name, m in doc["models"].items()}
    curves = {t["name"]: values(t, "y") for t in chart(at)["data"]}
    for name, m in doc["models"].items():
        assert curves[name] == m["regret_mean"]


def test_d_speed_commands_reproduce_every_row(tmp_path):
    """Bug d — "the speed page has none" (a command per row).

    Before commit 059caac (sizes [50], 4 rows; sidebar n=60): one command, for n = 60 (the
    sidebar's n, not the row's 50) and the first solver only.
    """
    at = start(
        PAGES["speed"], {"sizes": "50", "speed_families": "knn", "speed_solvers": "cg,inverse"}
    )
    at.button(key="speed_run").click().run()
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    lines = code_lines(at)
    assert len(lines) == len(table) == 2
    for (_, row), line in zip(table.iterrows(), lines, strict=True):
        doc = run_cli(line, tmp_path / "speed.json")
        assert f"--n {row['n']}" in line and f"--solver {row['solver']}" in line
        assert (row[W["M"]], row[W["solves"]], row[W["matvecs"]]) == (
            doc["M"],
            doc["solves"],
            doc["matvecs"],
        )


# --------------------------------------------------------------------------------------
# e. one JSON format
# --------------------------------------------------------------------------------------


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_e_cli_json_is_the_apps_download(tmp_path):
    """Bug e — "Two JSON formats for the same result". Since then the shown command
    (with ``--no-timings``) writes the download's bytes exactly.

    Before commit 059caac (default view): the app's intervals.json had keys ['intervals',
    'score'] and intervals like {'lo': 0.5, 'hi': 0.5088, 'estimated loss': 0.1333,
    'true loss at midpoint': 0.0, 'left node': -1, 'right node': 8}; the CLI's had
    ['intervals', 'M', 'seconds', ..., 'settings', 'score'] and {'lo': 0.5, 'hi': 0.5088,
    'loss': 0.1333, 'sigma0': 0.5044, 'lo_node': None, 'hi_node': 18}: unlabeled index 8
    in the app, instance row 18 in the CLI, and -1 for "range start".

    The download bytes are read from AppTest's in-memory media storage (see
    ``apptest_helpers.download``), so this compares the files a user gets.
    """
    at = open_tab(start(PAGES["loss"]), "Export")
    assert not at.exception and not at.error
    loss_line, intervals_line, _trust_line = code_lines(at)
    for key, line, name in (
        ("li_dl_true_loss.json", loss_line, "loss.json"),
        ("li_dl_intervals.json", intervals_line, "intervals.json"),
    ):
        assert "--no-timings" in line
        run_cli(line, tmp_path / name)
        assert download(at, key) == (tmp_path / name).read_bytes(), name  # byte for byte

    # nodes are instance rows (None for a range end); the unlabeled index only in *_u
    spec = url.spec_from_cfg(ProblemSpec, at.session_state["cfg"])
    unlabeled_rows = build_problem(spec).model.unlabeled_idx
    csv = pd.read_csv(__import__("io").BytesIO(download(at, "li_dl_intervals.csv")))
    for side in ("lo", "hi"):
        both = csv[[f"{side}_node", f"{side}_node_u"]].dropna().astype(int)
        assert (both[f"{side}_node"] == unlabeled_rows[both[f"{side}_node_u"]]).all()
        assert (csv[f"{side}_node"].isna() == csv[f"{side}_node_u"].isna()).all()
    assert csv["lo_node"].isna().iloc[0]  # the range start: no node, not -1
    assert (csv[["lo_node", "hi_node"]].dropna() >= 0).all().all()
    doc = download_json(at, "li_dl_intervals.json")
    assert [iv["lo_node"] for iv in doc["intervals"]] == [
        None if math.isnan(v) else int(v) for v in csv["lo_node"]
    ]
    assert set(doc["intervals"][0]) >= {"lo", "hi", "loss", "sigma0", "lo_node", "hi_node"}

    cond = start(PAGES["conditioning"])
    assert not cond.exception and not cond.error
    for fam, line in zip(("complete", "knn"), code_lines(cond), strict=True):
        run_cli(line, tmp_path / f"condition_{fam}.json")
        app = download(cond, f"cond_dl_condition_{fam}.json")
        assert app == (tmp_path / f"condition_{fam}.json").read_bytes(), fam


def test_e_regret_cli_json_is_the_apps_download(tmp_path):
    """Bug e — the regret view's JSON (default sidebar; rounds 3 and 1 repetition, to keep
    the test short).

    Before commit 059caac the app's regret.json was ``exp.to_dict()`` without the settings block
    the CLI writes.
    """
    at = start(PAGES["regret"], {"rounds": "3", "repeats": "1"})
    if not charts(at):
        at.button(key="reg_run").click().run()
    assert not at.exception and not at.error
    (line,) = code_lines(at)
    run_cli(line, tmp_path / "regret.json")
    assert download(at, "reg_dl_regret.json") == (tmp_path / "regret.json").read_bytes()


@pytest.mark.slow  # over 2 s: outside the quick run
def test_e_default_regret_view_is_the_cli_json_byte_for_byte(tmp_path):
    """Issue 14: the default regret view (auto-run on first visit) and its command."""
    forget_regret_results()
    at = start(PAGES["regret"])
    assert not at.exception and not at.error and charts(at)
    (line,) = code_lines(at)
    assert "--no-timings" in line
    run_cli(line, tmp_path / "regret.json")
    assert download(at, "reg_dl_regret.json") == (tmp_path / "regret.json").read_bytes()


# --------------------------------------------------------------------------------------
# f. the drill-down shows the node the selector names
# --------------------------------------------------------------------------------------


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_f_drill_down_shows_the_selected_node(tmp_path):
    """Bug f — "The drill-down can show the wrong node" (digits 3/8 CSV, c0 = 3, c1 = 8).

    Before commit 059caac, in a real browser (n=60, |L|=6, complete, t=5; the 10th node picked
    on digits 0/1, then the CSV uploaded and c0 = 3, c1 = 8 set): the selector showed
    "2 (row 8) — missed" while the chart's title said "node 13" — the browser's selectbox
    fell back to its first option while the server kept node 13. In AppTest (which sees
    only the server's value) the old selector and title agreed on the unlabeled index
    ("2 (row 8) — missed" / "soft label f_u(σ), node 2"), but the title named the node by
    that index while the tables and the CLI name instance rows. Now the selector's value
    is the row, the title names it, and the chart draws that row's exact f_u(σ); the
    browser half is in tests/browser/test_browser.py.
    """
    path = digits_38_csv(tmp_path / "digits38.csv")
    cfg = {
        "data_file": path,
        "data_file_name": "digits38.csv",
        "n": 60,
        "labeled": 6,
        "family": "complete",
        "t": 5,
    }
    at = start(PAGES["loss"], cfg=cfg)  # classes 0, 1 are not in the file: (3, 8) instead
    assert not at.exception and not at.error
    assert at.selectbox(key="w_source").value == sidebar.UPLOAD
    at.selectbox(key="w_classes_0").set_value(8).run()  # set the pair as a user would
    at.selectbox(key="w_classes_0").set_value(3).run()
    at.selectbox(key="w_classes_1").set_value(8).run()
    assert not at.exception and not at.error
    assert at.session_state["cfg"]["classes"] == (3, 8)
    assert int(metrics(at)["missed"].replace(",", "")) > 0

    spec = url.spec_from_cfg(ProblemSpec, at.session_state["cfg"], data_file=path)
    problem = build_problem(spec)
    rows = list(problem.model.unlabeled_idx)
    node = at.selectbox(key="w_node")
    assert "missed" in node.format_func(node.value)

    def check(row: int) -> None:
        assert at.selectbox(key="w_node").value == row == title_row(at)
        fig = chart(at, 1)
        exact = next(t for t in fig["data"] if t["name"] == "f_u, exact")
        u = rows.index(row)
        f = [
            problem.model.soft_labels(s, solver="exact", derivative=False).f[u]
            for s in values(exact)
        ]
        np.testing.assert_allclose(values(exact, "y"), f, rtol=1e-9, atol=1e-12)

    check(node.value)
    other = next(r for r in rows if r != node.value)
    at.selectbox(key="w_node").set_value(other).run()
    check(other)
    at.number_input(key="w_n").set_value(70).run()  # new instance: the options change
    assert not at.exception and not at.error
    spec = url.spec_from_cfg(ProblemSpec, at.session_state["cfg"], data_file=path)
    problem = build_problem(spec)
    rows = list(problem.model.unlabeled_idx)
    check(at.selectbox(key="w_node").value)


# --------------------------------------------------------------------------------------
# g. nothing shared is written
# --------------------------------------------------------------------------------------


def _fingerprint(obj) -> dict:
    """Identity (and array contents) of every attribute of a shared object."""
    out = {}
    for k, v in vars(obj).items():
        out[k] = (id(v), v.tobytes() if isinstance(v, np.ndarray) else None)
    return out


@pytest.mark.slow  # over 2 s: outside the quick run
def test_g_sessions_do_not_share_what_they_compute(monkeypatch):
    """Bug g — "Objects shared by all sessions are written to".

    Before commit 059caac: two sessions run interleaved (n=60 vs n=80, Delalleau) did see their
    own numbers, but the shared model was written: a page run rebound
    ``last_subset_labels`` on the Delalleau model that ``st.cache_resource`` shares, and
    the first CG solve on a harmonic model set its ``_batch`` (None → _HarmonicBatch).
    Now the two interleaved sessions see the numbers each sees alone, and the shared
    problems (model, graph, instance) are unchanged by any run.
    """
    qa = SMALL | {"labeling": "delalleau", "subset": "20"}
    qb = {"n": "80", "labeled": "8", "classes": "3,8"}
    alone_a, alone_b = numbers(start(PAGES["loss"], qa)), numbers(start(PAGES["loss"], qb))
    a, b = start(PAGES["loss"], qa), start(PAGES["loss"], qb)
    shared = []
    with monkeypatch.context() as m:  # the sessions' cached problems, not new ones
        m.setattr(cache, "build_problem", lambda spec: pytest.fail("not the cached one"))
        for at in (a, b):
            spec = url.spec_from_cfg(ProblemSpec, at.session_state["cfg"])
            p = cache.problem(spec)
            shared += [p.model, p.model.graph, p.instance]
    before = [_fingerprint(o) for o in shared]
    for t in (3, 7, 20):
        a.number_input(key="w_t").set_value(t).run()
        b.number_input(key="w_t").set_value(t).run()
        a.selectbox(key="w_compare").set_value("CG t = 5").run()
        b.selectbox(key="w_compare").set_value("exact solver").run()
        a.selectbox(key="w_compare").set_value("nothing").run()
        b.selectbox(key="w_compare").set_value("nothing").run()
        assert not a.exception and not b.exception
    assert numbers(a) == alone_a
    assert numbers(b) == alone_b
    assert [_fingerprint(o) for o in shared] == before


# --------------------------------------------------------------------------------------
# h. the link carries the view: the open tab, the player's view, mode and step
# --------------------------------------------------------------------------------------


def test_h_the_loss_pages_open_tab_is_in_the_link():
    """The link used to leave out the open tab: a new session from it opened the first."""
    at = start(PAGES["loss"], SMALL)
    assert "tab" not in at.query_params  # the first tab: nothing to say
    at = open_tab(at, "True loss")
    assert at.query_params["tab"] == "true-loss"
    again = start(PAGES["loss"], dict(at.query_params))
    assert not again.exception and again.session_state["li_tabs"] == "True loss"
    assert [df.value.shape for df in again.dataframe] == [df.value.shape for df in at.dataframe]
    bad = start(PAGES["loss"], SMALL | {"tab": "nope"})
    assert not bad.exception and "tab" not in bad.query_params
    [warning] = [w.value for w in bad.warning if "tab='nope'" in w.value]
    assert "true-loss" in warning and "export" in warning


@pytest.mark.slow  # over 1.5 s: outside the quick run
def test_h_the_players_view_mode_and_step_are_in_the_link():
    """The link used to leave out the Algorithm 4 player's step (and its view and mode)."""
    at = start("pages/Algorithm_4.py", SMALL)
    assert not ({"player", "replay", "replay_step"} & set(at.query_params))
    at.radio(key="player_mode").set_value("paper").run()
    at.segmented_control(key="player_view").set_value("one step at a time").run()
    at.slider(key="player_step").set_value(7).run()
    q = at.query_params
    assert (q["replay"], q["player"], q["replay_step"]) == ("paper", "one-step-at-a-time", "7")
    assert q["step"] == "0.05"  # the restart step, a setting, is another key
    again = start("pages/Algorithm_4.py", dict(q))
    assert not again.exception
    assert again.radio(key="player_mode").value == "paper"
    assert again.segmented_control(key="player_view").value == "one step at a time"
    assert again.slider(key="player_step").value == 7
    assert chart(again) == chart(at)  # the same step drawn
    again.segmented_control(key="player_view").set_value("play").run()
    assert "replay_step" not in again.query_params and "player" not in again.query_params


def test_h_view_keys_are_no_settings_keys():
    """The view state's link keys (the open tab, the player's step) are not the keys of a
    setting: "step" is the restart step of Algorithm 4, the player's step "replay_step"."""
    assert not set(url.VIEW_KEYS) & set(url.ROWS)
