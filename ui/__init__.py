"""The Streamlit glue of the sslviz app, one job per module (``sslviz`` never imports it).

- :mod:`ui.nav`: the pages and the navigation; :mod:`ui.frame`: the frame every page
  shares (``frame.page(...)``, the first call of every page);
- :mod:`ui.url`: the view's settings in the session and in the URL; :mod:`ui.views`: the
  pages' own settings tables;
- :mod:`ui.sidebar`: the shared sidebar; :mod:`ui.widgets`: controls, charts, outputs;
- :mod:`ui.presenter`: guided tours and presenter mode;
- :mod:`ui.progress`: progress bars and Stop; :mod:`ui.caps`: this server's caps;
- :mod:`ui.cache`: cached computations; :mod:`ui.player`: the Algorithm 4 player's;
- :mod:`ui.compat`: the only use of Streamlit internals, each with a fallback.
"""
