"""The test suite, by kind:

- ``unit/``: the ``sslviz`` package, module by module, against independent references
  (exact solves, brute force, finite differences, scikit-learn);
- ``app/``: every page through Streamlit's AppTest (no browser);
- ``browser/``: the app served by ``streamlit run`` and driven in headless Chromium
  (the ``server`` fixture: one server per test module);
- ``data/``: checks that need Debian's Fashion-MNIST (``scripts/install.sh test``).

Markers: ``slow`` (over 1.5 s each, browser, real data, subprocesses: outside the quick
run ``python -m pytest``; CI runs everything), ``browser``, ``data``, ``dispatch`` (compares
bits or results across paths: CI runs these again under NumPy's baseline dispatch and the
kernels compiled for a generic CPU, ``scripts/test.sh``). Helpers shared by
several folders live here, beside this file: ``apptest_helpers`` (starting and reading
pages), ``browser_helpers`` (Chromium, a server, waits on charts), ``instances`` (small
instances), ``reference`` (independent implementations, the references the product's paths are
compared with, and their tolerances), ``dispatch``
(the CPU dispatch CI runs under), ``plugin_helpers`` (installing the plug-ins of
``plugins/``, a toy family and model and three bad ones, through entry points).
"""

from __future__ import annotations

import os
import sys

import pytest

HERE = os.path.dirname(__file__)
sys.path.insert(0, HERE)  # the helpers above, from every folder
collect_ignore = ["plugins"]  # plug-in packages, installed by the tests that use them
KINDS = {"data": ("data", "slow"), "browser": ("browser", "slow")}
"""Folder → the markers of every test in it."""


def pytest_collection_modifyitems(config, items):
    from browser_helpers import CHROMIUM, PLAYWRIGHT

    for item in items:
        folder = os.path.relpath(str(item.fspath), HERE).split(os.sep)[0]
        for name in KINDS.get(folder, ()):
            item.add_marker(getattr(pytest.mark, name))
        if folder == "browser" and not os.path.exists(CHROMIUM):
            item.add_marker(pytest.mark.skip(reason=f"{CHROMIUM} is missing"))
        if folder == "browser" and not PLAYWRIGHT:
            item.add_marker(pytest.mark.skip(reason="playwright is not importable"))


@pytest.fixture(scope="module")
def server():
    """A ``streamlit run app.py`` server for the test module; yields its URL."""
    from browser_helpers import streamlit_server

    with streamlit_server() as url:
        yield url
