"""Bounded, thread-safe memos of finished results, without Streamlit: the app's memos of
whole runs (``ui.cache``), and the per-process memos of the curves that runs over many
instances share (:func:`memoised`), which worker processes can fill from outside."""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict, namedtuple
from collections.abc import Callable
from typing import Any

MemoInfo = namedtuple("MemoInfo", "hits misses maxsize currsize")
"""What :meth:`Memo.info` reports, as ``functools.lru_cache``'s ``cache_info()``."""


class Memo:
    """A bounded, thread-safe memo of finished results: keys are frozen settings; only a
    finished result is stored (a stopped computation raises before :meth:`put`); the least
    recently used entry goes first once there are more than ``entries``."""

    def __init__(self, entries: int) -> None:
        self.entries = entries
        self.hits = self.misses = 0
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key):
        """The stored result of ``key`` (now the most recently used), or None."""
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key, value) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.entries:
                self._items.popitem(last=False)

    def get_or_compute(self, key, compute: Callable[[], Any]):
        """The stored result of ``key``, else ``compute()``, stored once it returns (two
        threads asking at once may both compute it: the same result)."""
        found = self.get(key)
        with self._lock:
            if found is None:
                self.misses += 1
            else:
                self.hits += 1
        if found is None:
            found = compute()
            self.put(key, found)
        return found

    def info(self) -> MemoInfo:
        with self._lock:
            return MemoInfo(self.hits, self.misses, self.entries, len(self._items))

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self):
        with self._lock:
            return iter(list(self._items))


def memoised(entries: int) -> Callable[[Callable], Callable]:
    """``functools.lru_cache(maxsize=entries)`` on a :class:`Memo` (the same ``cache_info()``
    and ``cache_clear()``), whose function also answers ``peek(*args)`` (the memoised
    value, or None: nothing computed) and takes ``put(args, value)``: a value computed
    elsewhere, by a worker process, so that what a change keeps is not sent to the
    workers again."""

    def wrap(func: Callable) -> Callable:
        memo = Memo(entries)

        @functools.wraps(func)
        def call(*args):
            return memo.get_or_compute(args, lambda: func(*args))

        call.peek = lambda *args: memo.get(args)
        call.put = memo.put
        call.cache_info = memo.info
        call.cache_clear = memo.clear
        return call

    return wrap
