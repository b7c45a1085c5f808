"""Messages for people: an uploaded file by its own name, settings by their labels, link
values and CSV formats explained (never a server path, a class or a Python message)."""

from apptest_helpers import start

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
    assert at.get("plotly_chart")
