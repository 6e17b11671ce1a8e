"""The web reader in a real browser: Debian's headless Chromium, driven through chromedriver by selenium.

It casts from a shareable address, hovers a judgment and a line state for their rule and quote, opens the
passage in its chapter (sentence highlighted, Korean beside it), switches language, and browses the rules.
Screenshots go to tests/artifacts/ (git-ignored). Without chromium the test skips, unless
LIUYAO_REQUIRE_BROWSER=1 (.ci/run sets it), which makes a missing browser a failure.
"""
from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path
from urllib.parse import urlencode

import pytest

from liuyao_kg.store.embedded import KnowledgeGraph
from liuyao_kg.serve.endpoint import make_server

pytestmark = [pytest.mark.browser, pytest.mark.server]

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
CHROMIUM, DRIVER = shutil.which("chromium") or "/usr/bin/chromium", shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--window-size=1400,1000"]
JIE = {"spec": "節之中孚", "month": "寅", "day": "辛亥", "topic": "求財"}


@pytest.fixture(scope="module")
def site():
    kg = KnowledgeGraph()
    server = make_server(kg.store, "127.0.0.1", 0, kg=kg)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield "http://127.0.0.1:%d" % server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if not (Path(CHROMIUM).exists() and Path(DRIVER).exists()):
        if os.environ.get("LIUYAO_REQUIRE_BROWSER") == "1":
            pytest.fail("LIUYAO_REQUIRE_BROWSER=1 but chromium / chromedriver are not installed")
        pytest.skip("chromium and chromium-driver (Debian) are not installed; .ci/run installs them")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for f in FLAGS + [f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"]:
        options.add_argument(f)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.implicitly_wait(0)
    ARTIFACTS.mkdir(exist_ok=True)
    yield driver
    driver.quit()


def _wait(driver, css, text=None, timeout=30):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(driver, timeout)
    if text is None:
        return wait.until(ec.visibility_of_element_located((By.CSS_SELECTOR, css)))
    wait.until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, css), text))
    return driver.find_element(By.CSS_SELECTOR, css)


def _hover(driver, element):
    from selenium.webdriver import ActionChains

    ActionChains(driver).move_to_element(element).perform()
    return _wait(driver, "#tip")


def test_a_shared_address_draws_the_chart_top_line_first(browser, site):
    from selenium.webdriver.common.by import By

    browser.get(f"{site}/cast?{urlencode(JIE)}")
    _wait(browser, "#judgments li")
    rows = browser.find_elements(By.CSS_SELECTOR, "#chart-lines tr")
    assert [r.get_attribute("data-position") for r in rows] == ["6", "5", "4", "3", "2", "1"]
    assert "兄弟戊子水" in rows[0].text and "×" in rows[0].text and "子孫辛卯木" in rows[0].text
    assert "妻財丁巳火" in rows[5].text and "世" in rows[5].text
    assert "節" in browser.find_element(By.ID, "chart-title").text
    assert browser.find_element(By.ID, "reading").get_attribute("data-placeholder") == "reading"
    browser.save_screenshot(str(ARTIFACTS / "web-chart.png"))


def test_hovering_a_judgment_or_a_state_shows_its_rule_and_quote(browser, site):
    from selenium.webdriver.common.by import By

    browser.get(f"{site}/cast?{urlencode(JIE)}")
    judgment = _wait(browser, '#judgments li[data-id="case-wealth-severed-sibling-moves"]')
    tip = _hover(browser, judgment)
    assert "巳財絕於亥日，兄動奪之，理不應得" in tip.text and "case-wealth-severed-sibling-moves" in tip.text
    assert "사화 처재가" in tip.text  # the Korean rendering of the same passage
    browser.save_screenshot(str(ARTIFACTS / "web-hover-judgment.png"))
    month_broken = browser.find_element(By.CSS_SELECTOR, '#chart-lines tr[data-position="4"] .state[data-term="月破"]')
    tip = _hover(browser, month_broken)
    assert "MonthBroken" in (month_broken.get_attribute("data-rule") or "") and "「" in tip.text


def test_opening_a_passage_highlights_the_sentence_in_its_chapter_with_the_korean_beside(browser, site):
    from selenium.webdriver.common.by import By

    browser.get(f"{site}/cast?{urlencode(JIE)}")
    link = _wait(browser, '#judgments li[data-id="case-wealth-severed-sibling-moves"] a.open-passage')
    link.click()
    _wait(browser, "#passage-title", "遇時章")
    marks = browser.find_elements(By.CSS_SELECTOR, "#passage-text mark")
    assert marks[0].text == "巳財絕於亥日，兄動奪之，理不應得"
    assert marks[1].text.startswith("사화 처재가 해일에 절하고")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#passage-text .zh")) > 1  # the rest of the chapter
    assert "/passage/ch-000-yushi-case-wealth-severed-sibling-moves" in browser.current_url
    browser.save_screenshot(str(ARTIFACTS / "web-passage.png"))


@pytest.mark.parametrize("lang, heading, word", [("en", "Judgments", "Soaring Serpent"), ("ko", "판단", "등사"),
                                                  ("zh", "斷", "螣蛇")])
def test_the_language_switch_translates_the_chart_and_keeps_the_address(browser, site, lang, heading, word):
    from selenium.webdriver.common.by import By

    browser.get(f"{site}/cast?{urlencode(JIE)}")
    _wait(browser, "#judgments li")
    browser.find_element(By.CSS_SELECTOR, f'[data-lang="{lang}"]').click()
    _wait(browser, "#chart-lines", word)
    assert heading in [h.text for h in browser.find_elements(By.CSS_SELECTOR, "#chart h3")]
    assert f"lang={lang}" in browser.current_url
    browser.save_screenshot(str(ARTIFACTS / f"web-lang-{lang}.png"))


def test_bad_input_shows_the_clis_message(browser, site):
    browser.get(f"{site}/cast?{urlencode(JIE | {'spec': '節x'})}")
    error = _wait(browser, "#cast-error")
    assert "unknown hexagram name '節x'" in error.text


def test_the_rule_browser_filters_by_chapter_and_sets_conflicts_side_by_side(browser, site):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(f"{site}/rules")
    _wait(browser, "#rules-count", "條規則")
    _wait(browser, "#conflicts .conflict")
    _wait(browser, "#rules-table tbody tr")
    Select(browser.find_element(By.NAME, "chapter")).select_by_value("遇時章")
    browser.find_element(By.CSS_SELECTOR, "#rules-form button").click()
    _wait(browser, "#rules-table tbody", "case-wealth-severed-sibling-moves")
    rows = browser.find_elements(By.CSS_SELECTOR, "#rules-table tbody tr")
    assert rows and all("遇時章" in r.text for r in rows)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#conflicts .conflict > div")) % 2 == 0
    browser.save_screenshot(str(ARTIFACTS / "web-rules.png"))


def test_the_sparql_page_runs_a_query_over_the_endpoint(browser, site):
    from selenium.webdriver.common.by import By

    browser.get(f"{site}/query")
    _wait(browser, "#query-form button").click()  # visible once the page has routed to the query view
    _wait(browser, "#query-results tbody", "https://w3id.org/liuyao-kg/rule/")
    assert [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#query-results th")] == ["rule", "chapter"]
