"""sslviz.paths.fast_paths: the one way to choose a fast path (tests and benchmarks)."""

import pytest

import sslviz.crossings as crossings
import sslviz.labeling as labeling
from sslviz.paths import NAMES, fast_paths, taken


def test_fast_paths_are_on_by_default_and_restored_after_the_block():
    assert taken() == dict.fromkeys(NAMES, True)
    with fast_paths(chebyshev=False, fast_dense=False) as inside:
        assert inside["chebyshev"] is False and inside["fast_dense"] is False
        assert crossings.CHEBYSHEV is False and labeling.FAST_DENSE is False
        assert inside["sparse_exact"] is True  # the others are left as they are
    assert taken() == dict.fromkeys(NAMES, True)


def test_fast_paths_restore_after_an_exception_and_refuse_unknown_names():
    with pytest.raises(RuntimeError), fast_paths(compiled_search=False):
        raise RuntimeError
    assert crossings.COMPILED_SEARCH is True
    with pytest.raises(TypeError, match="unknown path turbo; the paths are fast_dense"):
        with fast_paths(turbo=True):
            pass
