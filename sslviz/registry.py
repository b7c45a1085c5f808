"""The graph families and labeling models sslviz knows: its own and other packages'.

Two registries, one per kind: :data:`FAMILIES` (:class:`sslviz.families.GraphFamily`
objects, entry-point group ``sslviz.families``) and :data:`MODELS`
(:class:`sslviz.labeling.SoftLabelModel` subclasses, group ``sslviz.models``). Each is
filled on its first use, not at ``import sslviz`` (a plug-in's module imports sslviz
itself): first the built-ins, named as an entry point names its object
(``"module:attribute"``), so that this module imports none of them, then every entry point
of its group installed in the environment, in the order of their distributions' names.

Each class is checked (:func:`sslviz.checks.check_family`, :func:`sslviz.checks.check_model`,
their quick form: what it declares, not what it computes) before it is taken. A plug-in
that fails to import, fails the check or takes a name already taken is left out with one
line naming it (its entry point and distribution) and what is wrong (:func:`problems`:
the command line writes them on standard error, the app shows them on the home page and
under the pickers), and everything else works. How to write a plug-in:
``docs/extending.md``.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple


class PluginError(ValueError):
    """A family or model class that does not meet what sslviz needs, in one line that says
    what to change (raised by :func:`sslviz.checks.check_family` and
    :func:`sslviz.checks.check_model`)."""


def _resolve(reference: str) -> Any:
    """The object an entry-point reference ``"package.module:attribute"`` names."""
    module, _, attribute = reference.partition(":")
    obj = importlib.import_module(module)
    for part in attribute.split("."):
        obj = getattr(obj, part)
    return obj


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _who(group: str, ep: importlib.metadata.EntryPoint) -> str:
    """A plug-in in a message: its entry point and the distribution that declares it."""
    dist = getattr(ep, "dist", None)
    source = f" of the distribution {dist.name} {dist.version}" if dist is not None else ""
    return f"The {group} plug-in '{ep.name} = {ep.value}'{source}"


class LeftOut(NamedTuple):
    """A plug-in left out: its entry point's name and the line that says which and why."""

    name: str
    line: str


class Registry:
    """One kind's table: name → family object or model class, filled on first use.

    Parameters
    ----------
    kind : str
        What it holds, in words ("graph family").
    group : str
        The entry-point group of its plug-ins.
    builtins : tuple of str
        The built-in classes as entry-point references (``"sslviz.families:KNN"``).
    check : str
        Reference of the check each class passes (its quick form) before it is taken.
    instances : bool
        True: the table holds one instance of each class (the families); False: the
        classes themselves (the models, built once per problem instance).
    """

    def __init__(
        self, kind: str, group: str, builtins: tuple[str, ...], check: str, *, instances: bool
    ) -> None:
        self.kind, self.group, self.builtins = kind, group, builtins
        self.check, self.instances = check, instances
        self._lock = threading.RLock()
        self._table: dict[str, Any] | None = None
        self._problems: list[LeftOut] = []
        self._trial: dict[str, Any] = {}

    def _load(self) -> dict[str, Any]:
        table = self._table
        if table is None:
            with self._lock:
                if self._table is None:
                    self._table, self._problems = self._fill()
                table = self._table
        return table | self._trial if self._trial else table

    def _fill(self) -> tuple[dict[str, Any], list[LeftOut]]:
        check: Callable[..., None] = _resolve(self.check)
        table: dict[str, Any] = {}
        owner: dict[str, str] = {}
        for reference in self.builtins:  # a built-in that fails is a bug: it raises
            cls = _resolve(reference)
            check(cls, quick=True)
            table[cls.name] = cls() if self.instances else cls
            owner[cls.name] = "sslviz itself"
        problems = []
        found = importlib.metadata.entry_points(group=self.group)
        ordered = sorted(found, key=lambda e: (getattr(e.dist, "name", "") or "", e.name))
        for ep in ordered:
            who = _who(self.group, ep)
            try:
                cls = ep.load()
            except Exception as exc:  # any failure of a plug-in's import leaves it out
                why = f"{type(exc).__name__}: {exc}"
                problems.append(
                    LeftOut(ep.name, f"{who} is left out: importing it failed ({why}).")
                )
                continue
            try:
                check(cls, quick=True)
                obj = cls() if self.instances else cls
            except Exception as exc:  # PluginError, or a constructor that fails
                problems.append(LeftOut(ep.name, f"{who} is left out: {_sentence(exc)}"))
                continue
            if cls.name in table:
                problems.append(
                    LeftOut(
                        ep.name,
                        f"{who} is left out: the {self.kind} name '{cls.name}' is taken by "
                        f"{owner[cls.name]}; give it another name.",
                    )
                )
                continue
            table[cls.name] = obj
            owner[cls.name] = who
        return table, [LeftOut(p.name, _one_line(p.line)) for p in problems]

    def names(self) -> tuple[str, ...]:
        """Every name, built-ins first."""
        return tuple(self._load())

    def values(self) -> tuple[Any, ...]:
        """Every family object or model class, in the order of :meth:`names`."""
        return tuple(self._load().values())

    def get(self, name: str) -> Any:
        """The family object or model class called ``name``; a ValueError in words saying
        which names there are otherwise."""
        table = self._load()
        try:
            return table[name]
        except (KeyError, TypeError):
            known = ", ".join(table)
            raise ValueError(f"There is no {self.kind} called {name!r}: choose {known}.") from None

    def problems(self) -> list[LeftOut]:
        """Each plug-in left out (empty when every plug-in loaded)."""
        self._load()
        return list(self._problems)

    def reset(self) -> None:
        """Forget the table: the next use fills it again (after a plug-in was installed or
        removed in this process, as the tests do)."""
        with self._lock:
            self._table, self._problems = None, []
            importlib.invalidate_caches()

    def trial(self, cls: Any) -> _Trial:
        """A context in which ``cls`` is in the table under its name (for
        :func:`sslviz.checks.check_family` and :func:`sslviz.checks.check_model`, which
        build settings and instances with a class not installed yet)."""
        return _Trial(self, cls)


class _Trial:
    """``with registry.trial(cls):`` the class is in the table (see :meth:`Registry.trial`)."""

    def __init__(self, registry: Registry, cls: Any) -> None:
        self.registry, self.cls = registry, cls

    def __enter__(self) -> Any:
        r = self.registry
        if self.cls.name in r._load():
            return r.get(self.cls.name)
        obj = self.cls() if r.instances else self.cls
        r._trial = {**r._trial, self.cls.name: obj}
        self.added = True
        return obj

    def __exit__(self, *exc: object) -> None:
        if getattr(self, "added", False):
            r = self.registry
            r._trial = {k: v for k, v in r._trial.items() if k != self.cls.name}


def _sentence(exc: BaseException) -> str:
    """An exception's message as the end of a sentence (a final full stop)."""
    text = _one_line(exc) or type(exc).__name__
    return text if text.endswith((".", ")")) else text + "."


class Names(Sequence):
    """The names of a registry's entries (those ``where`` keeps), read at each use: a
    :class:`sslviz.settings.Choice`'s options that plug-ins extend, without filling the
    registry at import."""

    def __init__(self, registry: Registry, where: Callable[[Any], bool] | None = None) -> None:
        self.registry, self.where = registry, where

    def _names(self) -> tuple[str, ...]:
        table = self.registry._load()
        return tuple(n for n, v in table.items() if self.where is None or self.where(v))

    def __getitem__(self, index):  # type: ignore[override]
        return self._names()[index]

    def __len__(self) -> int:
        return len(self._names())

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __contains__(self, value: object) -> bool:
        return value in self._names()

    def __repr__(self) -> str:
        return repr(self._names())


FAMILIES = Registry(
    "graph family",
    "sslviz.families",
    (
        "sslviz.families:Complete",
        "sslviz.families:KNN",
        "sslviz.families:MutualKNN",
        "sslviz.families:Threshold",
    ),
    "sslviz.checks:check_family",
    instances=True,
)
"""The graph families (:class:`sslviz.families.GraphFamily` objects) by name."""

MODELS = Registry(
    "labeling model",
    "sslviz.models",
    (
        "sslviz.labeling:HarmonicModel",
        "sslviz.delalleau:DelalleauModel",
        "sslviz.spreading:SpreadingModel",
    ),
    "sslviz.checks:check_model",
    instances=False,
)
"""The labeling models (:class:`sslviz.labeling.SoftLabelModel` subclasses) by name."""


def family(name: str) -> Any:
    """The :class:`sslviz.families.GraphFamily` called ``name``."""
    return FAMILIES.get(name)


def model(name: str) -> Any:
    """The :class:`sslviz.labeling.SoftLabelModel` subclass called ``name``."""
    return MODELS.get(name)


def problems() -> list[str]:
    """Every plug-in left out, one line each saying which and why (families first)."""
    return [p.line for p in FAMILIES.problems() + MODELS.problems()]


def left_out() -> list[str]:
    """The entry-point names of the plug-ins left out (families first)."""
    return [p.name for p in FAMILIES.problems() + MODELS.problems()]


def reset() -> None:
    """Forget both tables (see :meth:`Registry.reset`)."""
    FAMILIES.reset()
    MODELS.reset()


NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
"""What a family's or model's name may be: lower-case letters and digits, words joined by
hyphens (it is typed on the command line and travels in links)."""
