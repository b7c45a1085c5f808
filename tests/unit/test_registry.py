"""The registries of graph families and labeling models (sslviz.registry), and the checks
a family or model class passes (sslviz.checks): the built-ins pass them in full, and each
thing a class can get wrong is refused in one line that says what to change."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from sslviz import registry
from sslviz import specs as S
from sslviz.checks import check_family, check_model
from sslviz.families import KNN, GraphFamily, MutualKNN
from sslviz.graphs import Graph
from sslviz.labeling import HarmonicModel, SoftLabelModel
from sslviz.registry import PluginError


def test_the_registries_are_filled_on_first_use_not_at_import():
    code = (
        "import sslviz, sslviz.specs, sslviz.settings, sslviz.cli, sslviz.problem\n"
        "from sslviz import registry\n"
        "assert registry.FAMILIES._table is None and registry.MODELS._table is None\n"
        "assert 'knn' in sslviz.specs.FAMILIES\n"
        "assert registry.FAMILIES._table is not None and registry.MODELS._table is None\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_built_ins_in_their_order_and_each_passes_the_full_check():
    assert registry.FAMILIES.names() == ("complete", "knn", "mutual-knn", "threshold")
    assert registry.MODELS.names() == ("harmonic", "delalleau", "spreading")
    assert tuple(S.GAUSSIAN_FAMILIES) == ("complete", "knn", "mutual-knn")
    for family in registry.FAMILIES.values():
        check_family(type(family))
    for model in registry.MODELS.values():
        check_model(model)


def test_names_are_a_sequence_read_at_each_use():
    names = S.FAMILIES
    assert list(names) == list(registry.FAMILIES.names()) and len(names) == 4
    assert names[0] == "complete" and names[:2] == ("complete", "knn") and "threshold" in names
    rule = S.Choice(names)
    assert rule.check("family", "knn", "test") == "knn"
    with pytest.raises(S.SettingError, match="must be complete, knn, mutual-knn or threshold"):
        S.GraphSpec("no-such-family")


def test_an_unknown_name_says_which_there_are():
    with pytest.raises(ValueError, match="There is no graph family called 'ring': choose complete"):
        registry.family("ring")


def test_the_help_of_family_and_labeling_is_each_ones_clause():
    family_help = S.setting(S.ProblemSpec, "family").help
    assert family_help.startswith("Graph family (Definition 1): complete Gaussian graph; kNN")
    assert all(f.help in family_help for f in registry.FAMILIES.values())
    labeling_help = S.setting(S.ProblemSpec, "labeling").help
    assert labeling_help == (
        "Harmonic objective (Zhu et al. 2003; Algorithm 2), Delalleau et al. 2005 "
        "(Algorithm 3: solve on L ∪ Ũ, extend to the rest of U) or LabelSpreading (Zhou et "
        "al. 2004: F = (1 − α)(I − αS)⁻¹Y, S = D^-½ W D^-½)."
    )


def test_settings_apply_as_the_family_and_model_read_them():
    assert S.to_query(S.ProblemSpec(family="complete")).get("k") is None
    assert S.to_query(S.ProblemSpec(family="knn"))["k"] == "6"
    assert "subset" not in S.to_query(S.ProblemSpec())
    assert S.to_query(S.ProblemSpec(family="knn", labeling="delalleau"))["subset"] == "50"
    assert S.GraphSpec("complete").graph_family.sparse is False
    assert S.ProblemSpec(family="threshold").gaussian is False


# ----------------------------------------------------------------------------- families


class _Ring(GraphFamily):
    """Each point joined to the next and the previous (a test family)."""

    name = "ring"
    label = "ring"
    help = "a ring"

    def pattern(self, X, spec):
        n = X.shape[0]
        rows = np.r_[np.arange(n), np.arange(n)]
        cols = np.r_[(np.arange(n) + 1) % n, (np.arange(n) - 1) % n]
        d2 = ((X[rows] - X[cols]) ** 2).sum(1)
        D = sp.csr_matrix((d2, (rows, cols)), shape=(n, n))
        D.sort_indices()
        return Graph(spec, n, D)


def _family(**attributes):
    return type("Family", (_Ring,), attributes)


def test_a_written_family_passes_and_builds_through_the_registry():
    check_family(_Ring)
    assert "ring" not in registry.FAMILIES.names()  # the check's trial does not stay


@pytest.mark.parametrize(
    ("attributes", "words"),
    [
        ({"name": "Ring Graph"}, "has no valid name ('Ring Graph')"),
        ({"name": ""}, "has no valid name"),
        ({"label": ""}, "lacks the class attribute label"),
        ({"help": None}, "lacks the class attribute help"),
        ({"reads": "k"}, "set it to a tuple of setting names"),
        ({"reads": ("r",)}, "reads the setting 'r', which sslviz's settings tables do not have"),
        ({"gaussian": 1}, "has gaussian = 1: set it to True or False"),
        ({"learns_k": True}, "has learns_k = True but does not read k"),
        ({"pattern": GraphFamily.pattern}, "lacks the method pattern(X, spec)"),
        ({"sparse": False}, "sqdist must be a dense array"),
    ],
)
def test_a_family_that_gets_one_thing_wrong_is_refused_in_one_line(attributes, words):
    with pytest.raises(PluginError) as info:
        check_family(_family(**attributes))
    assert words in str(info.value) and "\n" not in str(info.value)


def test_a_family_whose_pattern_is_wrong_is_refused():
    def one_way(self, X, spec):
        g = _Ring.pattern(self, X, spec)
        D = sp.triu(g.sqdist, format="csr")  # (i, j) without (j, i)
        return Graph(spec, g.n, D)

    def squares_wrong(self, X, spec):
        g = _Ring.pattern(self, X, spec)
        return Graph(spec, g.n, g.sqdist * 2.0)

    def self_loops(self, X, spec):
        g = _Ring.pattern(self, X, spec)
        return Graph(spec, g.n, (g.sqdist + sp.identity(g.n)).tocsr())

    for pattern, words in (
        (one_way, "not symmetric"),
        (squares_wrong, "not the squared distances"),
        (self_loops, "self-loop"),
    ):
        with pytest.raises(PluginError, match=words):
            check_family(_family(pattern=pattern))
    with pytest.raises(PluginError, match="is not a graph family class"):
        check_family(object)


def test_the_knn_families_differ_only_in_the_rule():
    assert KNN.reads == MutualKNN.reads == ("k",) and KNN.both != MutualKNN.both


# ----------------------------------------------------------------------------- models


def _model(**attributes):
    return type("Model", (HarmonicModel,), {"name": "harmonic-copy", **attributes})


def test_a_subclass_that_states_its_name_passes():
    check_model(_model())
    assert "harmonic-copy" not in registry.MODELS.names()


@pytest.mark.parametrize(
    ("attributes", "words"),
    [
        ({"name": "harmonic copy"}, "has no valid name"),
        ({"reads": ("beta",)}, "reads the setting 'beta'"),
        ({"nested_iterates": "yes"}, "has nested_iterates = 'yes'"),
        ({"system_label": None}, "has a system_label that is not a text"),
    ],
)
def test_a_model_that_gets_one_thing_wrong_is_refused_in_one_line(attributes, words):
    with pytest.raises(PluginError) as info:
        check_model(_model(**attributes))
    assert words in str(info.value) and "\n" not in str(info.value)


def test_a_model_without_soft_labels_or_with_a_wrong_derivative_is_refused():
    bare = type("Bare", (SoftLabelModel,), {"name": "bare", "label": "bare", "help": "bare"})
    with pytest.raises(PluginError, match="lacks the method soft_labels"):
        check_model(bare)

    def wrong_df(self, sigma, **kwargs):
        from dataclasses import replace

        sl = HarmonicModel.soft_labels(self, sigma, **kwargs)
        return sl if sl.df is None else replace(sl, df=2.0 * sl.df + 1.0)

    with pytest.raises(PluginError, match="off central finite differences"):
        check_model(_model(soft_labels=wrong_df))
    no_family = _model(accepts=classmethod(lambda cls, family: False))
    with pytest.raises(PluginError, match="accepts none of the graph families"):
        check_model(no_family)
