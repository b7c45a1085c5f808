"""The app with more than two classes (docs/method.md §13): every page either works or
says in one line that it handles two classes yet, never a traceback; the sidebar's
multiselect takes the settings back to two classes. The loss page works with more classes
(tests/app/test_app_multiclass.py)."""

import pytest
from apptest_helpers import HOME, PAGES, charts, start

from ui.frame import two_classes_yet

QUERY = {"classes": "0,1,2", "n": "60", "labeled": "6"}
MANY = {"loss", "conditioning", "cg_iterations", "regret", "learn", "algorithm4", "cv"}
"""Pages that take more classes (tests/app/test_app_multiclass.py,
tests/app/test_app_multiclass_pages.py, tests/app/test_app_cv.py)."""


@pytest.mark.parametrize("page", sorted(f for k, f in PAGES.items() if k not in MANY))
def test_each_page_says_it_handles_two_classes_yet(page):
    at = start(page, QUERY)
    assert not at.exception
    assert [i.value for i in at.info] == [two_classes_yet((0, 1, 2))]
    assert not charts(at)


def test_home_page_works_with_three_classes():
    at = start(HOME[1], QUERY)
    assert not at.exception and not at.error
    (ms,) = at.multiselect
    assert ms.value == [0, 1, 2]


def test_all_classes_are_named_in_the_line():
    at = start(PAGES["speed"], {"classes": "all"})
    assert not at.exception
    assert [i.value for i in at.info] == [two_classes_yet(tuple(range(10)))]


def test_two_classes_in_the_multiselect_bring_the_page_back():
    at = start(PAGES["loss"], QUERY)
    at.multiselect[0].set_value([0, 1]).run()
    assert not at.exception
    assert two_classes_yet((0, 1, 2)) not in [i.value for i in at.info]
    assert charts(at)
    assert at.query_params["classes"] in ("0,1", ["0,1"])
