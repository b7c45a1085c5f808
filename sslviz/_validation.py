"""Parameter validation with one message format, in words.

Every failed check raises :class:`InvalidParameterError` (a ``ValueError``) or a
``TypeError`` whose message names the parameter, states the rule and the value given, in
one line and in plain words (no Python type names, no set literals)::

    'sigma_min' must be a number greater than 0, not -1.

The rule's words come from :func:`rule_text`, which the settings tables
(:mod:`sslviz.settings`) share, so a library function and a setting state one bound alike.
The ``caller`` argument of the checks is kept for the call sites; a message does not name
the function (the traceback does).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from numbers import Integral, Real


class InvalidParameterError(ValueError):
    """A public function was called with a value outside its documented range."""


def number_text(x: float) -> str:
    """A bound or a value as a person reads it: ``1,000,000``, ``0.5``, ``1e-06``."""
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, Integral):
        return f"{int(x):,}"
    return f"{float(x):g}"


def value_text(value: object, limit: int = 40) -> str:
    """A given value in a message: a number as :func:`number_text` writes it, anything else
    by its ``repr``, cut to ``limit`` characters."""
    if isinstance(value, Real) and not isinstance(value, bool):
        return number_text(value)
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def not_whole(value: object) -> str:
    """A value given for a whole number: a float as typed (``5.0``, never ``5``)."""
    return repr(float(value)) if isinstance(value, float) else value_text(value)


def rule_text(
    low: float | None = None,
    high: float | None = None,
    closed: str = "both",
    *,
    integer: bool = False,
) -> str:
    """The rule ``low ≤ x ≤ high`` in words: "a whole number between 3 and 360", "a number
    greater than 0", "a number greater than 0 and at most 1". ``closed`` is one of
    ``'both'``, ``'left'``, ``'right'``, ``'neither'`` (which ends are allowed)."""
    kind = "a whole number" if integer else "a number"
    left = integer or closed in ("both", "left")
    right = integer or closed in ("both", "right")
    if low is not None and high is not None and left and right:
        return f"{kind} between {number_text(low)} and {number_text(high)}"
    parts = []
    if low is not None:
        parts.append(f"{'at least' if left else 'greater than'} {number_text(low)}")
    if high is not None:
        parts.append(f"{'at most' if right else 'smaller than'} {number_text(high)}")
    return " ".join([kind, " and ".join(parts)]).strip()


def options_text(options: Iterable[object], last: str = "or") -> str:
    """``a, b or c``: the options a value may take, in words (``last``: ``and`` for a list
    of what there is)."""
    opts = [str(o) for o in options]
    return opts[0] if len(opts) == 1 else ", ".join(opts[:-1]) + f" {last} " + opts[-1]


def in_range(
    v: float, low: float | None, high: float | None, closed: str = "both", integer: bool = False
) -> bool:
    """True when ``v`` is finite and keeps the bounds (``closed``: as :func:`rule_text`)."""
    ok = math.isfinite(v)
    if ok and low is not None:
        ok = v >= low if integer or closed in ("both", "left") else v > low
    if ok and high is not None:
        ok = v <= high if integer or closed in ("both", "right") else v < high
    return ok


def check_real(
    name: str,
    value: object,
    caller: str,
    *,
    low: float | None = None,
    high: float | None = None,
    closed: str = "both",
) -> float:
    """Return ``value`` as a float after checking it is a finite real in the range.

    ``closed`` is one of ``'both'``, ``'left'``, ``'right'``, ``'neither'``.
    """
    rule = rule_text(low, high, closed)
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name!r} must be {rule}, not {value_text(value)}.")
    v = float(value)
    if not in_range(v, low, high, closed):
        raise InvalidParameterError(f"{name!r} must be {rule}, not {value_text(value)}.")
    return v


def check_int(
    name: str,
    value: object,
    caller: str,
    *,
    low: int | None = None,
    high: int | None = None,
) -> int:
    """Return ``value`` as an int after checking ``low <= value <= high``."""
    rule = rule_text(low, high, integer=True)
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name!r} must be {rule}, not {not_whole(value)}.")
    v = int(value)
    if not in_range(v, low, high, integer=True):
        raise InvalidParameterError(f"{name!r} must be {rule}, not {value_text(value)}.")
    return v


def check_option(name: str, value: object, caller: str, options: Iterable[str]) -> str:
    """Return ``value`` after checking it is one of ``options``."""
    opts = list(options)
    if value not in opts:
        raise InvalidParameterError(
            f"{name!r} must be {options_text(opts)}, not {value_text(value)}."
        )
    return str(value)


def check_sigma_range(sigma_min: object, sigma_max: object, caller: str) -> tuple[float, float]:
    """Check ``0 < sigma_min < sigma_max < inf`` and return both as floats."""
    lo = check_real("sigma_min", sigma_min, caller, low=0.0, closed="neither")
    hi = check_real("sigma_max", sigma_max, caller, low=0.0, closed="neither")
    if not lo < hi:
        raise InvalidParameterError(
            f"'sigma_min' = {number_text(lo)} must be smaller than 'sigma_max' = {number_text(hi)}."
        )
    return lo, hi
