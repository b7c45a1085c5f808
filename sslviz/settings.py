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
from numbers import Integral, Real
from typing import Any, ClassVar

from sslviz._validation import (
    InvalidParameterError,
    in_range,
    not_whole,
    options_text,
    rule_text,
    value_text,
)

# --------------------------------------------------------------------------------------
# Messages: a setting named by its label (the app) or its flag (the command line)
# --------------------------------------------------------------------------------------


def esc(text: object) -> str:
    """``text`` safe inside a :class:`SettingError` template (its braces doubled)."""
    return str(text).replace("{", "{{").replace("}", "}}")


class _Names:
    """``{who[n]}`` and ``{eq[n]}`` of a template: a setting's name, and its name before a
    value ("n =" by the label, "--n" by the flag)."""

    def __init__(self, name: Callable[[str], str], cli: bool, eq: bool) -> None:
        self.name, self.cli, self.eq = name, cli, eq

    def __getitem__(self, field: str) -> str:
        who = self.name(field)
        if not self.eq:
            return who
        return who if self.cli and who.startswith("--") else f"{who} ="


class SettingError(InvalidParameterError):
    """A setting broke its rule. The message is one line in words and names each setting by
    its label (``n``, ``|L|``, ``σ_min``), or, on the command line, by its flag (``--n``,
    ``--labeled``): :meth:`text`. Its template writes ``{who[field]}`` for a setting's
    name and ``{eq[field]}`` before its value ("|L| = 10", "--labeled 10")."""

    def __init__(
        self, template: str, rows: dict[str, Setting] | None = None, *, cli: bool = False
    ) -> None:
        self.template, self.rows, self.cli = template, dict(rows or {}), cli
        super().__init__(self.text(cli=cli))

    def text(self, *, cli: bool = False, labels: dict[str, str] | None = None) -> str:
        """The message, each setting by its label (``labels`` overrides some: the sidebar's
        r_min on the threshold family) or, with ``cli``, by its flag where it has one."""
        labels = labels or {}

        def name(field: str) -> str:
            row = self.rows.get(field)
            if cli and row is not None and row.flag:
                return row.flag
            return labels.get(field) or label_of(row, field)

        return self.template.format_map(
            {"who": _Names(name, cli, eq=False), "eq": _Names(name, cli, eq=True)}
        )

    def named(self, rows: dict[str, Setting]) -> SettingError:
        """This error with the rows that name its settings."""
        return type(self)(self.template, rows | self.rows, cli=self.cli)

    def on_command_line(self) -> SettingError:
        """This error with every setting named by its flag."""
        return type(self)(self.template, self.rows, cli=True)

    def __reduce__(self):  # rows hold functions: a worker process sends the words only
        return (InvalidParameterError, (str(self),))


class SettingTypeError(SettingError, TypeError):
    """A setting of the wrong kind (a text where a number belongs)."""


def label_of(row: Setting | None, field: str) -> str:
    """A setting as a person reads it: its label, else its field name in words."""
    return row.label if row is not None and row.label else field.replace("_", " ")


def _must(name: str, rule: str, value: object, kind: type = SettingError) -> SettingError:
    return kind(f"{{who[{name}]}} must be {esc(rule)}, not {esc(value_text(value))}.")


# --------------------------------------------------------------------------------------
# Rules: how a value is checked, parsed from text and written as text
# --------------------------------------------------------------------------------------


class Rule:
    """How one setting's values are checked, parsed from text (CLI, URL) and written."""

    widget = "number"

    def check(self, name: str, value: Any, caller: str) -> Any:
        """``value`` as the setting holds it; :class:`SettingError` naming field ``name``
        (``caller`` is kept for the call sites, never named) when it breaks the rule."""
        raise NotImplementedError

    def parse(self, text: str) -> Any:
        return text

    def format(self, value: Any) -> str:
        return str(value)

    def describe(self) -> str:
        return ""

    def invalid(self) -> list:
        """Values this rule refuses, each breaking it one way (for tests that walk every
        setting with a bad value and read the message)."""
        return []


@dataclass(frozen=True)
class Int(Rule):
    low: int | None = None
    high: int | None = None

    def check(self, name, value, caller):
        if isinstance(value, bool) or not isinstance(value, Integral):
            raise SettingTypeError(
                f"{{who[{name}]}} must be {esc(self.describe())}, not {esc(not_whole(value))}."
            )
        if not in_range(int(value), self.low, self.high, integer=True):
            raise _must(name, self.describe(), value)
        return int(value)

    def parse(self, text):
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{text!r} is not a whole number") from None

    def describe(self):
        return rule_text(self.low, self.high, integer=True)

    def invalid(self):
        ends = [] if self.low is None else [self.low - 1]
        ends += [] if self.high is None else [self.high + 1]
        return [*ends, 2.5, "3", True]


@dataclass(frozen=True)
class Float(Rule):
    low: float | None = None
    high: float | None = None
    closed: str = "both"
    fmt: str = "%.4g"

    def check(self, name, value, caller):
        if isinstance(value, bool) or not isinstance(value, Real):
            raise _must(name, self.describe(), value, SettingTypeError)
        if not in_range(float(value), self.low, self.high, self.closed):
            raise _must(name, self.describe(), value)
        return float(value)

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
        return rule_text(self.low, self.high, self.closed)

    def invalid(self):
        out: list = [math.inf, math.nan, "0.5", False]
        if self.low is not None:
            out.append(self.low if self.closed in ("right", "neither") else self.low - 1)
        if self.high is not None:
            out.append(self.high if self.closed in ("left", "neither") else self.high + 1)
        return out


@dataclass(frozen=True)
class Choice(Rule):
    """One of ``options``: a tuple, or a sequence read at each use (the graph families and
    labeling models, which plug-ins extend: :class:`sslviz.registry.Names`)."""

    options: Sequence[str] = ()
    widget: ClassVar[str] = "select"

    def check(self, name, value, caller):
        if value not in self.options:
            raise _must(name, options_text(self.options), value)
        return str(value)

    def describe(self):
        return options_text(self.options)

    def invalid(self):
        return ["no-such-option", 3]


@dataclass(frozen=True)
class Flag(Rule):
    widget: ClassVar[str] = "checkbox"

    def check(self, name, value, caller):
        if not isinstance(value, bool):
            raise _must(name, "on or off", value, SettingTypeError)
        return value

    def invalid(self):
        return ["yes", 1]

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
        if not isinstance(value, str):
            raise _must(name, "a text", value, SettingTypeError)
        if not value:
            raise SettingError(f"{{who[{name}]}} must not be empty.")
        return value

    def invalid(self):
        return ["", 3]


@dataclass(frozen=True)
class Tuple(Rule):
    """A tuple of items (each checked by ``item``); text form ``a,b,c``.

    ``size`` fixes the length (classes: 2); ``options`` restricts the items and keeps
    their order; ``distinct`` forbids repeats; ``nonempty`` forbids ().
    """

    item: Rule = Int()
    size: int | None = None
    options: Sequence = ()
    distinct: bool = True
    nonempty: bool = True

    @property
    def widget(self) -> str:  # type: ignore[override]
        return "pair" if self.size == 2 else "multiselect"

    @property
    def nargs(self) -> int | str | None:
        """How many values its CLI option takes (argparse's ``nargs``): ``size``, or None
        for one ``a,b,c`` text."""
        return self.size

    def parse_item(self, text: str) -> Any:
        """One value of the CLI option (where ``nargs`` is set)."""
        return self.item.parse(text)

    def check(self, name, value, caller):
        if isinstance(value, str | bytes) or not isinstance(value, Sequence):
            raise _must(name, self._what(), value, SettingTypeError)
        try:
            items = tuple(self.item.check(name, v, caller) for v in value)
        except SettingError as exc:  # "classes: each value must be a whole number ..."
            who = f"{{who[{name}]}}"
            each = exc.template.replace(f"{who} must", f"{who}: each value must", 1)
            raise type(exc)(each) from None
        problem = None
        if self.size is not None and len(items) != self.size:
            problem = f"must be {self.size} values, not {len(items)}"
        elif self.nonempty and not items:
            problem = "must have at least one value"
        elif self.distinct and len(set(items)) != len(items):
            twice = next(v for v in items if items.count(v) > 1)
            problem = f"must not repeat a value ({value_text(twice)} is given twice)"
        elif self.options and any(v not in self.options for v in items):
            other = next(v for v in items if v not in self.options)
            problem = f"must be among {options_text(self.options, 'and')}, not {value_text(other)}"
        if problem:
            raise SettingError(f"{{who[{name}]}} {esc(problem)}.")
        return items

    def _what(self) -> str:
        return "a sequence of values" if self.size is None else f"{self.size} values"

    def invalid(self):
        item = self.item.invalid()[0]
        good = list(self.options[:1]) or [1]
        out = ["ab", 3, (item,), good * 2]
        if self.size is not None:
            out.append(tuple(range(self.size + 1)))
        if self.nonempty:
            out.append(())
        if self.options:
            out.append(("no-such-option",))
        return out

    def parse(self, text):
        return tuple(self.item.parse(t.strip()) for t in text.split(",") if t.strip())

    def format(self, value):
        return ",".join(self.item.format(v) for v in value)

    def describe(self):
        if self.size:
            return f"{self.size} values, each {self.item.describe()}"
        if self.options:
            return "any of " + ", ".join(map(str, self.options))
        return "values, each " + self.item.describe()


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

    def invalid(self):
        return self.rule.invalid()

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
    help_text : str or callable() -> str
        Help text in the paper's terms (CLI ``--help``, widget tooltip), read as
        :attr:`help`; a callable is called at each read (the families' and models' help,
        which plug-ins extend).
    flag : str or None
        CLI option (``--cg-iters``); None: not on the command line.
    url : str or None
        URL query key (``t``); None: not in the URL (e.g. a local file path).
    label : str
        Widget label (defaults to the field name).
    relevant : callable(spec) -> bool, optional
        False where the setting does not apply (k for the complete graph, λ for the
        harmonic labeling); such values are left out of the URL and the command.
    written_unread : bool, default=True
        False: :meth:`Spec.to_dict` (the settings of every JSON document) also leaves the
        value out where the setting does not apply (a model's own parameter, written only
        for that model).
    """

    default: Any
    rule: Rule
    help_text: str | Callable[[], str]
    flag: str | None = None
    url: str | None = None
    label: str = ""
    relevant: Callable[[Any], bool] | None = None
    written_unread: bool = True

    @property
    def help(self) -> str:
        """The help text (:attr:`help_text`, called when it is a callable)."""
        return self.help_text() if callable(self.help_text) else self.help_text

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
        rows = dict(table(self))
        try:
            for name, row in rows.items():
                object.__setattr__(self, name, row.rule.check(name, getattr(self, name), caller))
            self._cross(caller)
        except SettingError as exc:
            raise exc.named(rows) from None

    def _cross(self, caller: str) -> None:
        """Cross-field rules (none by default): each raises a :class:`SettingError` whose
        template names the settings it involves (``{who[n]}``), checked in the order a
        person fixes them (each setting's own rule first)."""

    def replace(self, **changes: Any):
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        return {
            name: list(v) if isinstance(v := getattr(self, name), tuple) else v
            for name, row in table(self)
            if row.written_unread or row.applies(self)
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
        elif isinstance(rule, Tuple) and rule.nargs:
            kw |= {
                "nargs": rule.nargs,
                "type": _named(rule.parse_item, rule.item),
                "metavar": tuple(f"C{i}" for i in range(rule.size)) if rule.size else "C",
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
    if cli and isinstance(row.rule, Tuple) and row.rule.nargs:
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
    """Build ``cls`` from parsed CLI options (defaults for what was not given); a broken
    rule names the settings by their flags (``--labeled 10 must be smaller than --n 10``)."""
    try:
        return cls(**(given_options(namespace, cls) | overrides))
    except SettingError as exc:
        raise exc.on_command_line() from None


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
            why = exc.named({name: row}) if isinstance(exc, SettingError) else exc
            warnings.append(
                f"Link parameter {row.url}={text!r} ignored ({_short(why)}); "
                f"using the default ({shown_default(row)})."
            )
            continue
        values[name] = value
    return values, warnings


def _short(exc: Exception) -> str:
    return " ".join(str(exc).split())[:200].rstrip(".")


def to_command(spec: Any, *, skip: Sequence[str] = ()) -> list[str]:
    """CLI arguments that reproduce ``spec``'s applicable values (every field with a flag)."""
    args: list[str] = []
    for name, row in table(spec):
        value = getattr(spec, name)
        if row.flag is None or name in skip or value is None or not row.applies(spec):
            continue
        if isinstance(row.rule, Flag):
            args += [row.flag] if value else []
        elif isinstance(row.rule, Tuple) and row.rule.nargs:
            args += [row.flag, *row.rule.format(value).split(",")]
        else:
            args += [row.flag, _text(row.rule, value)]
    return args
