"""ui.cache's keys: settings objects are hashed by their repr, which writes every field."""

import dataclasses

import numpy as np

from sslviz.settings import Spec
from sslviz.specs import ProblemSpec, SweepSettings
from ui import cache


def test_every_settings_class_is_hashed_by_a_repr_of_all_its_fields():
    classes = [c for c in cache.SPEC_HASH if c is not Spec]
    assert ProblemSpec in classes and SweepSettings in classes
    for cls in classes:
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen, cls
        assert "__repr__" in vars(cls), cls  # the dataclass's own repr, of every field:
        assert all(f.repr for f in dataclasses.fields(cls)), cls


def test_settings_that_differ_in_one_field_are_computed_apart():
    calls = []

    @cache.cached(16)
    def seen(spec: ProblemSpec, settings: SweepSettings) -> int:
        calls.append((spec, settings))
        return len(calls)

    base, fast = ProblemSpec(), SweepSettings()
    near = float(np.nextafter(fast.epsilon, 1.0))  # one float apart
    keys = [
        (base, fast),
        (base.replace(n=base.n + 1), fast),
        (base.replace(classes=(3, 2)), fast),
        (base, fast.replace(epsilon=near)),
        (base, fast.replace(mode="paper")),
    ]
    first = [seen(*k) for k in keys]
    again = [seen(*k) for k in keys]  # equal settings, made again: the same entries
    assert first == again == [1, 2, 3, 4, 5]
    assert seen(ProblemSpec(), SweepSettings()) == 1
