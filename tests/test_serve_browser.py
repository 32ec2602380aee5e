"""The web view in a real browser: Debian's headless Chromium, driven through its chromedriver by
Selenium, against a real server on 127.0.0.1. A person signs in, follows a citation to its highlighted
source lines, searches (and opens a hit's explanation), asks, sees a contradiction; a public reader then
fails to reach a board page by URL, search, link or history.

`SERVE_SCREENSHOTS=DIR` keeps the screenshots of the main views in DIR (docs/ holds the ones taken so)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serve_support import running_server
from test_answer_support import BOARD, CANARY, PUBLIC, build_wiki

CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
# CI installs them (make browser); a developer machine without them skips, CI never does.
pytestmark = pytest.mark.skipif((CHROMIUM is None or DRIVER is None) and not os.environ.get("CI"),
                                reason="chromium and chromium-driver are not installed (make browser)")

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1280,900")
BOARD_NOTE = "layers/board/wiki/notes/Board minutes.md"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from conftest import git
    from test_index_support import HashEmbedder

    from stigmergy.index.build import build_index

    base = tmp_path_factory.mktemp("browser")
    b = build_wiki(base / "w", index=False)
    # A public page that names the board's page: its reader must not get a link out of it.
    b.wiki("concept", "Acquisitions", "- Offers are recorded in [[Board minutes]] and [[Q1 report]].\n")
    git(b.root, "add", "-A")
    git(b.root, "commit", "-qm", "acquisitions")
    build_index(b.root, b.settings, embedder=HashEmbedder())
    with running_server(b.root, base / "tokens.json") as srv:
        yield srv


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM or "/usr/bin/chromium"
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    driver = webdriver.Chrome(service=Service(DRIVER or "/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(120)
    try:
        yield driver
    finally:
        driver.quit()


def _shot(driver: Any, tmp_path: Path, name: str) -> None:
    path = tmp_path / f"serve-{name}.png"
    driver.save_screenshot(str(path))
    assert path.stat().st_size > 1000
    if out := os.environ.get("SERVE_SCREENSHOTS"):
        shutil.copy(path, Path(out) / path.name)


def _wait(driver: Any, css: str, text: str | None = None) -> Any:
    """The element once the page that holds it has loaded (a click or Enter navigates asynchronously)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(driver, 60)
    if text is not None:
        wait.until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, css), text))
    return wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, css)))


def _sign_in(driver: Any, site: Any, email: str) -> None:
    from selenium.webdriver.common.by import By

    _record, token = site.tokens.add(email)
    driver.delete_all_cookies()
    driver.get(site.url + "/signin")
    driver.find_element(By.ID, "token").send_keys(token)
    driver.find_element(By.ID, "signin").click()
    assert _wait(driver, "header .who", email).text == email


def test_a_person_reads_follows_a_citation_searches_asks(site: Any, browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    _sign_in(browser, site, PUBLIC)
    assert browser.get_cookie("stigmergy_session")["httpOnly"] is True
    assert browser.get_cookie("stigmergy_session")["sameSite"] == "Strict"
    _shot(browser, tmp_path, "home")
    # The page, its contradiction drawn as two claims side by side, and a citation to follow.
    browser.find_element(By.LINK_TEXT, "Q1 report").click()
    block = _wait(browser, "section.contradiction")
    claims = block.find_elements(By.CLASS_NAME, "claim")
    assert len(claims) == 2 and "2026-03-28" in claims[0].text and "2026-04-02" in claims[1].text
    assert claims[0].location["y"] == claims[1].location["y"] and claims[0].location["x"] < claims[1].location["x"]
    assert "(current)" in browser.find_element(By.ID, "fresh").text
    _shot(browser, tmp_path, "page")
    browser.find_element(By.CSS_SELECTOR, "article a.citation").click()
    _wait(browser, "#provenance")
    assert "?hl=" in browser.current_url
    marked = browser.find_elements(By.CSS_SELECTOR, "tr.hl")
    assert len(marked) == 1 and "Aurora revenue was $1.3M" in marked[0].text
    assert marked[0].is_displayed()
    top = browser.execute_script("return arguments[0].getBoundingClientRect().top", marked[0])
    assert 0 <= top < 900  # scrolled to the cited line
    assert "sha256" in browser.find_element(By.ID, "provenance").text
    _shot(browser, tmp_path, "source")
    # Search, and a hit's explanation on demand.
    box = browser.find_element(By.CSS_SELECTOR, "header input[name=q][aria-label=Search]")
    box.send_keys("Lisbon office", Keys.ENTER)
    _wait(browser, "#hits")
    hits = browser.find_elements(By.CSS_SELECTOR, "#hits .hit")
    assert hits and "Q1 report" in hits[0].text
    why = hits[0].find_element(By.CSS_SELECTOR, "details.explain")
    assert not why.find_element(By.TAG_NAME, "p").is_displayed()
    why.find_element(By.TAG_NAME, "summary").click()
    assert "arms:" in why.find_element(By.TAG_NAME, "p").text
    _shot(browser, tmp_path, "search")
    # Ask: a cited answer.
    box = browser.find_element(By.CSS_SELECTOR, "header input[name=q][aria-label=Ask]")
    box.send_keys("What was Aurora's revenue in Q1 2026?", Keys.ENTER)
    answer = _wait(browser, "#answer")
    assert "$1.3M" in answer.text and answer.find_elements(By.CSS_SELECTOR, "a.citation")
    _shot(browser, tmp_path, "ask")
    browser.find_element(By.LINK_TEXT, "Contradictions").click()
    assert "Aurora Q1 revenue" in _wait(browser, "#contradictions").text
    _shot(browser, tmp_path, "contradictions")


def test_a_public_reader_cannot_reach_a_board_page(site: Any, browser: Any, tmp_path: Path) -> None:
    from urllib.parse import quote

    from selenium.webdriver.common.by import By

    _sign_in(browser, site, PUBLIC)
    browser.get(site.url + "/page/" + quote(BOARD_NOTE))  # by URL
    assert "no page at" in browser.page_source and CANARY not in browser.page_source
    _shot(browser, tmp_path, "not-found")
    browser.get(site.url + "/history/" + quote(BOARD_NOTE))  # by its history
    assert "no page at" in browser.page_source and "Orbis" not in browser.page_source
    browser.get(site.url + "/search?q=" + quote("Orbis offered to acquire Aurora"))  # by search
    assert all("layers/board" not in (a.get_attribute("href") or "") for a in browser.find_elements(By.TAG_NAME, "a"))
    assert CANARY not in browser.page_source and "$72M" not in browser.page_source
    browser.get(site.url + "/page/" + quote("wiki/concepts/Acquisitions.md"))  # by a link
    article = browser.find_element(By.ID, "page")
    assert [a.text for a in article.find_elements(By.CSS_SELECTOR, "a.wikilink")] == ["Q1 report"]
    assert article.find_element(By.CLASS_NAME, "wikilink-missing").text == "Board minutes"
    # The board's reader, in the same browser, gets the link and the page.
    _sign_in(browser, site, BOARD)
    browser.get(site.url + "/page/" + quote("wiki/concepts/Acquisitions.md"))
    browser.find_element(By.LINK_TEXT, "Board minutes").click()
    assert CANARY in _wait(browser, "#page", CANARY).text
    # Signing out ends the session: the page is behind the sign-in again.
    browser.find_element(By.CSS_SELECTOR, "form[action='/signout'] button").click()
    _wait(browser, "#token")
    browser.get(site.url + "/page/" + quote(BOARD_NOTE))
    assert browser.current_url.endswith("/signin") and CANARY not in browser.page_source


def test_a_reader_marks_a_page_wrong_from_its_view(site: Any, browser: Any, tmp_path: Path) -> None:
    """The feedback control in a real browser: the form posts from this origin (the CSP's form-action and
    the server's Origin check both let it through), the judgement is the signed-in person's, and it shows."""
    import json
    from urllib.parse import quote

    from selenium.webdriver.common.by import By

    page = "wiki/concepts/Acquisitions.md"
    _sign_in(browser, site, PUBLIC)
    browser.get(site.url + "/page/" + quote(page))
    browser.find_element(By.ID, "note").send_keys("the offer was withdrawn")
    browser.find_element(By.ID, "wrong").click()
    _wait(browser, "#recorded")
    assert "the offer was withdrawn" in browser.find_element(By.ID, "notes").text
    assert "1 feedback" in browser.find_element(By.CSS_SELECTOR, "p.meta").text
    _shot(browser, tmp_path, "feedback")
    root = site.config.service.root
    records = [json.loads(line) for b in (root / "feedback").rglob("fb_*.jsonl") for line in b.read_text().splitlines()]
    assert [(r["by"], r["kind"], r["path"]) for r in records] == [(PUBLIC, "wrong", page)]
