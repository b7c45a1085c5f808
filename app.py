"""sslviz explorer: the entry point (run with ``streamlit run app.py``).

Each session's run of this script declares the navigation (``ui.nav``): Home
(``pages/home.py``: the tour gallery and the instance) and one page per view in ``pages/``,
each at its URL path (``/Loss_intervals``, ...). The Streamlit glue (sidebar, widgets, URL
state, tours, presenter mode, progress, caching) is the ``ui`` package; the computations are
``sslviz``.

Imported as a module (``streamlit run app.py`` finds ``app`` below), it is the server: an
``st.App`` of this script whose lifespan warms the server in the background as it starts to
listen (:func:`ui.warm.lifespan`: worker processes, every page's first view and tour link
computed once, so a visit after it waits for no import and no computation), and whose
pages' HTML has the browser load Plotly's JavaScript from the start (:mod:`ui.index_page`).
"""

import streamlit as st

if __name__ == "__main__":  # a session's script run
    from ui import nav

    nav.main()
else:  # the server
    from ui import index_page, warm

    app = st.App(__file__, lifespan=warm.lifespan, routes=index_page.routes(warm.requested))
