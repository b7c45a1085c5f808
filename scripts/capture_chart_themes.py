"""Read Streamlit's chart theme off its own charts into ``static/chart_themes.json``.

``st.plotly_chart`` themes a figure in the browser: it replaces the figure's template by
one it derives from the page's light or dark theme. The app's chart element
(``ui.plotly_element``) draws every figure with that template, read here from a figure of
the app (its template ``sslviz.plots.style.TEMPLATE``) drawn by ``st.plotly_chart`` in
headless Chromium, once per colour scheme. Run it after a Streamlit upgrade; the browser
test ``tests/browser/test_browser_chart_element.py`` fails until it has been run.

    python scripts/capture_chart_themes.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from browser_helpers import drawn_in_each_scheme, two_chart_server  # noqa: E402


def main() -> None:
    from ui import index_page

    with tempfile.TemporaryDirectory() as tmp, two_chart_server(Path(tmp)) as url:
        seen = drawn_in_each_scheme(url)
    themes = {scheme: charts[0]["template"] for scheme, charts in seen.items()}  # Streamlit's
    out = index_page.STATIC / "chart_themes.json"
    out.write_text(json.dumps(themes, separators=(",", ":"), sort_keys=True))
    print(f"wrote {out.relative_to(ROOT)} ({out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
