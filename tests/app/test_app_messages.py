"""Messages for people: an uploaded file by its own name, settings by their labels, link
values and CSV formats explained (never a server path, a class or a Python message)."""

from apptest_helpers import charts, start

LOSS = "pages/Loss_intervals.py"


def _shown(at) -> str:
    return " ".join(e.value for e in [*at.error, *at.warning, *at.info])


def test_an_upload_is_named_as_uploaded_and_a_csv_needs_a_label_column(tmp_path):
    copy = tmp_path / "c42f1a25a1add245.csv"  # the server's copy of the upload
    copy.write_text("a,b,cls\n0,1,0\n1,0,1\n2,2,0\n")
    at = start(LOSS, cfg={"data_file": str(copy), "data_file_name": "mine.csv"})
    said = _shown(at)
    assert not at.exception
    assert "mine.csv has no label column" in said and "a, b, cls" in said
    assert str(tmp_path) not in said and "c42f1a25a1add245" not in said
    copy.write_text("x,label\n0,0\n1,1\n2\n")
    at = start(LOSS, cfg={"data_file": str(copy), "data_file_name": "mine.csv"})
    assert "mine.csv: line 4 has 1 fields; the header has 2" in _shown(at)


def test_settings_are_named_by_their_labels():
    at = start(LOSS, {"n": "20", "labeled": "20"})
    said = _shown(at)
    assert not at.exception and "|L| = 20 must be smaller than n = 20" in said
    assert "ProblemSpec" not in said and "parameter of" not in said


def test_a_bad_link_value_says_what_it_is():
    at = start(LOSS, {"n": "abc"})
    said = _shown(at)
    assert not at.exception and "'abc' is not a whole number" in said
    assert "invalid literal" not in said


def test_a_link_with_certify_on_the_speed_page_is_adjusted_not_an_exception():
    """certify applies to CG/PCG; the Speed grid's exact and inverse rows run as they are."""
    at = start("pages/Speed.py", {"certify": "1", "sizes": "50", "speed_solvers": "cg,inverse"})
    assert not at.exception and not at.error
    assert any("applies to the CG and PCG rows" in i.value for i in at.info)
    assert charts(at)


SMALL = {"n": "60", "labeled": "6"}


def _beside(at, key: str) -> list[str]:
    """The errors drawn right under the sidebar's row of boxes that holds ``key``."""
    blocks = list(at.sidebar.children.values())

    def holds(block) -> bool:
        cols = [c for c in getattr(block, "children", {}).values() if type(c).__name__ == "Column"]
        return any(getattr(w, "key", None) == key for c in cols for w in c.children.values())

    [i] = [i for i, b in enumerate(blocks) if holds(b)]
    return [e.value for e in blocks[i + 1].error]


def test_a_value_out_of_bounds_says_why_under_its_box_and_no_old_result_stays():
    """Typed outside its bounds, n keeps the typed value; the reason is under the box in
    that same run (the browser used to refuse it silently, the reason on hover only), the
    main area says it too, and no result of the earlier n stays on screen."""
    at = start(LOSS, SMALL)
    assert charts(at) and at.metric
    at.number_input(key="w_n").set_value(5).run()  # a cross-field rule: |L| = 6 ≥ n
    assert "|L| = 6 must be smaller than n = 5" in _shown(at)
    for typed, shown in ((0, "0"), (10_000_000, "10,000,000")):
        at.number_input(key="w_n").set_value(typed).run()
        said = (
            "n must be a whole number between 3 and 360, the size of the pool of classes 2 "
            f"and 3 in digits, not {shown}."
        )
        assert not at.exception and at.number_input(key="w_n").value == typed
        assert _beside(at, "w_n") == [said]
        assert [e.value for e in at.main.error] == [said]  # nothing else, nothing stale
        assert "n = 5" not in _shown(at)
        assert not charts(at) and not at.metric and not at.dataframe


def test_n_above_the_pool_names_the_pool_not_the_memory():
    """n = 2000 on digits 2 vs 3 used to say "needs about 213 MB …; the cap is n ≤ 1500 and
    1000 MB" (213 MB is under the cap): the rule broken is the pool's 360 rows."""
    at = start(LOSS, SMALL)
    at.number_input(key="w_n").set_value(2000).run()
    said = _shown(at)
    assert "between 3 and 360, the size of the pool of classes 2 and 3 in digits" in said
    assert "MB" not in said and "1500" not in said and "1,500" not in said


def test_sigma_min_below_zero_names_sigma_min_above_zero():
    """σ_min = −1 used to say "σ_min = -1 must be smaller than σ_max = 3.3" (it is): the rule
    broken is σ_min > 0; σ_min ≥ σ_max is said as such, and r_min on the threshold family."""
    at = start(LOSS, SMALL)
    at.number_input(key="w_sigma_min").set_value(-1.0).run()
    assert not at.exception and not charts(at)
    assert _beside(at, "w_sigma_min") == ["σ_min must be a number greater than 0, not -1."]
    assert "smaller than" not in _shown(at)
    at.number_input(key="w_sigma_min").set_value(5.0).run()
    hi = at.number_input(key="w_sigma_max").value
    assert f"σ_min = 5 must be smaller than σ_max = {hi:g}" in _shown(at)
    assert not _beside(at, "w_sigma_min") and not charts(at)
    at.selectbox(key="w_family").set_value("threshold").run()
    at.number_input(key="w_sigma_min").set_value(-2.0).run()
    assert _beside(at, "w_sigma_min") == ["r_min must be a number greater than 0, not -2."]


def test_a_page_box_out_of_bounds_says_why_and_stops_the_page():
    """A page's own box (the trust panel's σ points, 1 to 500): the reason under it, and the
    page draws nothing from other settings."""
    at = start(LOSS, SMALL)
    at.number_input(key="w_points").set_value(1000).run()
    assert not at.exception
    said = "trust panel σ points must be a whole number between 1 and 500, not 1,000."
    assert [e.value for e in at.main.error] == [said]
    assert not charts(at)
