"""sslviz explorer: the entry point (run with ``streamlit run app.py``).

It only declares the navigation: Home (``home.py``: the tour gallery and the instance)
and one page per view in ``pages/``, each at its URL path (``/Loss_intervals``, ...). A
page whose file is not there yet is left out.
"""

import streamlit as st

import app_state

app_state.setup("sslviz", "🏠")
st.navigation([
    st.Page(file, title=title, icon=icon, url_path=path, default=path is None)
    for file, title, icon, path in app_state.nav_pages()
]).run()  # fmt: skip
