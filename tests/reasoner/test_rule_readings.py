"""Chapter rules that read the right line (issue 9 part B): each corrected rule stays quiet on the cast that
showed the error and fires on one with the corrected meaning, by the real engine.

Casts: (values bottom-up, month, day, topic[, year]); found by tests/tools/firing_rates.py-style search with
the independent evaluators (old and new tests/oracles/rule_oracle.py), then derived here by the engine.
"""
from __future__ import annotations

import pytest

import liuyao_kg
from liuyao_kg.build import chapters as bc


def _chart(values, month, day, topic, year=None):
    return liuyao_kg.cast(values, month=month, day=day, topic=topic, year=year)


def _fired(chart) -> set[str]:
    return {j["rule"] for j in chart["judgments"]}


def _use_god(chart) -> dict:
    return next(s for s in chart["states"] if s["term"] == "用神")


def _iri(key: str) -> str:
    stem, rid = key.split("/")
    return bc.rule_iri(stem, rid)


def test_hidden_use_god_strength_is_its_own_not_the_flying_lines():
    # 文書 (父母) in 午月 丙寅日: 父母 is absent; its hidden 己卯 wood is 休 in 午 while the flying 土 line is 相
    chart = _chart("669787", "午", "丙寅", "文書")
    use = _use_god(chart)
    flying = chart["lines"][use["lines"][0] - 1]
    assert flying["relative"] != use["relative"] and flying["hidden"]["relative"] == use["relative"]
    assert flying["strength"] in ("旺", "相")
    assert _iri("000-yushi/usegod-in-season-auspicious") not in _fired(chart)
    assert _iri("000-yushi/usegod-out-of-season-inauspicious") in _fired(chart)  # the hidden line's own 休囚


def test_hidden_use_god_overcome_by_the_day_is_read_from_its_own_element():
    chart = _chart("669787", "午", "丙寅", "文書")
    flying = chart["lines"][_use_god(chart)["lines"][0] - 1]
    assert (flying["element"], flying["hidden"]["element"]) == ("土", "木")  # the 寅 (wood) day overcomes earth only
    assert _iri("000-shengwang-mujue/usegod-overcome-by-day-inauspicious") not in _fired(chart)


def test_shown_use_god_rules_do_not_fire_on_a_hidden_use_god():
    # 履 (艮宮土), 求財: no water wealth shown; the hidden 丙子 wealth lies under line 5
    chart = _chart("778777", "午", "丙子", "求財")
    assert _use_god(chart)["rule"].endswith("UseGodHidden")
    assert _iri("002-chuxian/usegod-shown-repeated") not in _fired(chart)
    assert _iri("002-chuxian/usegod-shown-repeated") in _fired(_chart("879666", "子", "壬戌", "求財"))


def test_huozhulin_rules_read_huozhulin_season_table():
    # a 辰 month: the standard table makes earth 旺, 火珠林's (spring) makes it 死
    chart = _chart("688899", "辰", "甲午", "求財")
    shi = next(ln for ln in chart["lines"] if "世" in ln["roles"])
    season = next(s["strength"] for s in shi["states"] if s["term"] == "四時旺衰")
    assert shi["strength"] in ("旺", "相") and season not in ("旺", "相")
    assert _iri("002-pangyao/shi-strong-holds-ground") not in _fired(chart)


@pytest.mark.parametrize("key, quiet, fires", [
    # 白虎扶身: the commentary reads 白虎持世 — quiet when only the 世身 carries 白虎
    ("001a-shenming/tiger-on-body-ruthless", ("769676", "寅", "壬午", "身命"), ("967877", "未", "己巳", "身命")),
    # 咸池凶殺臨身: the commentary reads 此殺若臨世爻
    ("001a-shenming/xianchi-on-body-humble", ("798776", "戌", "庚午", "身命", "庚戌"), ("679768", "丑", "甲子", "身命")),
    # 暗動傷身: the commentary reads 刑剋世爻
    ("004b-zhengzhan/war-ghost-dark-moves-hurts-body-assassin", ("787669", "子", "丁酉", "征戰"), ("877877", "巳", "丁卯", "征戰")),
])
def test_body_read_as_shi_where_the_commentary_says_shi(key, quiet, fires):
    assert _iri(key) not in _fired(_chart(*quiet))
    assert _iri(key) in _fired(_chart(*fires))


@pytest.mark.parametrize("key, quiet, fires", [
    # 遇兄鬼則貧窮破敗, 無氣不動猶可: quiet on a static 休囚 sibling line
    ("001a-shenming/siblings-present-poor", ("889767", "申", "丁亥", "身命"), ("669967", "子", "丙辰", "身命", "辛卯")),
    # 遇財福則富貴榮華, 若遇旺相有氣: quiet on a 休囚 wealth line
    ("001a-shenming/wealth-present-rich", ("879666", "子", "壬戌", "身命"), ("679989", "未", "丁亥", "身命")),
    # 財鬼俱全, 設或…落空亡，其婚難成: quiet when one of them is void
    ("001b-hunyin/wealth-ghost-both-present-great", ("879666", "子", "壬戌", "婚姻"), ("768767", "申", "己酉", "婚姻")),
    # 親上成親 needs 世應財鬼相生相合, not both merely present
    ("001b-hunyin/wealth-ghost-together-kin-fu", ("879666", "子", "壬戌", "婚姻"), ("896768", "丑", "己丑", "婚姻")),
])
def test_presence_only_rules_read_the_commentarys_qualification(key, quiet, fires):
    assert _iri(key) not in _fired(_chart(*quiet))
    assert _iri(key) in _fired(_chart(*fires))
