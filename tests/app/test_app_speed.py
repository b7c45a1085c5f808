"""Speed page (Table 1 live), with streamlit.testing."""

import json

import pytest
from apptest_helpers import INVALID, assert_refuses, chart, charts, code_lines, values
from apptest_helpers import start as _start
from plotly.utils import PlotlyJSONEncoder
from streamlit.testing.v1 import AppTest

from sslviz.words import COLUMN_WORDS as W
from ui import cache

PAGE = "pages/Speed.py"


def start(query: dict | None = None) -> AppTest:
    return _start(PAGE, query)


def run_small(at: AppTest, sizes=(50,)) -> AppTest:
    at.multiselect(key="w_sizes").set_value(list(sizes))
    at.button(key="speed_run").click()
    return at.run()


def test_default_page_times_the_default_grid_by_itself():
    """First visit with the SpeedGrid defaults of sslviz.specs: a chart without a press
    (the whole default grid, or its cheapest part with a note); Run twice never crashes."""
    from sslviz.specs import SweepSettings
    from ui import cache
    from ui.views import SpeedGrid

    g = SpeedGrid()
    configs = [(n, f, sv) for n in sorted(g.sizes) for f in g.families for sv in g.solvers]
    auto = cache.speed_autorun(configs, SweepSettings())
    at = start()
    assert not at.exception and not at.error
    assert len(charts(at)) == 1
    assert len(at.dataframe[0].value) == len(auto) >= 1
    assert at.button(key="speed_run").label == f"Run {len(configs)} configurations"
    assert chart(at)["layout"]["yaxis"]["exponentformat"] == "power"
    for _ in range(2):
        at.button(key="speed_run").click().run()
        assert not at.exception and not at.error
        assert len(at.dataframe[0].value) == len(configs)


def test_a_costly_grid_times_its_cheapest_part_and_says_so():
    from sslviz.specs import SweepSettings

    configs = [(n, "complete", "inverse") for n in (100, 300)]
    assert cache.speed_autorun(configs, SweepSettings())[0] == (100, "complete", "inverse")
    big = [(1000, "complete", sv) for sv in ("cg", "inverse", "exact")]
    assert len(cache.speed_autorun(big, SweepSettings())) == 1  # at least one


def test_run_times_cg_and_inverse_on_complete_and_knn():
    at = run_small(start())
    assert not at.exception and not at.error
    fig = chart(at)
    assert [t["name"] for t in fig["data"]] == ["time per interval (n=50)", "M (n=50)"]
    assert fig["layout"]["annotations"][0]["text"].startswith("CPU ms per interval")
    assert values(fig["data"][0]) == [
        "complete / cg",
        "complete / inverse",
        "knn / cg",
        "knn / inverse",
    ]
    assert len(at.dataframe[0].value) == 4
    lines = code_lines(at)  # one command per row
    assert len(lines) == 4 and all(line.startswith("sslviz intervals") for line in lines)
    assert "--family complete" in lines[0] and "--solver inverse" in lines[1]
    assert all("--n 50" in line for line in lines)
    assert len(at.get("download_button")) == 2


def test_robust_timings_work_counts_and_verdicts_are_shown():
    """Issue 14: each row has its minimum CPU time over repeats, the spread, the load it was
    taken under and the work counts; one verdict per graph; the caption says what is timed."""
    at = run_small(start())
    assert not at.exception and not at.error
    df = at.dataframe[0].value
    for col in (
        "cpu_per_interval",
        "repeats",
        "spread",
        "busy",
        "matvecs",
        "system_nonzeros",
        "factorizations",
        "flops",
    ):
        assert W[col] in df.columns, col
    assert (df[W["repeats"]] >= 1).all() and (df[W["cpu_per_interval"]] > 0).all()
    cg = df[df["solver"] == "cg"]
    assert (cg[W["factorizations"]] == 0).all() and (cg[W["matvecs"]] > 0).all()
    inv = df[df["solver"] == "inverse"]
    assert (inv[W["factorizations"]] > 0).all() and (inv[W["matvecs"]] == 0).all()
    verdicts = [m.value for m in at.markdown if m.value.startswith("**n = 50")]
    assert len(verdicts) == 2  # complete and kNN
    assert all(("faster" in v) or ("undecided" in v) for v in verdicts)
    assert any("minimum CPU time" in c.value for c in at.caption)
    assert any("products of" in c.value or "factorisations" in c.value for c in at.caption)


def test_changed_settings_warn_that_the_table_is_stale():
    at = run_small(start())
    at.number_input(key="w_t").set_value(10).run()
    assert not at.exception
    assert any("rerun" in w.value for w in at.warning)
    assert len(at.dataframe[0].value) == 4  # the last table stays until the next run


def test_changing_sizes_changes_the_table():
    at = run_small(start(), sizes=(50, 100))
    assert not at.exception
    assert [t["name"] for t in chart(at)["data"]] == [
        "time per interval (n=50)",
        "M (n=50)",
        "time per interval (n=100)",
        "M (n=100)",
    ]
    assert sorted(set(at.dataframe[0].value["n"])) == [50, 100]
    assert at.query_params["sizes"] == "50,100"


def test_families_and_solvers_choose_the_configurations():
    at = start()
    at.multiselect(key="w_speed_families").set_value(["knn"])
    at.multiselect(key="w_speed_solvers").set_value(["cg", "exact"]).run()
    assert at.button(key="speed_run").label == "Run 2 configurations"
    at = run_small(at)
    assert values(chart(at)["data"][0]) == ["knn / cg", "knn / exact"]
    assert at.query_params["speed_families"] == "knn"
    assert at.query_params["speed_solvers"] == "cg,exact"


@pytest.mark.slow  # over 1.5 s: outside the quick run
@pytest.mark.parametrize("case", list(INVALID))
def test_invalid_input_shows_error_not_exception(case):
    assert_refuses(start(), case)


def test_bad_url_falls_back_with_warning():
    at = start({"t": "0", "pca": "x"})
    assert not at.exception
    assert len(at.warning) == 2
    assert at.number_input(key="w_t").value == 20


def test_the_growing_chart_ends_as_the_grid_timed_at_once_and_a_stop_keeps_its_part():
    """The chart is drawn as the configurations arrive (sslviz.speed.speed_stream): the last
    part kept on the way holds the finished table's first rows, the finished chart is the
    grid's chart timed at once, bit for bit; after a Stop the page draws what had arrived,
    says what is missing, and its Run button computes the rest."""
    from sslviz import plots
    from ui import progress

    at = start()
    assert not at.exception and not at.error
    key = at.session_state["speed_result"][0]
    spec, lo, hi, settings, grid = key
    todo = cache.speed_autorun(
        [(n, f, sv) for n in sorted(grid.sizes) for f in grid.families for sv in grid.solvers],
        settings,
        spec,
        (lo, hi),
        cache.suggested_range(spec),
    )
    assert len(todo) >= 2
    rows = [
        {"config": f"{f} / {sv}"}
        | cache.speed_row(cache.speed_spec(spec, n, f), lo, hi, settings.with_solver(sv))
        for n, f, sv in todo
    ]
    want = plots.speed_figure(rows).to_plotly_json()["data"]
    assert chart(at)["data"] == json.loads(json.dumps(want, cls=PlotlyJSONEncoder))
    kept = cache.SPEED_PARTS.get(("speed", key))
    assert kept.done == len(todo) - 1
    assert [r for r, _ in kept.rows] == rows[: kept.done]

    at.session_state[progress.STOPPED] = {progress._stop_key(("speed", key))}
    at.run()
    assert not at.exception
    title = chart(at)["layout"]["title"]["text"]
    assert f"{kept.done} of {len(todo)} configurations so far" in title
    assert any(kept.missing() == c.value for c in at.caption)
    assert any("Stopped: what had arrived is shown" in i.value for i in at.info)
    [run] = [b for b in at.button if b.label == "Run"]
    run.click().run()
    assert not at.exception and not at.error
    assert chart(at)["data"] == json.loads(json.dumps(want, cls=PlotlyJSONEncoder))
    assert len(at.dataframe[0].value) == len(todo)
