"""The settings tables (sslviz.specs): checks, cross-field rules, and everything generated
from them (CLI options, URL query, reproducing command)."""

import re
from dataclasses import dataclass

import pytest

from sslviz import specs as S
from sslviz._validation import InvalidParameterError
from sslviz.cli import COMMANDS, build_parser, command_line
from ui import views

NON_DEFAULT = [
    S.ProblemSpec(
        dataset="fashion-mnist",
        classes=(3, 8),
        n=77,
        n_labeled=7,
        seed=5,
        pca=12,
        family="mutual-knn",
        k=4,
        labeling="delalleau",
        subset=20,
        lam=2.5,
    ),
    S.SigmaRange(0.7, 2.25),
    S.SweepSettings(
        solver="pcg",
        cg_iters=7,
        epsilon=1e-5,
        eta=0.5,
        step=0.1,
        max_iter=50,
        root_tol=0.02,
        mode="paper",
    ),
    S.ScoreSettings(score=True, tol=2e-3),
    S.ConditionSettings(points=9, solver="pcg", cg_iters=11, rtol=1e-8, families=("knn",)),
    S.RegretSettings(rounds=7, repeats=3, feedback=("exact", "uniform"), lr=0.3, jobs=1),
    S.LearnSettings(
        instances=5,
        test_instances=0,
        k_range="2:9",
        solver="pcg",
        cg_iters=7,
        mode="paper",
        curve=(2, 8),
        repeats=3,
    ),
    views.LossView(compare="CG t = 5", node=17, sigma0=1.25),
    views.RegretView(density_model="full"),
    views.SpeedGrid(sizes=(50, 200), families=("knn",), solvers=("exact",)),
]


@pytest.mark.parametrize("cls", views.ALL_SPECS)
def test_defaults_are_valid_and_every_row_is_complete(cls):
    spec = cls()
    for name, row in S.table(cls):
        assert getattr(spec, name) == row.default
        assert row.help and row.help[-1] in ".)", name  # a sentence
        assert row.flag is None or row.flag.startswith("--")


SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b", re.ASCII)
CLASS_NAMES = re.compile(
    r"\b(?:"
    + "|".join(
        [c.__name__ for c in views.ALL_SPECS]
        + ["Spec", "Setting", "Rule", "Choice", "Optional", "Tuple", "NoneType"]
        + ["int", "float", "str", "bool", "tuple", "list", "dict"]
    )
    + r")\b"
)
CROSS = [  # the cross-field rules, each broken once
    (S.ProblemSpec, dict(n=10, n_labeled=10)),
    (S.ProblemSpec, dict(n=10, n_labeled=3, family="knn", k=10)),
    (S.ProblemSpec, dict(n=30, n_labeled=10, labeling="delalleau", subset=21)),
    (S.SigmaRange, dict(sigma_min=3.0, sigma_max=1.0)),
    (S.SweepSettings, dict(certify=True, mode="paper")),
    (S.SweepSettings, dict(certify=True, solver="exact")),
    (S.LearnSettings, dict(k_range="2-9")),
    (S.LearnSettings, dict(k_range="9:2")),
]


def _bad_values(cls):
    """(field, bad value) for every row of ``cls``: the values its rule refuses."""
    return [(name, v) for name, row in S.table(cls) for v in row.rule.invalid()]


def assert_plain(text: str) -> None:
    """One line in words: no Python message parts, field names, class or type names."""
    assert "\n" not in text and "Got" not in text and "instead" not in text, text
    assert "{" not in text and "}" not in text and "parameter of" not in text, text
    assert not SNAKE.search(text), text
    assert not CLASS_NAMES.search(text), text


@pytest.mark.parametrize("cls", views.ALL_SPECS)
def test_every_row_rejects_every_bad_value_in_plain_words(cls):
    """Every setting of every table, with each value its rule refuses (the rule lists
    them): the message names the setting by its label (by its flag on the command line),
    states the rule, and reads as words."""
    cases = _bad_values(cls)
    assert {name for name, _ in cases} == {name for name, _ in S.table(cls)}
    for name, value in cases:
        row = S.setting(cls, name)
        with pytest.raises((InvalidParameterError, TypeError)) as info:
            cls(**{name: value})
        err = info.value
        assert isinstance(err, S.SettingError), (name, value, err)
        assert str(err).startswith(S.label_of(row, name)), (name, value, str(err))
        assert " must " in str(err), str(err)
        cli = err.on_command_line().text(cli=True)
        assert cli.startswith(row.flag or S.label_of(row, name)), cli
        for text in (str(err), cli):
            assert_plain(text)


@pytest.mark.parametrize("cls, kwargs", CROSS, ids=lambda x: getattr(x, "__name__", ""))
def test_cross_field_messages_are_plain_words(cls, kwargs):
    with pytest.raises(S.SettingError) as info:
        cls(**kwargs)
    assert_plain(str(info.value))
    cli = info.value.on_command_line().text(cli=True)
    assert_plain(cli)
    flags = [S.setting(cls, n).flag for n in kwargs if S.setting(cls, n).flag]
    assert any(f in cli for f in flags), cli  # named by the flag the user typed


def test_a_planted_programmer_word_is_caught():
    for planted in (
        "The 'n' parameter of ProblemSpec must be an int. Got 2.5 instead.",
        "family must be one of {'complete', 'knn'}",
        "n_labeled must be smaller than n",
        "σ range of SigmaRange",
    ):
        with pytest.raises(AssertionError):
            assert_plain(planted)


def test_the_cli_names_settings_by_their_flags():
    import argparse

    parser = argparse.ArgumentParser()
    S.add_options(parser, S.ProblemSpec)
    with pytest.raises(S.SettingError) as info:
        S.from_options(parser.parse_args(["--n", "10", "--labeled", "10"]), S.ProblemSpec)
    assert str(info.value).startswith("--labeled 10 must be smaller than --n 10")
    with pytest.raises(S.SettingError, match=r"^--n must be a whole number between 3 and 1,0"):
        S.from_options(parser.parse_args(["--n", "2"]), S.ProblemSpec)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(n=10, n_labeled=10), r"^\|L\| = 10 must be smaller than n = 10"),
        (dict(n=10, n_labeled=3, family="knn", k=10), r"^k = 10 must be smaller than n = 10"),
        (dict(n=30, n_labeled=10, labeling="delalleau", subset=21), r"m = \|Ũ\| = 21 must be at"),
        (dict(classes=(4, 4)), r"^classes must not repeat a value \(4 is given twice\)"),
        (dict(n=2), r"^n must be a whole number between 3 and 1,000,000, not 2\.$"),
    ],
)
def test_problem_cross_field_rules(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        S.ProblemSpec(**kwargs)


def test_cross_field_rules_that_do_not_apply_are_not_checked():
    S.ProblemSpec(n=10, n_labeled=3, k=50, family="complete")  # k unused
    S.ProblemSpec(n=30, n_labeled=10, subset=500)  # harmonic: m unused
    with pytest.raises(InvalidParameterError, match="^σ_min = 3 must be smaller than σ_max = 1"):
        S.SigmaRange(3.0, 1.0)
    with pytest.raises(InvalidParameterError, match="^σ_min must be a number greater than 0"):
        S.SigmaRange(-1.0, 3.3)  # the rule broken is σ_min > 0, checked first
    assert S.SigmaRange(None, 2.0).resolve((0.5, 4.0)) == (0.5, 2.0)


@pytest.mark.parametrize("spec", NON_DEFAULT, ids=lambda s: type(s).__name__)
def test_url_round_trip(spec):
    query = S.to_query(spec)
    values, warnings = S.from_query(type(spec), query)
    assert not warnings
    rebuilt = type(spec)(
        **(values | {n: getattr(spec, n) for n, r in S.table(spec) if r.url is None})
    )
    assert rebuilt == spec


def test_url_bad_values_warn_and_fall_back():
    values, warnings = S.from_query(S.ProblemSpec, {"n": "lots", "family": "cube", "k": "5"})
    assert values == {"k": 5}
    assert len(warnings) == 2 and "n='lots'" in warnings[0] and "default (100)" in warnings[0]


@pytest.mark.parametrize("command", list(COMMANDS))
def test_command_line_round_trip(command):
    tables = COMMANDS[command][1]
    chosen = [s for s in NON_DEFAULT if type(s) in tables]
    if command == "regret":  # the online experiment takes only Gaussian families
        chosen = [s.replace(family="knn") if isinstance(s, S.ProblemSpec) else s for s in chosen]
    line = command_line(command, *chosen, out="x.json")
    import shlex

    args = build_parser().parse_args(shlex.split(line)[1:])
    assert args.command == command and args.out == "x.json"
    for spec in chosen:  # app-only rows (no flag) keep their defaults
        app_only = {n: getattr(spec, n) for n, r in S.table(spec) if r.flag is None}
        assert S.from_options(args, type(spec), **app_only) == spec


def test_cli_help_is_the_table_help():
    parser = build_parser()
    sub = parser._subparsers._group_actions[0].choices["intervals"]
    helps = {a.option_strings[0]: a.help for a in sub._actions if a.option_strings}
    for cls in (S.ProblemSpec, S.SweepSettings):
        for _, row in S.table(cls):
            if row.flag:
                assert helps[row.flag].startswith(row.help.replace("%", "%%")), row.flag
    assert "default: 20" in helps["--cg-iters"]


@dataclass(frozen=True)
class SweepPlus(S.SweepSettings):
    """SweepSettings with one more row, added only here (a row appears everywhere)."""

    restarts: int = S.Setting(
        3,
        S.Int(1, 9),
        "How many restarts a test parameter allows.",
        flag="--restarts",
        url="restarts",
        label="restarts",
    ).field()


def test_a_row_added_to_a_table_reaches_the_cli_the_url_and_the_command():
    import argparse

    parser = argparse.ArgumentParser()
    S.add_options(parser, SweepPlus)
    action = next(a for a in parser._actions if "--restarts" in a.option_strings)
    assert action.help.startswith("How many restarts") and "default: 3" in action.help
    spec = S.from_options(parser.parse_args(["--restarts", "5", "--cg-iters", "9"]), SweepPlus)
    assert (spec.restarts, spec.cg_iters) == (5, 9)
    assert S.from_options(parser.parse_args([]), SweepPlus).restarts == 3
    with pytest.raises(InvalidParameterError, match="restarts"):
        SweepPlus(restarts=10)
    assert S.to_query(spec)["restarts"] == "5"
    assert S.from_query(SweepPlus, {"restarts": "4"})[0] == {"restarts": 4}
    assert "--restarts 5" in " ".join(S.to_command(spec))


def test_a_row_added_to_a_table_reaches_the_widgets():
    from streamlit.testing.v1 import AppTest

    def page():
        import sys

        sys.path.insert(0, ".")
        import streamlit as st

        from tests.unit.test_specs import SweepPlus
        from ui import widgets

        widgets.widget(st, SweepPlus, "restarts")
        st.write(f"built {widgets.controls(SweepPlus).restarts}")

    at = AppTest.from_function(page, default_timeout=60).run()
    assert not at.exception
    w = at.number_input(key="w_restarts")
    assert w.value == 3 and w.help == "How many restarts a test parameter allows."
    w.set_value(6).run()
    assert "built 6" in at.markdown[0].value
    assert at.query_params["restarts"] == "6"
    # the box takes any number: the bound is said under it, and the page stops
    at.number_input(key="w_restarts").set_value(10).run()
    assert not at.exception
    assert [e.value for e in at.error] == [
        "restarts must be a whole number between 1 and 9, not 10."
    ]
    assert not at.markdown


def test_effective_settings_give_the_same_sweep_and_score():
    """Fast mode reads neither paper mode's iteration nor, uncertified, the certify cap:
    settings that differ only there give the same intervals and score, bit for bit, so the
    app computes them once (``SweepSettings.effective``)."""
    from dataclasses import replace

    from sslviz import export
    from sslviz.intervals import score, sweep
    from sslviz.problem import build_problem, loss_curve

    p = build_problem(S.ProblemSpec(n=60, n_labeled=6))
    truth = loss_curve(p, 0.6, 3.0)
    base = S.SweepSettings(cg_iters=10)
    other = base.replace(eta=0.3, step=0.2, max_iter=7, root_tol=0.3, certify_cap=9)
    assert other.effective() == base.effective() == base
    a = sweep(p.model, p.y_unlabeled, 0.6, 3.0, other)
    b = sweep(p.model, p.y_unlabeled, 0.6, 3.0, other.effective())
    da, db = export.to_dict(replace(a, settings=base), p), export.to_dict(b, p)
    assert export.without_timings(da) == export.without_timings(db)
    sa, sb = score(a, truth, model=p.model), score(b, truth, model=p.model)
    assert export.to_dict(replace(sa, settings=base), p) == export.to_dict(sb, p)
    paper = base.replace(mode="paper", eta=0.3)
    assert paper.effective() == paper  # paper mode reads them all
    certified = base.replace(certify=True, certify_cap=9)
    assert certified.effective().certify_cap == 9
