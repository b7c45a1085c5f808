"""A fresh server's first paint in real Chromium: no automatic page list ever shows.

With a ``pages/`` folder next to ``app.py``, Streamlit runs a fresh server's first script
run under its automatic page list of that folder (before ``st.navigation`` replaces it),
and a deep link's page file then runs without ``app.py``. The app switches that list off
(``client.showSidebarNavigation = false``) and draws its own (``ui.nav.links``); a page
run that skipped ``app.py`` draws the page under the app's navigation
(``ui.nav.ensure_declared``). Each case starts its own server, so the page is the server's
first run. A MutationObserver, installed before any of the app's scripts run, records
every sidebar page list and "page not found" dialog that is ever in the page; the first
paint is saved in ``test-artifacts/``.
"""

from __future__ import annotations

import re
import urllib.parse

import pytest
from browser_helpers import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    EXCEPTION,
    TIMEOUT_MS,
    streamlit_server,
    sync_playwright,
)

from ui import nav

WATCH = """
window.sslvizSeen = {autoNav: 0, notFound: 0, sidebars: []};
new MutationObserver(() => {
  const seen = window.sslvizSeen;
  if (document.querySelector('[data-testid="stSidebarNav"]')) seen.autoNav += 1;
  const body = document.body ? document.body.innerText : '';
  if (/page not found/i.test(body)) seen.notFound += 1;
  const side = document.querySelector('[data-testid="stSidebar"]');
  if (side && seen.sidebars.length < 200) seen.sidebars.push(side.innerText.slice(0, 200));
}).observe(document, {childList: true, subtree: true, characterData: true});
"""


@pytest.mark.parametrize("path", ["", "Loss_intervals", "CG_iterations"])
def test_a_fresh_server_never_shows_an_automatic_page_list(path):
    with streamlit_server(f"streamlit_first_paint_{path or 'home'}.log") as url:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                page.add_init_script(WATCH)
                page.goto(f"{url}/{path}", timeout=TIMEOUT_MS)
                page.wait_for_selector('[data-testid="stSidebar"]', timeout=TIMEOUT_MS)
                page.screenshot(path=str(ARTIFACTS / f"first_paint_{path or 'home'}.png"))
                page.wait_for_selector(".st-key-nav_links a", timeout=TIMEOUT_MS)
                page.wait_for_selector("h1", timeout=TIMEOUT_MS)
                page.wait_for_timeout(1500)  # any late list would show up by now
                seen = page.evaluate("window.sslvizSeen")
                links = page.locator(".st-key-nav_links a").all_inner_texts()
                heading = page.locator("h1").first.inner_text()
                final_url = page.url
                assert page.locator(EXCEPTION).count() == 0
            finally:
                browser.close()
    assert seen["autoNav"] == 0, "Streamlit's automatic page list was shown"
    assert seen["notFound"] == 0, "a 'page not found' dialog was shown"
    # the sidebar never listed a page file by its file name (e.g. "home", "Loss intervals"
    # is the app's title, "Loss_intervals" would be the file's)
    assert not any("Loss_intervals" in text or "\nhome\n" in text for text in seen["sidebars"])
    assert [t.split("\n")[-1].strip() for t in links] == [p.title for p in nav.nav_pages()]
    assert heading == _heading(path)
    assert urllib.parse.urlsplit(final_url).path.strip("/") == path  # the page asked for


def _heading(path: str) -> str:
    """The heading a page file gives ``ui.frame.page`` (its first argument)."""
    file = next(p.file for p in nav.NAV if p.path == (path or None))
    text = (nav.ROOT / file).read_text()
    match = re.search(r"frame\.page\(\s*\"([^\"]+)\"", text)
    return match.group(1)
