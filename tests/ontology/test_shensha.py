"""神煞: the generated tables against the classic tables, the state rules on real casts, the JSON field.

Expected values are written out by hand from the classic tables (天乙貴人 歌 甲戊庚牛羊 …; 易冒 天元祿法;
天玄賦 將星 and 亡神; the 三合 tables of 驛馬 咸池 劫殺 華蓋; 天喜 春戌夏丑秋辰冬未; 喪門 / 弔客 two
branches after / before the year), not computed from ontology/tables.py.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import rdflib
from rdflib import URIRef

import liuyao_kg
from liuyao_kg.namespaces import LYO, LYR, sparql_prologue
from liuyao_kg.build.reference import render_shensha_rules

ROOT = Path(__file__).resolve().parents[2]
BRANCH_IDS = dict(zip("子丑寅卯辰巳午未申酉戌亥",
                      "Zi Chou Yin Mao Chen Si Wu Wei Shen You Xu Hai".split()))
STEM_IDS = dict(zip("甲乙丙丁戊己庚辛壬癸", "Jia Yi Bing Ding Wu Ji Geng Xin Ren Gui".split()))
BRANCH_OF_ID = {v: k for k, v in BRANCH_IDS.items()}


@pytest.fixture(scope="module")
def ref() -> rdflib.Graph:
    return rdflib.Graph().parse(ROOT / "ontology" / "reference.ttl")


def carrying(ref, kind: str, key: str, school: str | None = None) -> str:
    """The branches the reference table of `kind` gives for the key stem or branch (in branch order, as zh)."""
    key_iri = LYR + ("Stem" + STEM_IDS[key] if key in STEM_IDS else "Branch" + BRANCH_IDS[key])
    school_clause = f"?e lyo:school lyr:{school} ." if school else "FILTER NOT EXISTS { ?e lyo:school ?s }"
    q = sparql_prologue() + f"""
        SELECT ?t WHERE {{ ?e lyo:shenShaKind lyr:ShenSha_{kind} ; lyo:targetBranch ?t .
                          {{ ?e lyo:keyStem <{key_iri}> }} UNION {{ ?e lyo:keyBranch <{key_iri}> }}
                          {school_clause} }}"""
    return "".join(sorted((BRANCH_OF_ID[str(r[0])[len(LYR + "Branch"):]] for r in ref.query(q)), key=list(BRANCH_IDS).index))


@pytest.mark.parametrize("kind, key, want", [
    ("HeavenlyNoble", "甲", "丑未"), ("HeavenlyNoble", "戊", "丑未"), ("HeavenlyNoble", "庚", "丑未"),
    ("HeavenlyNoble", "乙", "子申"), ("HeavenlyNoble", "丙", "酉亥"), ("HeavenlyNoble", "癸", "卯巳"),
    ("HeavenlyNoble", "辛", "寅午"),
    ("Emolument", "甲", "寅"), ("Emolument", "乙", "卯"), ("Emolument", "丙", "巳"), ("Emolument", "戊", "巳"),
    ("Emolument", "己", "午"), ("Emolument", "辛", "酉"), ("Emolument", "癸", "子"),
    ("PostHorse", "申", "寅"), ("PostHorse", "子", "寅"), ("PostHorse", "午", "申"), ("PostHorse", "酉", "亥"),
    ("PostHorse", "未", "巳"),
    ("SaltyPool", "辰", "酉"), ("SaltyPool", "寅", "卯"), ("SaltyPool", "丑", "午"), ("SaltyPool", "卯", "子"),
    ("RobberyKiller", "子", "巳"), ("RobberyKiller", "戌", "亥"), ("RobberyKiller", "巳", "寅"), ("RobberyKiller", "亥", "申"),
    ("GeneralStar", "寅", "午"), ("GeneralStar", "丑", "酉"), ("GeneralStar", "申", "子"), ("GeneralStar", "未", "卯"),
    ("FloweryCanopy", "子", "辰"), ("FloweryCanopy", "午", "戌"), ("FloweryCanopy", "酉", "丑"), ("FloweryCanopy", "卯", "未"),
    ("LostSpirit", "寅", "亥"), ("LostSpirit", "卯", "子"), ("LostSpirit", "丑", "戌"),
    ("HeavenlyJoy", "寅", "戌"), ("HeavenlyJoy", "午", "丑"), ("HeavenlyJoy", "酉", "辰"), ("HeavenlyJoy", "子", "未"),
    ("MourningGate", "子", "寅"), ("MourningGate", "戌", "子"), ("CondolingGuest", "子", "戌"), ("CondolingGuest", "丑", "亥"),
])
def test_shensha_table_gives_the_classic_branch(ref, kind, key, want):
    assert carrying(ref, kind, key) == want


@pytest.mark.parametrize("day_branch, want", [("申", "亥"), ("午", "巳"), ("酉", "申"), ("卯", "寅")])
def test_lost_spirit_by_the_triad_is_a_named_school_not_the_default(ref, day_branch, want):
    assert carrying(ref, "LostSpirit", day_branch, school="SchoolTriadShenSha") == want


def test_every_shensha_rule_cites_a_passage_that_exists():
    rules = rdflib.Graph().parse(data=render_shensha_rules(), format="turtle")
    passages = rdflib.Graph().parse(ROOT / "ontology" / "passages.ttl")
    cited = set(rules.objects(None, URIRef(LYO + "citesSource")))
    assert len(cited) == 12
    assert [c for c in cited if (c, None, None) not in passages] == []


def test_regenerating_the_shensha_rules_is_a_no_op():
    assert render_shensha_rules() == (ROOT / "ontology" / "rules" / "shensha.ttl").read_text(encoding="utf-8")


def test_a_real_cast_carries_the_shensha_of_its_day_month_and_year():
    # 787986 = 豐 之 賁: lines 卯 丑 亥 午 申 戌 (bottom up); 癸未 day, 巳 month, 甲子 year.
    chart = liuyao_kg.cast("787986", month="巳", day="癸未", year="甲子", topic="婚姻")
    got = {line["position"]: (line["branch"], line["shensha"]) for line in chart["lines"]}
    assert got == {
        1: ("卯", ["將星", "貴人"]),      # 癸 貴人 卯巳; 亥卯未 將星 卯
        2: ("丑", ["天喜"]),              # summer month: 天喜 丑
        3: ("亥", []),
        4: ("午", []),
        5: ("申", ["劫殺"]),              # 亥卯未 劫殺 申
        6: ("戌", ["弔客"]),              # 子 year: 弔客 戌
    }


def test_the_lost_spirit_schools_are_both_derived_and_kept_apart():
    chart = liuyao_kg.cast("787986", month="寅", day="甲子", year="甲子", topic="婚姻")
    line3 = chart["lines"][2]
    assert line3["branch"] == "亥" and line3["shensha"] == ["亡神", "亡神/TriadShenSha"]
    states = {(s["term"], s["school"]) for s in line3["states"]}
    assert {("亡神", None), ("亡神", "TriadShenSha")} <= states
    assert chart["lines"][1]["shensha"] == ["貴人"]        # 甲 貴人 丑未: line 2 丑


def test_without_a_year_no_line_carries_the_year_shensha():
    chart = liuyao_kg.cast("787986", month="巳", day="癸未", topic="婚姻")
    assert all("弔客" not in line["shensha"] and "喪門" not in line["shensha"] for line in chart["lines"])
