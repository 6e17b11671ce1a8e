"""The reading in plain words: one language at a time, the classics' quotes as written, and words, not data, when
the cast cannot be judged (liuyao_kg/chart/plain.py)."""
from __future__ import annotations

import re

import pytest

import liuyao_kg
from liuyao_kg.chart import i18n
from liuyao_kg.chart.plain import plain_reading

HAN = re.compile(r"[\u3400-\u9fff]")
HANGUL = re.compile(r"[\uac00-\ud7a3]")
#: characters whose zh-Hant and zh-Hans forms differ, as the readings below use them
TRADITIONAL_ONLY = set("絕動財應斷與問為")
STEMS_BRANCHES = set("甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥")


@pytest.fixture(scope="module")
def jie():
    return liuyao_kg.cast("節之中孚", month="寅", day="辛亥", topic="求財")


@pytest.fixture(scope="module")
def labels():
    return i18n.labels(liuyao_kg.default_graph())


def texts(reading: dict) -> list[str]:
    """Every string a person reads, but the quotes and the names of works and chapters (the classics' own)."""
    out = [reading["verdict"] or "", reading["missing"] or ""]
    out += [r["text"] for r in reading["reasons"]] + [t["text"] for t in reading["timing"]]
    out += [reading["use_god"]["text"]] if reading["use_god"] else []
    return [s for s in out if s]


def test_the_reading_opens_with_the_verdict_its_reasons_the_use_god_and_the_first_times(jie):
    r = plain_reading(jie, "zh")
    assert r["verdict"] == "凶中有吉" and r["favourable"] is False
    assert [x["text"] for x in r["reasons"]] == ["日克（初爻）", "日絕（初爻）", "動爻克（初爻）"]
    assert r["reasons"][0]["quote"] == "日傷爻，真罹其禍" and r["reasons"][0]["passage"] == "ReadingDayHarm"
    assert r["use_god"]["text"].startswith("用神：妻財 丁巳（初爻）")
    assert [t["text"] for t in r["timing"]] == ["子日", "丑日", "亥日"]


def test_english_is_english_but_for_the_stem_branch_names(jie, labels):
    r = plain_reading(jie, "en", labels)
    assert r["verdict"] == "inauspicious, with a hope"
    for s in texts(r):
        assert not HANGUL.search(s) and not set(s) & set("（）：、；"), s  # ASCII punctuation
        assert not set(HAN.findall(s)) - STEMS_BRANCHES, s


def test_korean_is_korean_but_for_the_stem_branch_names(jie, labels):
    for s in texts(plain_reading(jie, "ko", labels)):
        assert HANGUL.search(s) and not set(HAN.findall(s)) - STEMS_BRANCHES, s


def test_simplified_chinese_is_converted_but_the_quotes_are_the_classics_own(jie):
    r = plain_reading(jie, "zh-Hans")
    assert r["lang"] == "zh-Hans" and r["reasons"][1]["text"] == "日绝（初爻）"
    assert not any(set(s) & TRADITIONAL_ONLY for s in texts(r))
    assert r["reasons"][1]["quote"] == "然唯日月之絕為真絕，日月之生為真生"  # as the classic has it


def test_the_trigram_qian_keeps_its_form_in_simplified_chinese():
    assert i18n.simplified("乾為天 乾宮 離為火") == "乾为天 乾宫 离为火"


@pytest.mark.parametrize("lang, says", [("zh", "加上占事"), ("zh-Hans", "加上占事"), ("en", "add a topic"),
                                        ("ko", "점사")])
def test_a_cast_without_a_question_says_what_to_add(lang, says):
    r = plain_reading(liuyao_kg.cast("節之中孚", month="寅", day="辛亥"), lang)
    assert r["verdict"] is None and says in r["missing"] and not r["reasons"] and not r["timing"]


def test_an_unknown_language_is_named():
    with pytest.raises(ValueError, match="language 'fr'"):
        plain_reading({}, "fr")
