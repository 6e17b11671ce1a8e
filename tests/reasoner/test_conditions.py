"""The condition language compiler, construct by construct, against the direct evaluator.

Each condition below is compiled to SPARQL and run on real derived casts; it must hold exactly when
tests/oracles/rule_oracle.py says it does, binding the same lines.
"""
from __future__ import annotations

import pyoxigraph as ox
import pytest

import liuyao_kg
from liuyao_kg import namespaces as ns
from liuyao_kg.reasoner.conditions import ConditionError, compile_rule, parse
from rule_oracle import evaluate
from samples import sample_casts

CONDITIONS = [
    "a = 妻財 動", "a = 兄弟 動; b = 妻財; a 克 b", "s = 世 日沖", "y = 應 朱雀; s = 世; y 克 s", "卦:六合",
    "卦:獨發; not x = 妻財 動", "內 生 外", "內 比和 外", "內 克 外", "a = 用神 日:絕", "a = 忌神 動", "a = 原神 旺相",
    "a = 動; 變a 生 a", "g = 官鬼 旺相", "卦:亂動", "卦:無動", "a = 卦身 !旬空", "a = 世 旬空", "a = 官鬼 初爻",
    "w = 水 動; f = 火 動", "卦:六沖", "y = 應 水; s = 世; y 生 s", "not a = 妻財", "a = 子孫 動; 日 生 a",
    "a = 父母; 月 克 a", "a = 白虎 官鬼 動", "a = 外卦 動", "a = 巳 動", "宮:乾", "本卦:乾", "外:坎", "卦:遊魂",
    "a = 世; b = 應; a 比和 b", "a = 世; b = 應; a 沖 b", "a = 世; b = 應; a 合 b", "a = 世; b = 應; not a 克 b",
    "a = 回頭克", "a = 化進", "a = 月破 用神", "卦:兩現", "卦:合處逢沖", "a = 官鬼; 年 克 a", "a = 世; b = 應; a 刑 b",
    "a = 世; b = 應; a 害 b", "a = 靜 暗動", "a = 日墓", "卦:變六合", "之卦:坤", "a = 月:帝旺", "a = 休囚 !動",
    "a = 臨日", "a = 臨月 動", "a = 臨年", "a = 陽爻 動", "a = 陰爻 世", "m = 間爻 動", "m = 間爻; s = 世; m 克 s",
    "a = 神煞:貴人", "a = 神煞:天乙貴人 世", "a = 神煞:祿", "a = 神煞:驛馬", "a = 神煞:咸池", "a = 神煞:桃花 動",
    "a = 神煞:劫殺", "a = 神煞:亡神", "a = 神煞:亡神/TriadShenSha", "a = 神煞:將星", "a = 神煞:華蓋", "a = 神煞:天喜",
    "a = 神煞:喪門", "a = 神煞:弔客", "a = 官鬼 !神煞:劫殺", "not a = 神煞:咸池", "a = 神煞:咸池; s = 世; a 克 s",
    "a = 絕處逢生", "a = 世 絕處逢生", "a = 用神 !絕處逢生 日:絕",
    "內:陽卦", "外:陰卦; 內:陽卦", "內:陰卦; 外:陰卦", "not 外:陽卦",
    "a = 伏:官鬼", "a = 伏宮:妻財 世", "not g = 官鬼; f = 父母 伏:官鬼", "a = 靜; 伏a 克 a", "a = 伏:妻財; a 克 伏a",
    "a = 靜; 日 沖 伏a", "a = 伏:子孫; 月 生 伏a", "a = 靜; 伏a 比和 日", "a = 動; 伏a 克 變a", "a = 伏:官鬼; b = 動; b 合 伏a",
    "a = 伏:子孫; s = 世; 伏a 刑 s", "a = 靜; 伏a 害 月", "a = 靜; 伏a 合 日",
    "a = 臨命", "a = 臨命 官鬼", "a = 臨命 日墓", "not a = 臨命", "占:男", "占:女; a = 妻財 動", "not 占:男", "not 占:女; 卦:獨發",
    "a = 伏旺相", "a = 伏:妻財 伏休囚", "not a = 伏旺相; b = 伏:官鬼",
    "a = 之:官鬼", "a = 內卦 之:妻財; b = 內卦 之:子孫", "a = 靜 之:兄弟", "a = 動 !之:父母", "not a = 之:子孫",
    "占:*", "占:妻", "not 占:*", "u = 伏用", "占:*; u = 用神 !伏用 旬空", "占:父母; u = 用神; w = 妻財 動; w 克 u",
    # a hidden use-god is read on the hidden line itself, never on the flying line above it (舍飛從伏)
    "u = 用神 旺相", "u = 用神 休囚 月破", "u = 用神 旬空", "u = 用神 日沖", "u = 用神 月合", "u = 用神 日墓",
    "u = 用神 日:長生", "u = 用神 月:帝旺", "u = 用神 白虎", "u = 用神 !動", "u = 用神 靜", "u = 用神 !世",
    "u = 用神 伏用 白虎", "u = 用神; s = 世; u 克 s", "u = 用神; 日 沖 u", "u = 用神; 月 生 u", "u = 用神 動; 變u 克 u",
    "u = 用神; g = 忌神 動; g 克 u", "u = 用神; m = 動; m 合 u", "not u = 用神 旺相", "u = 用神 水", "u = 用神 內卦",
    "a = 吉神 動; s = 世; a 克 s", "a = 凶神 旺相", "a = 四爻 !吉神", "u = 用神 吉神", "u = 用神; g = 凶神 動; g 克 u",
    "u = 用神; s = 世; u 刑 s", "u = 用神; s = 世; u 比和 s", "u = 用神; 伏u 生 u",
]
# strength tokens read by 火珠林's own four-season table (a 火珠林 rule's default, conditions.strength_table)
SEASON_CONDITIONS = ["a = 旺相", "a = 官鬼 休囚", "a = 土 死", "u = 用神 旺相", "a = 伏旺相", "a = 伏:妻財 伏休囚"]
SUBJECTS = ["父母", "夫", "妻", "子", "兄弟", "朋友", "奴僕"]


@pytest.fixture(scope="module")
def charts():
    kg = liuyao_kg.default_graph()
    out = []
    fixed = [("999999", "午", "丙子", "求財"), ("777777", "寅", "辛亥", "疾病"), ("787986", "巳", "癸未", "婚姻")]
    for i, (values, month, day, topic) in enumerate(sample_casts(60, seed=5) + fixed):
        sex = ("男", "女", None)[i % 3]  # the asker's sex given for two casts in three
        birth = "子丑寅卯辰巳午未申酉戌亥"[i % 12] if i % 2 else None  # 本命 for every other cast
        out.append(_with_graphs(liuyao_kg.cast(values, month=month, day=day, topic=topic, year="甲子", sex=sex,
                                               birth=birth)))
    # questions about someone (來者何人): the subject, not the topic, selects the use-god
    for i, (values, month, day, _topic) in enumerate(sample_casts(28, seed=9)):
        out.append(_with_graphs(liuyao_kg.cast(values, month=month, day=day, topic="疾病", about=SUBJECTS[i % 7])))
    return kg, out


def _with_graphs(chart):
    graphs = [ox.NamedNode(chart["cast"]), ox.NamedNode(chart["cast"] + "/inferred"),
              ox.NamedNode(ns.GRAPH_REFERENCE), ox.NamedNode(ns.GRAPH_ONTOLOGY)]
    return chart, graphs


@pytest.mark.parametrize("condition", CONDITIONS)
def test_compiled_condition_agrees_with_direct_evaluation(charts, condition):
    kg, sample = charts
    query = ns.sparql_prologue() + compile_rule(condition, iri_path="t/x", topics=["any"]) + "\nVALUES ?rule { <urn:t> }"
    fired_somewhere = False
    for chart, graphs in sample:
        triples = list(kg.store.query(query, default_graph=graphs))
        got_fired = bool(triples)
        got_lines = {int(t.object.value.rsplit("/", 1)[1]) for t in triples if t.predicate.value == ns.LYO + "matchedLine"}
        want_fired, want_lines = evaluate(condition, chart)
        assert (got_fired, got_lines) == (want_fired, want_lines), chart["cast"]
        fired_somewhere |= got_fired
    assert fired_somewhere, "the sample never exercises this condition"


@pytest.mark.parametrize("condition", SEASON_CONDITIONS)
def test_huozhulin_rules_read_strength_by_the_four_seasons(charts, condition):
    kg, sample = charts
    query = (ns.sparql_prologue() + compile_rule(condition, iri_path="t/x", topics=["any"], strength_table="HuoZhuLinSeasons")
             + "\nVALUES ?rule { <urn:t> }")
    differs = False
    for chart, graphs in sample:
        triples = list(kg.store.query(query, default_graph=graphs))
        got = (bool(triples), {int(t.object.value.rsplit("/", 1)[1]) for t in triples if t.predicate.value == ns.LYO + "matchedLine"})
        assert got == evaluate(condition, chart, "HuoZhuLinSeasons"), chart["cast"]
        differs |= got != evaluate(condition, chart)
    assert differs, "the sample never tells the two tables apart for this condition"


def test_a_hidden_use_god_is_judged_by_its_own_line_not_the_flying_line():
    # 履 (艮宮土), 求財: no water wealth line; the hidden 丙子 water wealth sits under line 5, a metal 子孫 line
    chart = liuyao_kg.cast("778777", month="午", day="丙子", topic="求財")
    use = next(s for s in chart["states"] if s["term"] == "用神")
    flying = chart["lines"][use["lines"][0] - 1]
    hidden = flying["hidden"]
    assert hidden is not None and hidden["relative"] == "妻財" and flying["relative"] != "妻財"
    query = ns.sparql_prologue() + compile_rule(f"u = 用神 {flying['element']}", iri_path="t/x", topics=["any"])
    graphs = _with_graphs(chart)[1]
    assert flying["element"] != hidden["element"]
    assert not list(liuyao_kg.default_graph().store.query(query + "\nVALUES ?rule { <urn:t> }", default_graph=graphs))
    query = ns.sparql_prologue() + compile_rule(f"u = 用神 {hidden['element']}", iri_path="t/x", topics=["any"])
    assert list(liuyao_kg.default_graph().store.query(query + "\nVALUES ?rule { <urn:t> }", default_graph=graphs))


@pytest.mark.parametrize("bad, message", [
    ("a = 妻財 飛", "unknown line token '飛'"), ("a 克 b", "not a bound line name"), ("卦:奇", "unknown cast fact"),
    ("x = ", "has no tokens"), ("a = 神煞:大殺", "unknown 神煞"), ("宮:陽卦", "unknown cast fact"), ("占:中", "unknown cast fact"), ("a = 神煞:咸池/Triad", "no 咸池 table under school"), ("a = 世; a = 應", "bound twice"), ("內 沖 外", "only 生, 克 and 比和"), ("", "empty"),
])
def test_a_bad_condition_is_refused_with_the_reason(bad, message):
    with pytest.raises(ConditionError, match=message):
        parse(bad)
