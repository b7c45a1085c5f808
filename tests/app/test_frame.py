"""ui.frame: the frame every page shares."""

import gc
import itertools

from ui import frame


def test_the_first_runs_objects_are_frozen_once(monkeypatch):
    """gc.freeze once, at the third call of page() (a first run can make two)."""
    frozen = []
    monkeypatch.setattr(frame, "_CALLS", itertools.count())
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    for calls in (0, 0, 1, 1, 1):
        frame._freeze_long_lived()
        assert len(frozen) == calls
