"""The web reader in a real browser: Debian's headless Chromium, driven through chromedriver by selenium.

It reads what a person sees: a shared address opens with the reading in plain words, then the chart, then the
evidence; each of the four languages in its own script; no sideways scroll on a phone; a tap shows a quote and a
second tap opens its passage; the form's round trip through the address; refusals in the page's language; the
rule browser and the SPARQL page. Screenshots (1280 and 400 px) go to tests/artifacts/ (git-ignored). Without chromium the test skips, unless
LIUYAO_REQUIRE_BROWSER=1 (.ci/run sets it), which makes a missing browser a failure.
"""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlparse

import pytest
from reader_server import serving

pytestmark = [pytest.mark.browser, pytest.mark.server]

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
CHROMIUM, DRIVER = shutil.which("chromium") or "/usr/bin/chromium", shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--window-size=1400,1000"]
JIE = {"spec": "節之中孚", "month": "寅", "day": "辛亥", "topic": "求財"}


@pytest.fixture(scope="module")
def site():
    with serving() as url:
        yield url


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


def _cast_page(driver, site, fields, lang="zh-Hant"):
    driver.get(f"{site}/cast?{urlencode(fields | {'lang': lang})}")
    return _wait(driver, "#reading")


def _rows(driver):
    from selenium.webdriver.common.by import By

    return {int(r.get_attribute("data-position")): r for r in driver.find_elements(By.CSS_SELECTOR, "#chart-lines tr")}


def _marks(row) -> list[str]:
    from selenium.webdriver.common.by import By

    return [m.text for m in row.find_elements(By.CSS_SELECTOR, ".mark")]


def test_a_shared_address_opens_with_the_reading_then_the_chart_top_line_first(browser, site):
    from selenium.webdriver.common.by import By

    _cast_page(browser, site, JIE)
    reading = _wait(browser, "#reading-verdict", "凶中有吉")
    chart = browser.find_element(By.ID, "chart-lines")
    assert reading.location["y"] < chart.location["y"] < browser.find_element(By.ID, "evidence").location["y"]
    assert [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#reading-reasons .reason .text")] == [
        "日克（初爻）", "日絕（初爻）", "動爻克（初爻）"]
    assert browser.find_element(By.ID, "reading-usegod").text == "用神：妻財 丁巳（初爻） — 日克、日絕；雖暗動"
    assert [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#reading-timing .when b")] == ["子日", "丑日", "亥日"]
    rows = browser.find_elements(By.CSS_SELECTOR, "#chart-lines tr")
    assert [r.get_attribute("data-position") for r in rows] == ["6", "5", "4", "3", "2", "1"]
    line = _rows(browser)
    assert "兄弟戊子水" in line[6].text and "×" in line[6].text and "子孫辛卯木" in line[6].text
    assert _marks(line[6]) == ["卦身", "世身"] and _marks(line[4]) == ["破"] and _marks(line[2]) == ["空"]
    assert "妻財丁巳火" in line[1].text and "世" in line[1].text and _marks(line[1]) == ["用"] and "應" in line[4].text
    assert browser.title == "節之中孚 · 六爻"
    assert all(not d.get_attribute("open") for d in browser.find_elements(By.CSS_SELECTOR, "#evidence details"))
    assert '{"' not in browser.find_element(By.TAG_NAME, "body").text
    browser.save_screenshot(str(ARTIFACTS / "web-1280-zh-Hant.png"))


# CJK allowed in en and ko text: the stems and branches (丁巳, 子日), which the chart writes as they are
STEM_BRANCH = set("甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥")
HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
LATIN = re.compile(r"[A-Za-z]")


def _script_problems(text: str, lang: str) -> list[str]:
    """What in `text` is not in `lang`'s script: Latin letters or Hangul on a Chinese page, Han characters other
    than stems and branches on an English or Korean page, traditional forms on the 简体 page."""
    from liuyao_kg.chart.i18n import simplified

    if lang.startswith("zh"):
        found = LATIN.findall(text) + HANGUL.findall(text)
        if lang == "zh-Hans":
            found += [f"{a}→{b}" for a, b in zip(text, simplified(text)) if a != b]
        return found
    found = [c for c in HAN.findall(text) if c not in STEM_BRANCH]
    return found + (HANGUL.findall(text) if lang == "en" else LATIN.findall(text))


@pytest.mark.parametrize("lang, verdict", [("zh-Hant", "凶中有吉"), ("zh-Hans", "凶中有吉"),
                                           ("en", "inauspicious, with a hope"), ("ko", "흉중유길")])
def test_the_page_speaks_one_language_at_a_time(browser, site, lang, verdict):
    from selenium.webdriver.common.by import By

    _cast_page(browser, site, JIE, lang)
    _wait(browser, "#reading-verdict", verdict)
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == lang
    assert len(browser.find_elements(By.CSS_SELECTOR, "#reading-reasons .reason")) == 3
    seen = browser.find_element(By.ID, "view-cast").text  # the form (folded), the reading, the chart, the headings
    assert seen.count("\n") > 20 and '{"' not in seen
    assert _script_problems(seen, lang) == []
    assert f"lang={lang}" in browser.current_url
    browser.save_screenshot(str(ARTIFACTS / f"web-1280-{lang}.png"))


@pytest.mark.parametrize("lang", ["zh-Hant", "en", "ko"])
def test_a_phone_never_scrolls_sideways(browser, site, lang):
    from selenium.webdriver.common.by import By

    try:
        for width in (400, 360):
            browser.set_window_size(width, 900)
            for fields in (JIE, JIE | {"date": "2024-02-04T16:28+08:00", "month": "", "day": ""}):
                _cast_page(browser, site, fields, lang)
                _wait(browser, "#chart-lines tr")
                for summary in browser.find_elements(By.CSS_SELECTOR, "#evidence summary"):
                    summary.click()  # the evidence unfolded too
                assert browser.execute_script("return document.scrollingElement.scrollWidth <= innerWidth"), \
                    (width, fields, browser.execute_script("return [document.scrollingElement.scrollWidth, innerWidth]"))
            if width == 400:
                browser.save_screenshot(str(ARTIFACTS / f"web-400-{lang}.png"))
    finally:
        browser.set_window_size(1400, 1000)


def _tap(driver, element):
    from selenium.webdriver.common.actions import interaction
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.pointer_input import PointerInput

    actions = ActionBuilder(driver, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
    actions.pointer_action.move_to(element).pointer_down().pointer_up()
    actions.perform()


def test_a_tap_shows_the_quote_and_a_second_tap_opens_the_passage(browser, site):
    from selenium.webdriver.common.by import By

    _cast_page(browser, site, JIE)
    reason = _wait(browser, "#reading-reasons .reason")
    address = browser.current_url
    _tap(browser, reason)
    tip = _wait(browser, "#tip")
    assert "日傷爻，真罹其禍" in tip.text and "黃金策" in tip.text
    assert browser.current_url == address  # the first tap only shows
    _tap(browser, reason)
    _wait(browser, "#passage-text mark")
    assert "/passage/ReadingDayHarm" in browser.current_url
    assert browser.find_element(By.CSS_SELECTOR, "#passage-text mark").text == "日傷爻，真罹其禍"


def test_hovering_a_judgment_or_a_mark_shows_its_rule_and_quote(browser, site):
    from selenium.webdriver.common.by import By

    _cast_page(browser, site, JIE, "ko")
    _wait(browser, "#group-用神 summary").click()
    judgment = _wait(browser, '#group-用神 li[data-id="case-wealth-severed-sibling-moves"]')
    tip = _hover(browser, judgment)
    assert "巳財絕於亥日，兄動奪之，理不應得" in tip.text and "case-wealth-severed-sibling-moves" in tip.text
    assert "사화 처재가" in tip.text  # the Korean rendering of the same passage, on the Korean page
    browser.save_screenshot(str(ARTIFACTS / "web-hover-judgment.png"))
    broken = browser.find_element(By.CSS_SELECTOR, '#chart-lines tr[data-position="4"] .mark.broken')
    tip = _hover(browser, broken)
    assert "MonthBroken" in (broken.get_attribute("data-rule") or "") and "「" in tip.text


def test_the_evidence_names_each_sentence_once_and_each_school_once(browser, site):
    from selenium.webdriver.common.by import By

    _cast_page(browser, site, JIE)
    _wait(browser, "#line-states summary").click()
    chips = [c.text for c in browser.find_elements(By.CSS_SELECTOR, '#line-states [data-position="1"] .chip')]
    assert [c for c in chips if c.startswith("暗動")] == ["暗動（增刪卜易說）"]  # not 暗動、暗動(增刪卜易說)
    texts = [j.get_attribute("textContent") for j in browser.find_elements(By.CSS_SELECTOR, "#evidence .judgment")]
    assert len(texts) == len(set(texts)) > 10


def test_opening_a_passage_highlights_the_sentence_in_its_chapter_with_the_korean_beside(browser, site):
    from selenium.webdriver.common.by import By

    _cast_page(browser, site, JIE)
    _wait(browser, "#group-用神 summary").click()
    link = _wait(browser, '#evidence li[data-id="case-wealth-severed-sibling-moves"] a.open-passage')
    link.click()
    _wait(browser, "#passage-title", "遇時章")
    marks = browser.find_elements(By.CSS_SELECTOR, "#passage-text mark")
    assert marks[0].text == "巳財絕於亥日，兄動奪之，理不應得"
    assert marks[1].text.startswith("사화 처재가 해일에 절하고")
    sentences = [z.text for z in browser.find_elements(By.CSS_SELECTOR, "#passage-text .zh")]
    assert len(sentences) > 1 and len(sentences) == len(set(sentences))  # the rest of the chapter, each sentence once
    assert "/passage/ch-000-yushi-case-wealth-severed-sibling-moves" in browser.current_url
    browser.save_screenshot(str(ARTIFACTS / "web-passage.png"))


def test_the_form_round_trip_keeps_every_field_in_the_address(browser, site):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(f"{site}/cast?lang=zh-Hant")
    form = _wait(browser, "#cast-form")
    typed = {"spec": "節之中孚", "date": "2024-02-04T16:28+08:00", "topic": "婚姻", "about": "妻", "birth": "午",
             "school": "易冒", "use_god": "妻財"}
    browser.find_element(By.ID, "more-fields").click()
    for name, value in typed.items():
        form.find_element(By.NAME, name).send_keys(value)
    Select(form.find_element(By.NAME, "sex")).select_by_value("男")
    Select(form.find_element(By.NAME, "horizon")).select_by_value("月")
    Select(form.find_element(By.NAME, "day_boundary")).select_by_value("23:00")
    form.find_element(By.ID, "cast-button").click()
    _wait(browser, "#reading-verdict")
    query = parse_qs(urlparse(browser.current_url).query)
    assert {k: v[0] for k, v in query.items()} == typed | {"sex": "男", "horizon": "月", "day_boundary": "23:00",
                                                            "lang": "zh-Hant"}
    first = (browser.title, browser.find_element(By.ID, "reading").text, browser.find_element(By.ID, "chart-lines").text)
    assert "月" in browser.find_element(By.ID, "reading-timing").text and "2024-" in first[1]  # by months, with dates
    browser.refresh()
    _wait(browser, "#reading-verdict")
    assert (browser.title, browser.find_element(By.ID, "reading").text,
            browser.find_element(By.ID, "chart-lines").text) == first
    assert browser.find_element(By.NAME, "about").get_attribute("value") == "妻"


def test_now_and_the_coin_toss_fill_the_form_as_the_cli_reads_it(browser, site):
    from selenium.webdriver.common.by import By

    browser.get(f"{site}/cast?lang=en")
    _wait(browser, "#toss").click()
    coins = browser.find_element(By.NAME, "coins").get_attribute("value")
    date = browser.find_element(By.NAME, "date").get_attribute("value")
    assert re.fullmatch(r"[HT]{3}(,[HT]{3}){5}", coins)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d[+-]\d\d:\d\d", date)  # the moment, with the browser's offset
    browser.find_element(By.ID, "cast-button").click()
    _wait(browser, "#chart-lines tr")
    assert parse_qs(urlparse(browser.current_url).query)["coins"] == [coins]
    assert _wait(browser, "#reading-missing").text.startswith("No question asked")


def test_a_cast_without_a_question_says_what_to_add(browser, site):
    from selenium.webdriver.common.by import By

    _cast_page(browser, site, {"spec": "節之中孚", "month": "寅", "day": "辛亥"})
    missing = _wait(browser, "#reading-missing")
    assert missing.text.startswith("未問何事：加上占事")
    assert browser.find_element(By.ID, "reading-verdict").text == ""
    assert '{"' not in browser.find_element(By.ID, "reading").text


@pytest.mark.parametrize("lang, message", [("zh-Hant", "無此卦「節x」"), ("zh-Hans", "无此卦「節x」"),
                                           ("ko", "알 수 없는 괘 「節x」"), ("en", "unknown hexagram name '節x'")])
def test_bad_input_is_refused_in_the_pages_language(browser, site, lang, message):
    browser.get(f"{site}/cast?{urlencode(JIE | {'spec': '節x', 'lang': lang})}")
    error = _wait(browser, "#cast-error")
    assert message in error.text
    if lang != "en":  # the Korean message may show Chinese as it is typed (節之中孚), never English
        assert LATIN.findall(error.text.replace("節x", "")) == []


def test_the_simplified_ui_strings_are_openccs_conversion_of_the_traditional(browser, site):
    from liuyao_kg.chart.i18n import simplified

    browser.get(f"{site}/cast")
    _wait(browser, "#cast-form")
    ui = browser.execute_script("return UI")
    assert set(ui["zh-Hans"]) == set(ui["zh-Hant"]) == set(ui["en"]) == set(ui["ko"])
    assert {k: simplified(v) for k, v in ui["zh-Hant"].items()} == ui["zh-Hans"]


def test_the_nuclear_opposite_and_inverse_hexagrams_show_beside_the_pair_when_the_chart_has_them(browser, site):
    from selenium.webdriver.common.by import By

    _cast_page(browser, site, JIE)
    _wait(browser, "#chart-hexes .hexinfo")
    related = {"nuclear": {"name": "頤"}, "opposite": {"name": "旅"}, "inverse": {"name": "渙"}}
    if "related" not in browser.execute_script("return lastChart.primary"):  # until the chart carries them
        browser.execute_script("const c = structuredClone(lastChart); c.primary.related = arguments[0]; drawChart(c)",
                               related)
    shown = browser.find_elements(By.CSS_SELECTOR, "#chart-hexes .hexinfo:first-child .rel")
    assert [r.get_attribute("data-relation") for r in shown] == ["nuclear", "opposite", "inverse"]
    assert [r.text.split()[0] for r in shown] == ["互", "錯", "綜"]


def test_the_printed_page_is_the_reading_and_the_chart(browser, site):
    from selenium.webdriver.common.by import By

    _cast_page(browser, site, JIE)
    _wait(browser, "#chart-lines tr")
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        shown = {i: browser.find_element(By.ID, i).is_displayed() for i in ("cast-form-box", "evidence", "reading",
                                                                            "chart-lines")}
        assert shown == {"cast-form-box": False, "evidence": False, "reading": True, "chart-lines": True}
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})


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


def test_the_simplified_page_names_works_and_chapters_in_simplified_characters(browser, site):
    """On the 简体 page the rule browser and the passage view name works and chapters in 简体 (OpenCC's conversion,
    computed at build time), the classics' quotes kept as written."""
    from selenium.webdriver.common.by import By

    from liuyao_kg.chart.i18n import simplified

    browser.get(f"{site}/rules?lang=zh-Hans")
    _wait(browser, "#rules-table tbody tr")
    chapters = [o.text for o in browser.find_elements(By.CSS_SELECTOR, "select[name=chapter] option") if "·" in o.text]
    assert "黄金策·遇时章" in chapters or any(c.endswith("·遇时章") for c in chapters)
    assert all(simplified(c) == c for c in chapters), [c for c in chapters if simplified(c) != c][:5]
    cells = [r.find_elements(By.CSS_SELECTOR, "td")[3].text for r in browser.find_elements(By.CSS_SELECTOR,
                                                                                          "#rules-table tbody tr")]
    named = [c.split("「", 1)[0] for c in cells if "「" in c]
    assert named and all(simplified(n) == n for n in named), [n for n in named if simplified(n) != n][:5]
    browser.get(f"{site}/passage/ch-000-yushi-case-wealth-severed-sibling-moves?lang=zh-Hans")
    title = _wait(browser, "#passage-title", "遇时章")
    assert simplified(title.text) == title.text
    marks = browser.find_elements(By.CSS_SELECTOR, "#passage-text mark")
    assert marks[0].text == "巳財絕於亥日，兄動奪之，理不應得"  # the classic's quote as written
