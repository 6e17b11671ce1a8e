"""The chart's `primary` and `changed` name their 互, 錯 and 綜 hexagrams (docs/json-output.md), read from the reference
graph by queries/chart-hexagrams.rq, and the text chart shows them on its title line.

Expected values come from the oracle's hand-written King Wen table (tests/oracles/oracle.py), not from the package.
"""
from __future__ import annotations

import pytest

import liuyao_kg
from liuyao_kg.chart.render import chart_text
from liuyao_kg.namespaces import LYR
from oracle import BITS_TRIGRAM, HEXAGRAMS, KING_WEN, TRIGRAM_BITS


def pattern(name: str) -> tuple[int, ...]:
    upper, lower = HEXAGRAMS[name]
    return TRIGRAM_BITS[lower] + TRIGRAM_BITS[upper]


def named(lines: tuple[int, ...]) -> dict:
    pair = (BITS_TRIGRAM[lines[3:]], BITS_TRIGRAM[lines[:3]])
    name = next(n for n, trigrams in HEXAGRAMS.items() if trigrams == pair)
    return {"name": name, "iri": f"{LYR}Hexagram{KING_WEN.index(name) + 1:02d}"}


def expected(name: str) -> dict:
    p = pattern(name)
    return {"nuclear": named(p[1:4] + p[2:5]), "opposite": named(tuple(1 - v for v in p)), "inverse": named(p[::-1])}


@pytest.fixture(scope="module")
def jie():
    return liuyao_kg.cast("節之中孚", month="寅", day="辛亥", topic="求財")


def test_the_pair_names_its_nuclear_opposite_and_inverse_with_their_iris(jie):
    assert jie["primary"]["related"] == {
        "nuclear": {"name": "頤", "iri": LYR + "Hexagram27"},
        "opposite": {"name": "旅", "iri": LYR + "Hexagram56"},
        "inverse": {"name": "渙", "iri": LYR + "Hexagram59"}}
    assert jie["changed"]["related"] == {
        "nuclear": {"name": "頤", "iri": LYR + "Hexagram27"},
        "opposite": {"name": "小過", "iri": LYR + "Hexagram62"},
        "inverse": {"name": "中孚", "iri": LYR + "Hexagram61"}}  # 中孚 reads the same upside down


# every hexagram once, as the primary or the changed hexagram of 32 casts (each the King Wen order read backwards)
PAIRS = [(KING_WEN[k], KING_WEN[63 - k]) for k in range(32)]


@pytest.mark.parametrize("primary, changed", PAIRS, ids=[f"{a}之{b}" for a, b in PAIRS])
def test_every_hexagram_of_a_cast_names_the_hexagrams_its_lines_give(primary, changed):
    chart = liuyao_kg.cast(f"{primary}之{changed}")
    assert (chart["primary"]["related"], chart["changed"]["related"]) == (expected(primary), expected(changed))


def test_a_static_cast_has_no_changed_hexagram_to_relate(jie):
    chart = liuyao_kg.cast("坤", month="亥", day="甲子")
    assert chart["changed"] is None
    assert chart["primary"]["related"] == expected("坤")


def test_the_text_chart_shows_them_on_the_title_line(jie):
    title = next(line for line in chart_text(jie).splitlines() if line.startswith("節（"))
    assert title == "節（坎宮水 一世 六合；互頤 錯旅 綜渙） 之 中孚（艮宮土 遊魂；互頤 錯小過 綜中孚）"
