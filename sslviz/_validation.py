"""Parameter validation with one message format (scikit-learn style).

Every failed check raises :class:`InvalidParameterError` (a ``ValueError``) or a
``TypeError`` whose message names the parameter, the caller, the rule and the value::

    The 'sigma_min' parameter of true_loss_curve must be a float in the range
    (0, inf). Got -1.0 instead.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from numbers import Integral, Real


class InvalidParameterError(ValueError):
    """A public function was called with a value outside its documented range."""


def _range_text(low: float | None, high: float | None, closed: str) -> str:
    left = "[" if closed in ("both", "left") else "("
    right = "]" if closed in ("both", "right") else ")"

    def text(x: float) -> str:
        return str(x) if isinstance(x, int) else f"{x:g}"

    lo = "-inf" if low is None else text(low)
    hi = "inf" if high is None else text(high)
    return f"{left}{lo}, {hi}{right}"


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
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(
            f"The {name!r} parameter of {caller} must be a real number. "
            f"Got {value!r} ({type(value).__name__}) instead."
        )
    v = float(value)
    ok = math.isfinite(v)
    if ok and low is not None:
        ok = v >= low if closed in ("both", "left") else v > low
    if ok and high is not None:
        ok = v <= high if closed in ("both", "right") else v < high
    if not ok:
        raise InvalidParameterError(
            f"The {name!r} parameter of {caller} must be a float in the range "
            f"{_range_text(low, high, closed)}. Got {value!r} instead."
        )
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
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(
            f"The {name!r} parameter of {caller} must be an int. "
            f"Got {value!r} ({type(value).__name__}) instead."
        )
    v = int(value)
    if (low is not None and v < low) or (high is not None and v > high):
        raise InvalidParameterError(
            f"The {name!r} parameter of {caller} must be an int in the range "
            f"{_range_text(low, high, 'both')}. Got {value!r} instead."
        )
    return v


def check_option(name: str, value: object, caller: str, options: Iterable[str]) -> str:
    """Return ``value`` after checking it is one of ``options``."""
    opts = list(options)
    if value not in opts:
        listed = ", ".join(repr(o) for o in opts)
        raise InvalidParameterError(
            f"The {name!r} parameter of {caller} must be one of {{{listed}}}. "
            f"Got {value!r} instead."
        )
    return str(value)


def check_sigma_range(sigma_min: object, sigma_max: object, caller: str) -> tuple[float, float]:
    """Check ``0 < sigma_min < sigma_max < inf`` and return both as floats."""
    lo = check_real("sigma_min", sigma_min, caller, low=0.0, closed="neither")
    hi = check_real("sigma_max", sigma_max, caller, low=0.0, closed="neither")
    if not lo < hi:
        raise InvalidParameterError(
            f"The 'sigma_min' parameter of {caller} must be smaller than 'sigma_max'. "
            f"Got sigma_min={sigma_min!r} and sigma_max={sigma_max!r} instead."
        )
    return lo, hi
