"""sslviz explorer: the entry point (run with ``streamlit run app.py``).

It only declares the navigation (``ui.nav``): Home (``pages/home.py``: the tour gallery and
the instance) and one page per view in ``pages/``, each at its URL path
(``/Loss_intervals``, ...). The Streamlit glue (sidebar, widgets, URL state, tours,
presenter mode, progress, caching) is the ``ui`` package; the computations are ``sslviz``.

First of all, before anything imports sslviz, it has the browser load Plotly's JavaScript
(:func:`ui.nav.setup`).
"""

from ui import nav

nav.main()
