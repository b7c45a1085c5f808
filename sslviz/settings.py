"""Settings written down once: rules, table rows and the specs built from them.

A :class:`Setting` is one row of a settings table: default, rule (:class:`Int`,
:class:`Float`, :class:`Choice`, :class:`Flag`, :class:`Text`, :class:`Tuple`,
:class:`Optional`), help text, CLI flag and URL key. A :class:`Spec` is a frozen dataclass
whose fields are such rows; ``__post_init__`` checks every field against its rule. From a
spec class come its CLI options (:func:`add_options`, :func:`from_options`), its URL query
(:func:`to_query`, :func:`from_query`) and the command that reproduces it
(:func:`to_command`). The tables themselves (sslviz's settings) are :mod:`sslviz.specs`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from sslviz._validation import InvalidParameterError, check_int, check_option, check_real

# --------------------------------------------------------------------------------------
# Rules: how a value is checked, parsed from text and written as text
# --------------------------------------------------------------------------------------


class Rule:
    """How one setting's values are checked, parsed from text (CLI, URL) and written."""

    widget = "number"

    def check(self, name: str, value: Any, caller: str) -> Any:
        raise NotImplementedError

    def parse(self, text: str) -> Any:
        return text

    def format(self, value: Any) -> str:
        return str(value)

    def describe(self) -> str:
        return ""


@dataclass(frozen=True)
class Int(Rule):
    low: int | None = None
    high: int | None = None

    def check(self, name, value, caller):
        return check_int(name, value, caller, low=self.low, high=self.high)

    def parse(self, text):
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{text!r} is not a whole number") from None

    def describe(self):
        lo = "-inf" if self.low is None else self.low
        hi = "inf" if self.high is None else self.high
        return f"int in [{lo}, {hi}]"


@dataclass(frozen=True)
class Float(Rule):
    low: float | None = None
    high: float | None = None
    closed: str = "both"
    fmt: str = "%.4g"

    def check(self, name, value, caller):
        return check_real(name, value, caller, low=self.low, high=self.high, closed=self.closed)

    def parse(self, text):
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"{text!r} is not a number") from None
        if not math.isfinite(value):
            raise ValueError(f"{text!r} is not a finite number")
        return value

    def format(self, value):
        return repr(float(value))

    def describe(self):
        left = "[" if self.closed in ("both", "left") else "("
        right = "]" if self.closed in ("both", "right") else ")"
        lo = "-inf" if self.low is None else f"{self.low:g}"
        hi = "inf" if self.high is None else f"{self.high:g}"
        return f"float in {left}{lo}, {hi}{right}"


@dataclass(frozen=True)
class Choice(Rule):
    options: tuple[str, ...] = ()
    widget: ClassVar[str] = "select"

    def check(self, name, value, caller):
        return check_option(name, value, caller, self.options)

    def describe(self):
        return "one of " + ", ".join(self.options)


@dataclass(frozen=True)
class Flag(Rule):
    widget: ClassVar[str] = "checkbox"

    def check(self, name, value, caller):
        if not isinstance(value, bool):
            raise TypeError(
                f"The {name!r} parameter of {caller} must be a bool. "
                f"Got {value!r} ({type(value).__name__}) instead."
            )
        return value

    def parse(self, text):
        if text.lower() in ("1", "true", "yes", "on"):
            return True
        if text.lower() in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"{text!r} is not a yes/no value (1 or 0)")

    def format(self, value):
        return "1" if value else "0"


@dataclass(frozen=True)
class Text(Rule):
    widget: ClassVar[str] = "text"

    def check(self, name, value, caller):
        if not isinstance(value, str) or not value:
            raise TypeError(
                f"The {name!r} parameter of {caller} must be a non-empty str. "
                f"Got {value!r} ({type(value).__name__}) instead."
            )
        return value


@dataclass(frozen=True)
class Tuple(Rule):
    """A tuple of items (each checked by ``item``); text form ``a,b,c``.

    ``size`` fixes the length (classes: 2); ``options`` restricts the items and keeps
    their order; ``distinct`` forbids repeats; ``nonempty`` forbids ().
    """

    item: Rule = Int()
    size: int | None = None
    options: tuple = ()
    distinct: bool = True
    nonempty: bool = True

    @property
    def widget(self) -> str:  # type: ignore[override]
        return "pair" if self.size == 2 else "multiselect"

    def check(self, name, value, caller):
        if isinstance(value, str | bytes) or not isinstance(value, Sequence):
            raise TypeError(
                f"The {name!r} parameter of {caller} must be a sequence. "
                f"Got {value!r} ({type(value).__name__}) instead."
            )
        items = tuple(self.item.check(name, v, caller) for v in value)
        problem = None
        if self.size is not None and len(items) != self.size:
            problem = f"exactly {self.size} values"
        elif self.nonempty and not items:
            problem = "at least one value"
        elif self.distinct and len(set(items)) != len(items):
            problem = "different values"
        elif self.options and any(v not in self.options for v in items):
            problem = "values among " + ", ".join(map(str, self.options))
        if problem:
            raise InvalidParameterError(
                f"The {name!r} parameter of {caller} must have {problem}. Got {value!r} instead."
            )
        return items

    def parse(self, text):
        return tuple(self.item.parse(t.strip()) for t in text.split(",") if t.strip())

    def format(self, value):
        return ",".join(self.item.format(v) for v in value)

    def describe(self):
        if self.size:
            return f"{self.size} × {self.item.describe()}"
        return "comma-separated " + (", ".join(map(str, self.options)) or self.item.describe())


@dataclass(frozen=True)
class Optional(Rule):
    """``None`` (with the meaning ``none_means``) or a value of ``rule``."""

    rule: Rule = Float()
    none_means: str = ""

    @property
    def widget(self) -> str:  # type: ignore[override]
        return self.rule.widget

    def check(self, name, value, caller):
        return None if value is None else self.rule.check(name, value, caller)

    def parse(self, text):
        return None if text in ("", "auto", "none") else self.rule.parse(text)

    def format(self, value):
        return "auto" if value is None else self.rule.format(value)

    def describe(self):
        return f"{self.rule.describe()} or auto ({self.none_means})"


# --------------------------------------------------------------------------------------
# Settings (table rows) and the spec base class
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Setting:
    """One row of a settings table.

    Parameters
    ----------
    default : the value when none is given (the only place it is written).
    rule : Rule
        Bounds / options, parsing and text form.
    help : str
        Help text in the paper's terms (CLI ``--help``, widget tooltip).
    flag : str or None
        CLI option (``--cg-iters``); None: not on the command line.
    url : str or None
        URL query key (``t``); None: not in the URL (e.g. a local file path).
    label : str
        Widget label (defaults to the field name).
    relevant : callable(spec) -> bool, optional
        False where the setting does not apply (k for the complete graph, λ for the
        harmonic labeling); such values are left out of the URL and the command.
    """

    default: Any
    rule: Rule
    help: str
    flag: str | None = None
    url: str | None = None
    label: str = ""
    relevant: Callable[[Any], bool] | None = None

    def field(self) -> Any:
        """A dataclass field carrying this row."""
        return dataclasses.field(default=self.default, metadata={"setting": self})

    def applies(self, spec: Any) -> bool:
        return self.relevant is None or bool(self.relevant(spec))


def table(cls_or_spec: Any) -> list[tuple[str, Setting]]:
    """The rows ``(field name, Setting)`` of a spec class (or instance), in field order."""
    return [
        (f.name, f.metadata["setting"])
        for f in dataclasses.fields(cls_or_spec)
        if "setting" in f.metadata
    ]


def setting(cls_or_spec: Any, name: str) -> Setting:
    """The row of field ``name``."""
    for n, row in table(cls_or_spec):
        if n == name:
            return row
    raise KeyError(f"{type(cls_or_spec).__name__} has no setting {name!r}")


def default(cls: Any, name: str) -> Any:
    return setting(cls, name).default


class Spec:
    """Base of the settings classes: checks each field by its row, then :meth:`_cross`."""

    def __post_init__(self) -> None:
        caller = type(self).__name__
        for name, row in table(self):
            object.__setattr__(self, name, row.rule.check(name, getattr(self, name), caller))
        self._cross(caller)

    def _cross(self, caller: str) -> None:
        """Cross-field rules (none by default)."""

    def replace(self, **changes: Any):
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        return {
            name: list(v) if isinstance(v := getattr(self, name), tuple) else v
            for name, _ in table(self)
        }


# --------------------------------------------------------------------------------------
# Generated: CLI options, URL query, reproducing command
# --------------------------------------------------------------------------------------


def _flag_dest(row: Setting) -> str:
    return row.flag.lstrip("-").replace("-", "_")


def _named(parse: Callable[[str], Any], rule: Rule) -> Callable[[str], Any]:
    """``parse`` under the name argparse shows when it fails ("invalid whole number value:
    'abc'", not "invalid parse value")."""

    def typed(text: str) -> Any:
        return parse(text)

    typed.__name__ = {Int: "whole number", Float: "number"}.get(type(rule), "value")
    return typed


def add_options(parser: Any, cls: type, *, title: str | None = None) -> None:
    """Add one argparse option per row of ``cls`` that has a CLI flag.

    Options default to None ("not given": the spec's default applies), so
    :func:`from_options` can tell given values from defaults.
    """
    group = parser.add_argument_group(title) if title else parser
    for _, row in table(cls):
        if row.flag is None:
            continue
        rule = row.rule.rule if isinstance(row.rule, Optional) else row.rule
        bounds = "" if isinstance(rule, Choice) or not rule.describe() else rule.describe() + "; "
        shown = shown_default(row, cli=True)
        extra = "" if isinstance(rule, Flag) else f" ({bounds}default: {shown})"
        help_text = (row.help + extra).replace("%", "%%")
        kw: dict[str, Any] = {"dest": _flag_dest(row), "default": None, "help": help_text}
        if isinstance(row.rule, Flag):
            kw["action"] = "store_true"
        elif isinstance(rule, Tuple) and rule.size:
            kw |= {
                "nargs": rule.size,
                "type": _named(rule.item.parse, rule.item),
                "metavar": tuple(f"C{i}" for i in range(rule.size)),
            }
        else:
            kw["type"] = _named(row.rule.parse, rule)
            if isinstance(rule, Choice):
                kw["choices"] = rule.options
            else:
                kw["metavar"] = row.flag.lstrip("-").upper().replace("-", "_")
        group.add_argument(row.flag, **kw)


def shown_default(row: Setting, *, cli: bool = False) -> str:
    """The default as a user reads it (its meaning when it is None); ``cli``: as typed on
    the command line (``0 1``), else as in a link (``0,1``)."""
    if row.default is None:
        return row.rule.none_means if isinstance(row.rule, Optional) else "none"
    if cli and isinstance(row.rule, Tuple) and row.rule.size:
        return " ".join(row.rule.item.format(v) for v in row.default)
    return _text(row.rule, row.default)


def given_options(namespace: Any, cls: type) -> dict[str, Any]:
    """The values of ``cls``'s fields that were given on the command line."""
    out = {}
    for name, row in table(cls):
        if row.flag is None:
            continue
        value = getattr(namespace, _flag_dest(row), None)
        if value is None or (isinstance(row.rule, Flag) and value is False):
            continue
        out[name] = tuple(value) if isinstance(value, list) else value
    return out


def from_options(namespace: Any, cls: type, **overrides: Any) -> Any:
    """Build ``cls`` from parsed CLI options (defaults for what was not given)."""
    return cls(**(given_options(namespace, cls) | overrides))


def _text(rule: Rule, value: Any) -> str:
    return rule.format(value)


def to_query(spec: Any) -> dict[str, str]:
    """URL query values of every applicable, set field of ``spec`` that has a URL key."""
    return {
        row.url: _text(row.rule, getattr(spec, name))
        for name, row in table(spec)
        if row.url and getattr(spec, name) is not None and row.applies(spec)
    }


def from_query(cls: type, query: dict[str, str]) -> tuple[dict[str, Any], list[str]]:
    """Field values of ``cls`` found in a URL query, and one warning per bad value."""
    values, warnings = {}, []
    for name, row in table(cls):
        if not row.url or row.url not in query:
            continue
        text = str(query[row.url])
        try:
            value = row.rule.parse(text)
            row.rule.check(name, value, "the link")
        except (ValueError, TypeError) as exc:
            warnings.append(
                f"Link parameter {row.url}={text!r} ignored ({_short(exc)}); "
                f"using the default ({shown_default(row)})."
            )
            continue
        values[name] = value
    return values, warnings


def _short(exc: Exception) -> str:
    return " ".join(str(exc).split())[:200]


def to_command(spec: Any, *, skip: Sequence[str] = ()) -> list[str]:
    """CLI arguments that reproduce ``spec``'s applicable values (every field with a flag)."""
    args: list[str] = []
    for name, row in table(spec):
        value = getattr(spec, name)
        if row.flag is None or name in skip or value is None or not row.applies(spec):
            continue
        if isinstance(row.rule, Flag):
            args += [row.flag] if value else []
        elif isinstance(row.rule, Tuple) and row.rule.size:
            args += [row.flag, *(row.rule.item.format(v) for v in value)]
        else:
            args += [row.flag, _text(row.rule, value)]
    return args
