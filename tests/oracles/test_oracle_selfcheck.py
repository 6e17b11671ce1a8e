"""Checks of the independent oracle (tests/oracles/oracle.py) against facts stated by the classics."""
from collections import Counter

import pytest

from oracle import (
    BRANCHES, HEXAGRAMS, KING_WEN, NAJIA, PALACES, SIX_CLASH_HEX, SIX_COMBINE_HEX, clashes, combines,
    first_difference, hexagram_lines, name_to_bits, normalize_production, oracle_chart, values_for_pair,
)


def chart(pair, month, day):
    p, _, c = pair.partition("之")
    return oracle_chart(values_for_pair(p, c or p), month, day)


def terms(line):
    return {t for t, _ in line["states"]}


def rel(ch, a, b, r):
    return [a, b, r] in ch["relations"]


def cast_state(ch, term):
    return [s for s in ch["states"] if s[0] == term]


def test_jie_zhi_zhongfu():  # 易冒: 節之中孚, 寅月 辛亥日
    ch = chart("節之中孚", "寅", "辛亥")
    assert ch["primary"]["name"] == "節" and ch["changed"]["name"] == "中孚"
    assert ch["primary"]["palace"] == "坎" and ch["primary"]["palace_element"] == "水"
    assert (ch["primary"]["shi"], ch["primary"]["ying"]) == (1, 4)
    l1, l6 = ch["lines"][0], ch["lines"][5]
    assert (l1["stem"], l1["branch"], l1["relative"], l1["stage_day"]) == ("丁", "巳", "妻財", "絕")
    assert (l6["stem"], l6["branch"], l6["relative"], l6["moving"]) == ("戊", "子", "兄弟", True)
    assert cast_state(ch, "獨發") == [["獨發", [6]]]
    assert rel(ch, "line:6", "line:1", "克")
    assert "六合" in ch["primary"]["kind"]
    assert ch["void"] == ["寅", "卯"]  # 辛亥 is in 甲辰旬


def test_dachu_zhi_xiaochu():  # 大畜之小畜, 午月 己巳日
    ch = chart("大畜之小畜", "午", "己巳")
    assert ch["primary"]["palace"] == "艮" and ch["primary"]["shi"] == 2
    l5 = ch["lines"][4]
    assert (l5["stem"], l5["branch"], l5["relative"], l5["moving"]) == ("丙", "子", "妻財", True)
    assert "月破" in terms(l5)
    assert (l5["change"]["stem"], l5["change"]["branch"]) == ("辛", "巳")
    assert "化絕" in terms(l5)
    assert ch["changed"]["palace"] == "巽"


def test_pi_zhi_lin():  # 否之臨, 寅月 己亥日
    ch = chart("否之臨", "寅", "己亥")
    assert ch["primary"]["palace"] == "乾"
    assert (ch["primary"]["shi"], ch["primary"]["ying"]) == (3, 6)
    assert "六合" in ch["primary"]["kind"] and ["六合", None] in ch["states"]
    assert cast_state(ch, "獨靜") == [["獨靜", [3]]]
    l3, l5 = ch["lines"][2], ch["lines"][4]
    assert (l3["stem"], l3["branch"], l3["relative"], l3["stage_day"]) == ("乙", "卯", "妻財", "長生")
    assert not l3["moving"]
    assert (l5["stem"], l5["branch"], l5["relative"], l5["moving"]) == ("壬", "申", "兄弟", True)
    assert "月破" in terms(l5)


def test_dui_zhi_jie():  # 兌之節, 午月 丙子日
    ch = chart("兌之節", "午", "丙子")
    assert "六沖" in ch["primary"]["kind"] and "六合" in ch["changed"]["kind"]
    st = {s[0] for s in ch["states"]}
    assert {"六沖", "變六合", "六沖變六合"} <= st and "六合變六沖" not in st
    l6, l3 = ch["lines"][5], ch["lines"][2]
    assert (l6["stem"], l6["branch"]) == ("丁", "未") and "月合" in terms(l6)
    assert (l3["stem"], l3["branch"]) == ("丁", "丑") and "日合" in terms(l3)


def test_gou_zhi_ding():  # 火珠林: 姤之鼎
    ch = chart("姤之鼎", "子", "甲子")
    assert ch["primary"]["palace"] == "乾" and ch["primary"]["shi"] == 1
    l1, l5 = ch["lines"][0], ch["lines"][4]
    assert (l1["stem"], l1["branch"]) == ("辛", "丑")
    assert (l1["hidden_palace"]["stem"], l1["hidden_palace"]["branch"]) == ("甲", "子")
    assert l1["hidden_palace"]["relative"] == "子孫"
    assert (l5["stem"], l5["branch"], l5["moving"]) == ("壬", "申", True)
    assert (l5["change"]["stem"], l5["change"]["branch"]) == ("己", "未")
    assert (l5["nayin"], l5["change"]["nayin"]) == ("劍鋒金", "天上火")
    # 姤 lacks 妻財 (寅木): the hidden 伏神 is 乾's line 2 甲寅
    assert ch["lines"][1]["hidden"] == {"stem": "甲", "branch": "寅", "relative": "妻財"}
    assert sum(ln["hidden"] is not None for ln in ch["lines"]) == 1


def test_guan_shishen():  # 天玄賦 疾病: 觀, 世身 on line 2
    ch = chart("觀", "子", "甲子")
    assert ch["changed"] is None
    assert ch["primary"]["palace"] == "乾" and ch["primary"]["shi"] == 4
    l2 = ch["lines"][1]
    assert (l2["stem"], l2["branch"], l2["relative"]) == ("乙", "巳", "官鬼")
    assert "世身" in l2["roles"]
    assert all(ln["change"] is None for ln in ch["lines"])


def test_gua_shen():  # 火珠林 卦身: 陽世從子, 陰世從午
    ch = chart("姤", "子", "甲子")  # 世1 yin → 午: 姤 line 4 壬午
    assert [ln["position"] for ln in ch["lines"] if "卦身" in ln["roles"]] == [4]
    ch = chart("乾", "子", "甲子")  # 世6 yang → 子丑寅卯辰巳 → 巳: none on 乾
    assert not any("卦身" in ln["roles"] for ln in ch["lines"])
    ch = chart("坤", "子", "甲子")  # 世6 yin → 午…亥 → 亥: 坤 line 5 癸亥
    assert [ln["position"] for ln in ch["lines"] if "卦身" in ln["roles"]] == [5]


def test_tables():
    assert len(KING_WEN) == 64 and len({name_to_bits(h) for h in KING_WEN}) == 64
    in_palaces = [h for hs in PALACES.values() for h in hs]
    assert len(in_palaces) == 64 and set(in_palaces) == set(HEXAGRAMS)
    assert all(len(hs) == 8 and hs[0] == p for p, hs in PALACES.items())
    assert Counter(len(hs) for hs in PALACES.values()) == {8: 8}
    assert len(SIX_CLASH_HEX) == 10 and len(SIX_COMBINE_HEX) == 8
    # the hard-coded lists agree with the 納甲 definition of 六沖/六合 (lines i and i+3)
    for h in KING_WEN:
        brs = [gz[1] for gz in hexagram_lines(h)]
        assert (h in SIX_CLASH_HEX) == all(clashes(brs[i], brs[i + 3]) for i in range(3)), h
        assert (h in SIX_COMBINE_HEX) == all(combines(brs[i], brs[i + 3]) for i in range(3)), h


def test_palace_structure():
    # cross-check the hand-written 八宮 list against the 京房 flipping rule (test-only, not used by the oracle)
    for p, hs in PALACES.items():
        bits = list(name_to_bits(p))
        seq = [tuple(bits)]
        for k in range(5):
            bits[k] ^= 1
            seq.append(tuple(bits))
        bits[3] ^= 1
        seq.append(tuple(bits))
        bits[0] ^= 1; bits[1] ^= 1; bits[2] ^= 1
        seq.append(tuple(bits))
        assert [name_to_bits(h) for h in hs] == seq, p


def test_najia_pure_relatives_complete():
    for p in PALACES:
        ch = chart(p, "子", "甲子")
        assert {ln["relative"] for ln in ch["lines"]} == {"父母", "兄弟", "子孫", "妻財", "官鬼"}
        assert all(ln["hidden"] is None for ln in ch["lines"])
        assert len(NAJIA[p][0]) == 3


def test_spirits_and_void_cycle():
    ch = chart("乾", "子", "戊辰")
    assert [ln["spirit"] for ln in ch["lines"]] == ["勾陳", "螣蛇", "白虎", "玄武", "青龍", "朱雀"]
    assert ch["void"] == ["戌", "亥"]
    assert chart("乾", "子", "癸亥")["void"] == ["子", "丑"]


def test_normalize_roundtrip_and_diff():
    ch = chart("節之中孚", "寅", "辛亥")
    # render as production JSON and back
    prod = dict(ch)
    prod["lines"] = [dict(ln, states=[{"term": t, "school": s, "rule": "x"} for t, s in ln["states"]]
                          + [{"term": "干長生", "school": "StemStages"}]) for ln in ch["lines"]]
    prod["relations"] = [{"from": a, "to": b, "relation": r} for a, b, r in ch["relations"]] + \
        [{"from": "year", "to": "day", "relation": "生"}]
    prod["states"] = [{"term": t, "lines": ls or []} for t, ls in ch["states"]] + [{"term": "用神", "lines": [1]}]
    assert first_difference(ch, normalize_production(prod)) is None
    prod["lines"][0]["spirit"] = "青龍"
    assert first_difference(ch, normalize_production(prod)).startswith("lines[1].spirit")


@pytest.mark.parametrize("month", list(BRANCHES))
def test_month_strength_cycle(month):
    ch = chart("乾", month, "甲子")
    assert {ln["strength"] for ln in ch["lines"]} <= set("旺相休囚死")
    assert sum("月破" in terms(ln) for ln in ch["lines"]) == sum(clashes(month, ln["branch"]) for ln in ch["lines"])
