"""sslviz explorer: the entry point (run with ``streamlit run app.py``).

It only declares the navigation: Home (``home.py``: the tour gallery and the instance)
and one page per view in ``app_pages/``, each at its URL path (``/Loss_intervals``, ...). A
page whose file is not there yet is left out.

First of all, before the page imports sslviz and computes, it has the browser load
Plotly's JavaScript (Streamlit's ``PlotlyChart`` chunk, 4.7 MB): Streamlit fetches it only
when the first chart arrives, and fetching and parsing it then put 1–2 s more on the way
to the first chart of a fresh session (``benchmarks/cold_start.py``).
"""

import glob
import os

import streamlit as st


def _preload_plotly() -> None:
    """Start loading Streamlit's Plotly chunk in the browser (once per page load) from a
    hidden element; nothing when this Streamlit ships no single ``PlotlyChart.*.js``."""
    folder = os.path.join(os.path.dirname(st.__file__), "static", "static", "js")
    chunks = glob.glob(os.path.join(folder, "PlotlyChart.*.js"))
    if len(chunks) != 1:
        return
    name = os.path.basename(chunks[0])
    st.html(
        "<style>[data-testid=stElementContainer]:has(#sslviz-preload){display:none}</style>"
        '<div id="sslviz-preload"></div><script>(() => {'
        " if (window.sslvizPlotly) return; window.sslvizPlotly = 1;"
        " const s = document.querySelector('script[src*=\"static/js/index.\"]');"
        f" if (s) import(new URL({name!r}, s.src).href).catch(() => {{}}); }})();</script>",
        unsafe_allow_javascript=True,
    )


_preload_plotly()

import app_state  # noqa: E402 - after the preload: importing sslviz takes a second or two

app_state.setup()
st.navigation([
    st.Page(file, title=title, icon=icon, url_path=path, default=path is None)
    for file, title, icon, path in app_state.nav_pages()
]).run()  # fmt: skip
