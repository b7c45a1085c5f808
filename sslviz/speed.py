"""The live Table 1 as its configurations arrive (:func:`speed_stream`).

The Speed page times a grid of configurations ``(n, family, solver)`` one after the other;
each configuration's row is computed by itself, so the rows that have arrived are the
finished table's first ones, and the last part's rows are the table computed at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

Config = tuple[int, str, str]
"""One configuration of the grid: ``(n, graph family, solver)``."""


def config_words(config: Config) -> str:
    """A configuration in words: "n = 100, knn graph, cg solver"."""
    n, family, solver = config
    return f"n = {n}, {family} graph, {solver} solver"


@dataclass(frozen=True)
class SpeedPart:
    """What a speed stream (:func:`speed_stream`) has computed so far.

    Attributes
    ----------
    configs : tuple of Config
        Every configuration asked for, in the grid's order.
    rows : tuple
        The rows of the configurations done so far that gave one, in the grid's order
        (whatever the row function returns: the page's table rows).
    skipped : tuple of Config
        The configurations done so far that gave no row (over a cap, or failed).
    """

    configs: tuple[Config, ...]
    rows: tuple[Any, ...] = ()
    skipped: tuple[Config, ...] = ()

    @property
    def done(self) -> int:
        """Configurations done so far (with a row or skipped)."""
        return len(self.rows) + len(self.skipped)

    @property
    def complete(self) -> bool:
        """Whether every configuration is done: ``rows`` is then the whole table."""
        return self.done == len(self.configs)

    @property
    def fraction(self) -> float:
        """The share of the configurations done."""
        return self.done / max(len(self.configs), 1)

    def status(self) -> str:
        """How far it is, in words: "3 of 8 configurations so far" (or "all 8
        configurations")."""
        total = len(self.configs)
        if self.complete:
            return f"all {total} configuration{'s' * (total != 1)}"
        return f"{self.done} of {total} configurations so far"

    def missing(self) -> str:
        """What is missing, in words (nothing when complete): "3 of 8 configurations timed;
        not timed yet: n = 200, complete graph, cg solver; …"."""
        if self.complete:
            return ""
        todo = self.configs[self.done :]
        return (
            f"{len(self.rows)} of {len(self.configs)} configurations timed; not timed yet: "
            + "; ".join(map(config_words, todo))
            + "."
        )


def speed_stream(
    configs: Sequence[Config], row: Callable[[int, Config], Any | None]
) -> Iterator[SpeedPart]:
    """The grid ``configs`` computed one configuration after the other, ``row(i, config)``
    each (None: no row for it, e.g. over a cap), a :class:`SpeedPart` after each: the rows
    so far in the grid's order, the last part complete. Nothing is yielded for an empty
    grid but one complete part."""
    configs = tuple(configs)
    part = SpeedPart(configs)
    if not configs:
        yield part
        return
    for i, config in enumerate(configs):
        got = row(i, config)
        if got is None:
            part = SpeedPart(configs, part.rows, (*part.skipped, config))
        else:
            part = SpeedPart(configs, (*part.rows, got), part.skipped)
        yield part
