"""Constant-loss intervals, in one place: Algorithm 4 (:mod:`sslviz.algorithm4`), its score
against the exact curve (:mod:`sslviz.scoring`) with the cause of every miss
(:mod:`sslviz.attribution`), and the verdict in words (:mod:`sslviz.sentences`).

>>> from sslviz.intervals import score, sweep

Called, the module is the Python API's :func:`sslviz.api.intervals` (``sslviz.intervals(X,
y, ...)``, docs/python.md): one name for both.
"""

import sys
import types

from sslviz.algorithm4 import (
    EVENT_KINDS,
    STEP_RULES,
    Event,
    Interval,
    Iterate,
    Sweep,
    feedback_set,
    node_trace,
    sweep,
)
from sslviz.attribution import (
    CAUSES,
    MISS_CAUSES,
    PROBE,
    SPURIOUS_CAUSES,
    T_CAP,
    UNATTRIBUTED,
    Miss,
    SpuriousEndpoint,
)
from sslviz.scoring import Score, score
from sslviz.sentences import CAUSE_WORDS, cause_words, explain_miss, verdict

__all__ = [
    "CAUSES",
    "CAUSE_WORDS",
    "EVENT_KINDS",
    "MISS_CAUSES",
    "PROBE",
    "SPURIOUS_CAUSES",
    "STEP_RULES",
    "T_CAP",
    "UNATTRIBUTED",
    "Event",
    "Interval",
    "Iterate",
    "Miss",
    "Score",
    "SpuriousEndpoint",
    "Sweep",
    "cause_words",
    "explain_miss",
    "feedback_set",
    "node_trace",
    "score",
    "sweep",
    "verdict",
]


class _CallableModule(types.ModuleType):
    """This module, callable as :func:`sslviz.api.intervals`."""

    def __call__(self, *args, **kwargs):
        from sslviz.api import intervals

        return intervals(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
