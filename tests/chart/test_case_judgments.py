"""The seeds' worked cases give the judgments their commentary states (where a chapter rule encodes it)."""
from __future__ import annotations

import pytest

import liuyao_kg
from liuyao_kg.namespaces import LYR, LYRULE

CASES = [
    # 易冒 遇時章 補遺: 「巳財絕於亥日，兄動奪之，理不應得」 — 寅建辛亥日 節之中孚, lines 1 (巳 wealth) and 6 (子 sibling)
    (("節之中孚", "寅", "辛亥", "求財", None), "000-yushi/case-wealth-severed-sibling-moves", {1, 6}),
    # 易冒 沖合章 注: 午建丙子日 占婚 兌之節, 六沖變六合 with 世 combined by the month and 應 by the day
    (("兌之節", "午", "丙子", "婚姻", None), "000-chonghe/case-clash-to-combine-marriage-failed", {6, 3}),
    # 易冒 隨鬼入墓章: 巳建癸未日 大畜之蒙, the 世 holds the ghost and enters its tomb on the 未 day
    (("大畜之蒙", "巳", "癸未", "疾病", "寅"), "000-suigui-rumu/shi-tomb-bad-for-self-and-proxy", {2}),
]


@pytest.mark.parametrize("cast, rule, lines", CASES, ids=[c[1] for c in CASES])
def test_worked_case_gives_the_commentarys_judgment(cast, rule, lines):
    spec, month, day, topic, birth = cast
    chart = liuyao_kg.cast(spec, month=month, day=day, topic=topic, birth=birth)
    fired = {j["rule"]: j for j in chart["judgments"]}
    assert LYRULE + "ch/" + rule in fired
    judgment = fired[LYRULE + "ch/" + rule]
    assert set(judgment["lines"]) == lines
    assert judgment["source"]["seed"] == "000_611f20e21d588b1f.txt"


def test_the_sick_persons_relation_selects_the_use_god():
    """天玄賦 疾病章: 凡占疾病，看來者何人 … 夫占妻看財 — a husband asking about his wife reads 妻財."""
    chart = liuyao_kg.cast("787986", month="寅", day="辛亥", topic="疾病", about="妻")
    (use,) = [s for s in chart["states"] if s["term"] == "用神"]
    assert (use["relative"], use["lines"], use["rule"].rsplit("/", 1)[1]) == ("妻財", [4], "UseGodByRelative")
    assert use["choices"] == [LYR + "UseGodChoice_IllnessWife"]  # the choice 天玄賦 疾病章 gives, with its passage
    assert chart["use_god"]["choices"][0]["source"]["iri"].endswith("/UseGodIllness")
    assert chart["about"] == "妻" and chart["topic"] == "疾病"
    fired = {j["rule"].rsplit("/", 1)[1] for j in chart["judgments"]}
    assert "ill-usegod-husband-asks-wife" in fired and "ill-usegod-wife-asks-husband" not in fired
