"""The question scheme and the use-god per question (issue 9): every question is data with its source, every
use-god choice a rule with its passage, and a cast takes the choice that holds for it (docs/questions.md)."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import liuyao_kg
from liuyao_kg.loaders.cast_input import make_cast_input
from liuyao_kg.loaders.errors import BadUseGod, UnknownSchool, UnknownTopic
from liuyao_kg.namespaces import LYR
from liuyao_kg.ontology import questions as Q
from liuyao_kg.ontology import tables as T
from liuyao_kg.reasoner.conditions import parse, time_needs
from liuyao_kg.rulebase.topics import topics

REPO = Path(__file__).resolve().parents[2]
RELATIVE_ZH = {rid: zh for zh, rid, _ko in T.RELATIVES.values()}
ROLE_ZH = {"RoleShi": "世", "RoleYing": "應"}


def _rule_id(iri: str) -> str:
    return "/".join(iri.rsplit("/", 2)[-2:])



def test_every_question_has_a_source_and_a_use_god():
    rows = topics(liuyao_kg.default_graph())
    assert [r["zh"] for r in rows] == [zh for _d, zh in Q.tree_lines()]
    for r in rows:
        assert r["source"]["iri"] and (r["source"]["quote"] or r["source"]["seed"] is None), r["zh"]
        assert r["use_god"], f"{r['zh']} has no use-god choice"
        assert all(c["source"]["quote"] or c["source"]["note"] == "standard convention, not in the seeds"
                   for c in r["use_god"]), r["zh"]


def _choice_params():
    out = []
    for question in Q.NAMES:
        for cid, _own, target, _passage, when, _helper in Q.choices(question):
            out.append(pytest.param(question, cid, target, when, id=f"{question}-{cid}"))
    return out


@pytest.mark.parametrize(("question", "cid", "target", "when"), _choice_params())
def test_each_choice_selects_its_lines(question, cid, target, when):
    """One test per row of docs/questions.md: a cast of 乾 (all five relatives present) under the choice's
    conditions takes that choice, and its 用神 lines are exactly the lines the choice names."""
    chart = liuyao_kg.cast("乾", month="寅", day="甲子", topic=question, sex=when.get("sex"),
                           about=when.get("about"), school=when.get("school"))
    ug = chart["use_god"]
    assert ug["chosen_by"] == "rule"
    assert LYR + "UseGodChoice_" + cid in [c["iri"] for c in ug["choices"]]
    kind, value = target
    lines = chart["lines"]
    expected = {"relative": lambda: [ln["position"] for ln in lines if ln["relative"] == RELATIVE_ZH[value]],
                "role": lambda: [ln["position"] for ln in lines if ROLE_ZH[value] in ln["roles"]],
                "position": lambda: [value],
                "element": lambda: [ln["position"] for ln in lines if ln["element"] == value]}[kind]()
    mine = [c for c in ug["choices"] if c["iri"].endswith("_" + cid)]
    if len(ug["choices"]) == 1:  # ties (天玄賦's water and fire lines) hold the union of their lines
        assert sorted(ug["lines"]) == sorted(expected)
    else:
        assert set(expected) <= set(ug["lines"])
    assert mine[0]["source"]["quote"] or mine[0]["source"]["note"]


def test_without_school_the_seeds_reading_is_taken_and_named():
    chart = liuyao_kg.cast("乾", month="寅", day="甲子", topic="國家")
    assert [c["iri"] for c in chart["use_god"]["choices"]] == [LYR + "UseGodChoice_StateShi"]
    assert chart["use_god"]["school"] == "RulerShi" and chart["use_god"]["lines"] == [6]


def test_woman_asking_about_marriage_reads_the_ghost():
    """天玄賦 婚姻章: 女占夫以鬼為主; without the sex 火珠林's list (占婚姻事 … 看財爻) gives 妻財."""
    woman = liuyao_kg.cast("乾", month="寅", day="甲子", topic="婚姻", sex="女")
    plain = liuyao_kg.cast("乾", month="寅", day="甲子", topic="婚姻")
    assert woman["use_god"]["relative"] == "官鬼" and woman["use_god"]["lines"] == [4]
    assert plain["use_god"]["relative"] == "妻財"


def test_war_takes_the_askers_side_not_the_enemy():
    """天玄賦 征戰章: 以世為我將 … 官鬼為彼賊徒 — the use-god is never the 官鬼 (the enemy)."""
    chart = liuyao_kg.cast("乾", month="寅", day="甲子", topic="征戰")
    assert chart["use_god"]["lines"] == [6] and chart["use_god"]["relative"] is None
    general = liuyao_kg.cast("乾", month="寅", day="甲子", topic="征戰", school="GeneralOffspring")
    assert general["use_god"]["relative"] == "子孫"


def test_about_chooses_the_line_of_that_person_for_a_traveller():
    """易冒: 酉建甲子日卜子歸期，得夬之大過，月建子孫 — asking when a son returns reads 子孫."""
    chart = liuyao_kg.cast("夬之大過", month="酉", day="甲子", topic="行人", about="子")
    assert chart["use_god"]["relative"] == "子孫" and chart["use_god"]["lines"] == [5]
    servant = liuyao_kg.cast("夬之大過", month="酉", day="甲子", topic="行人", about="奴僕")
    assert servant["use_god"]["relative"] == "妻財"  # 火珠林: 占婚婢事 … 看財爻


def test_whom_the_matter_concerns_chooses_the_use_god_of_any_question():
    """卜筮正宗 用神分類定例第一: 凡占兒女、孫、侄 … 俱以子孫爻為用神 — whatever the matter."""
    assert liuyao_kg.cast("乾", month="寅", day="甲子", topic="求財", about="侄")["use_god"]["relative"] == "子孫"
    assert liuyao_kg.cast("乾", month="寅", day="甲子", topic="官事", about="嫂")["use_god"]["relative"] == "妻財"


def test_a_question_s_own_choice_by_the_person_stays_beside_the_book_s():
    """天玄賦 疾病章 reads a servant's illness from 子孫; 卜筮正宗 reads servants from 妻財 elsewhere."""
    assert liuyao_kg.cast("乾", month="寅", day="甲子", topic="疾病", about="奴僕")["use_god"]["relative"] == "子孫"
    assert liuyao_kg.cast("乾", month="寅", day="甲子", topic="求財", about="奴僕")["use_god"]["relative"] == "妻財"


def test_a_person_without_a_question_is_a_matter_concerning_that_person():
    ch = liuyao_kg.cast("乾", month="寅", day="甲子", about="師")
    assert (ch["topic"], ch["about"], ch["use_god"]["relative"]) == ("人事", "父母", "父母")
    assert ch["verdict"]["polarity"] is not None


def test_a_stranger_is_read_from_the_ying_line():
    """卜筮正宗 世應論用神第二: 凡占無尊卑之稱呼、未曾深交之朋友 … 俱以應爻為用神也."""
    ch = liuyao_kg.cast("乾", month="寅", day="甲子", topic="求財", about="外人")
    assert ch["use_god"]["lines"] == [3]


def test_rain_or_shine_reads_the_rules_of_rain_and_of_fair_weather_and_the_weather_s_use_god():
    """天玄賦 天時章 「若占晴雨」: 晴雨 asks both, so 晴's rules and 雨's apply, as do 天時's; its use-god is 天時's (水火)."""
    def read(topic):
        chart = liuyao_kg.cast("屯之比", month="寅", day="甲子", topic=topic)
        return {_rule_id(j["rule"]) for j in chart["judgments"]}, chart["use_god"]["lines"]

    (fair, _), (rain, _), (weather, weather_lines), (both, both_lines) = map(read, ("晴", "雨", "天時", "晴雨"))
    assert "004a-tianshi/no-fire-no-clearing" in both and "004a-tianshi/no-fire-no-clearing" not in rain
    assert fair - weather and rain - weather and (fair | rain) <= both
    assert both_lines == weather_lines
    assert Q.narrower_closure("晴") == ["晴", "晴雨"] and Q.narrower_closure("雨") == ["雨", "晴雨"]


def test_rain_or_shine_is_asked_by_its_everyday_names():
    assert {make_cast_input("乾", topic=t).topic for t in ("晴雨", "陰晴", "阴晴", "rain or shine")} == {"晴雨"}


def test_school_of_another_question_is_refused():
    with pytest.raises(UnknownSchool, match="the schools for 國家 are"):
        liuyao_kg.cast("乾", month="寅", day="甲子", topic="國家", school="GeneralShi")


@pytest.mark.parametrize("name", ["卜筮正宗", "卜筮正宗斷法", "BuShiZhengZong", "SchoolBuShiZhengZong", "bushizhengzong"])
def test_a_school_of_the_reading_is_named_by_its_work_its_id_or_its_name(name):
    ci = make_cast_input("乾", month="寅", day="甲子", topic="求財", school=name)
    assert (ci.school, ci.reading_school) == (None, "SchoolBuShiZhengZong")


def test_a_school_of_the_reading_needs_no_question():
    assert make_cast_input("乾", month="寅", day="甲子", school="易冒").reading_school == "SchoolYiMaoReading"


@pytest.mark.parametrize("school", [["卜筮正宗", "HuangJinCeWeather"], "卜筮正宗, HuangJinCeWeather", "HuangJinCeWeather 卜筮正宗"])
def test_a_school_of_the_reading_and_one_of_the_use_god_are_named_together(school):
    ci = make_cast_input("乾", month="寅", day="甲子", topic="天時", school=school)
    assert (ci.school, ci.reading_school) == ("SchoolHuangJinCeWeather", "SchoolBuShiZhengZong")


def test_two_schools_of_the_reading_are_refused():
    with pytest.raises(UnknownSchool, match="two schools of the reading"):
        make_cast_input("乾", month="寅", day="甲子", topic="求財", school="易冒,卜筮正宗")


def test_an_unknown_school_names_the_schools_of_the_reading():
    with pytest.raises(UnknownSchool, match="the schools of the reading are YiMaoReading"):
        make_cast_input("乾", month="寅", day="甲子", topic="求財", school="增刪卜易")


def test_the_reading_school_is_part_of_the_cast_s_identity_only_when_named():
    plain = make_cast_input("乾", month="寅", day="甲子", topic="求財")
    named = make_cast_input("乾", month="寅", day="甲子", topic="求財", school="卜筮正宗")
    assert "reading_school" not in plain.content() and named.id != plain.id


def test_user_names_the_use_god_by_relative_or_line():
    by_rel = liuyao_kg.cast("乾", month="寅", day="甲子", topic="疾病", use_god="妻財")
    by_line = liuyao_kg.cast("乾", month="寅", day="甲子", topic="疾病", use_god="3")
    assert (by_rel["use_god"]["chosen_by"], by_rel["use_god"]["lines"]) == ("user", [2])
    assert (by_line["use_god"]["chosen_by"], by_line["use_god"]["lines"]) == ("user", [3])
    (state,) = [s for s in by_rel["states"] if s["term"] == "用神"]
    assert state["chosen_by"] == "user"
    with pytest.raises(BadUseGod):
        liuyao_kg.cast("乾", month="寅", day="甲子", use_god="7")


def test_synonyms_and_simplified_forms_name_the_question():
    assert [Q.find(x) for x in ("天氣", "科舉", "蚕", "求名", "失脫", "逃亡", "Rain")] == \
        ["天時", "考試", "蠶", "功名", "失物", "逃亡", "雨"]


def test_unknown_question_lists_the_scheme():
    with pytest.raises(UnknownTopic) as err:
        liuyao_kg.cast("乾", month="寅", day="甲子", topic="算命")
    assert all(q in str(err.value) for q in Q.NAMES)


def test_narrower_question_runs_its_own_and_broader_rules_never_a_siblings():
    """屯之比 has no fire line: 「六爻無火不開晴」 is 晴's rule, so it fires for 晴 and neither for 雨 nor 天時;
    「青龍臨水動，甘雨即沾濡」 is 天時's (the spirits' verse asks no one of them) and fires for all three."""
    def fired(topic):
        chart = liuyao_kg.cast("屯之比", month="寅", day="甲子", topic=topic)
        return {_rule_id(j["rule"]) for j in chart["judgments"]}

    fair, rain, weather = fired("晴"), fired("雨"), fired("天時")
    assert "004a-tianshi/no-fire-no-clearing" in fair
    assert "004a-tianshi/no-fire-no-clearing" not in rain | weather
    assert "004a-tianshi/spirit-qinglong-water" in fair & rain & weather


def test_cast_without_month_or_day_gives_the_time_independent_chart():
    """火珠林 占葬地 姤之鼎 gives no date: the chart, the use-god (世, 火珠林's reading) and only timeless rules."""
    chart = liuyao_kg.cast("姤之鼎", topic="葬地")
    assert chart["time"] is None and len(chart["notes"]) == 2
    assert chart["month"] is None and chart["day"] is None and chart["void"] == []
    assert chart["use_god"]["lines"] == [1] and chart["lines"][0]["hidden_palace"]["branch"] == "子"
    assert all(ln["spirit"] is None and ln["strength"] is None for ln in chart["lines"])
    states = {s["term"] for ln in chart["lines"] for s in ln["states"]}
    assert "旬空" not in states and "月破" not in states
    conditions = {r["rule"]: r["condition"] for r in _conditions()}
    for j in chart["judgments"]:
        assert time_needs(parse(conditions[j["rule"]])) == (False, False), j["rule"]


def test_cast_with_month_only_reads_the_month_and_not_the_day():
    chart = liuyao_kg.cast("觀", month="寅", topic="疾病")
    assert chart["time"] == {"month": "寅", "day": None} and len(chart["notes"]) == 1
    assert all(ln["strength"] for ln in chart["lines"]) and all(ln["stage_day"] is None for ln in chart["lines"])


def _conditions():
    kg = liuyao_kg.default_graph()
    return kg.select("PREFIX lyo: <https://w3id.org/liuyao-kg/ontology#> "
                     "SELECT ?rule ?condition WHERE { ?rule a lyo:ChapterRule ; lyo:condition ?condition }")


def _worked_cases():
    """The seeds' worked cases (tests/data) and the classic cases of ../shared/examples, or a skip saying it is
    missing."""
    files = [REPO / "tests" / "data" / "seed_cases.yaml", REPO.parent / "shared" / "examples" / "classic_cases.yaml"]
    cases = [pytest.param(c, id=c["id"]) for f in files if f.exists() for c in yaml.safe_load(f.read_text("utf-8"))]
    return cases + [pytest.param(None, id=f.name, marks=pytest.mark.skip(reason=f"{f} is missing (../shared)"))
                    for f in files if not f.exists()]


@pytest.mark.parametrize("case", _worked_cases())
def test_every_worked_case_replays_with_its_question(case):
    c = case["cast"]
    assert c.get("topic"), "every worked case names the question its text asks"
    spec = f"{c['hexagram']}之{c['changed']}" if c.get("changed") else c["hexagram"]
    chart = liuyao_kg.cast(spec, month=c.get("month"), day=c.get("day"), topic=c["topic"], about=c.get("about"),
                           year=c.get("year"), birth=c.get("birth"))
    assert chart["topic"] == Q.find(c["topic"]) and chart["use_god"]["choices"]


def _cross_cases():
    """Casts of every question (tests/samples.py), each also asked by a woman and, where the question takes it,
    about every person it may concern: the engine and tests/oracles/use_god_oracle.py must choose the same lines."""
    from samples import sample_casts

    out = []
    for i, (values, month, day, topic) in enumerate(sample_casts(len(Q.NAMES) * 2, seed=5)):
        out.append((values, month, day, topic, "女" if i % 2 else None, None))
        whos = Q.SUBJECT_NAMES  # every question reads every subject: half of them on each of its two casts
        out += [(values, month, day, topic, None, who) for who in whos[(i // len(Q.NAMES)) % 2::2]]
    return out


def test_engine_and_the_independent_use_god_oracle_agree():
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "oracles"))
    from use_god_oracle import use_god

    problems = []
    for values, month, day, topic, sex, about in _cross_cases():
        chart = liuyao_kg.cast(values, month=month, day=day, topic=topic, sex=sex, about=about)
        lines, rel, taken = use_god(chart, topic, sex=sex, about=about)
        got = chart["use_god"]
        got_taken = [c["iri"].rsplit("_", 1)[1] for c in got["choices"]]
        if (sorted(got["lines"]), got["relative"], sorted(got_taken)) != (lines, rel, sorted(taken)):
            problems.append(f"{values} {topic} sex={sex} about={about}: engine {got['lines']} {got['relative']} "
                            f"{got_taken}, oracle {lines} {rel} {taken}")
    assert problems == []


@pytest.mark.parametrize("word, question", [
    ("工作", "功名"), ("事業", "功名"), ("job", "功名"), ("求職", "求官"), ("升職", "求官"), ("感情", "婚姻"),
    ("戀愛", "婚姻"), ("love", "婚姻"), ("投資", "求財"), ("股票", "求財"), ("健康", "疾病"), ("health", "疾病"),
    ("exam", "考試"),
])
def test_everyday_words_ask_the_classics_questions(word, question):
    """ConventionEverydayQuestions: the project's own mapping of everyday words onto the scheme."""
    assert Q.find(word) == question


def test_an_unknown_question_names_the_nearest_ones():
    with pytest.raises(UnknownTopic, match="the nearest: 功名"):
        liuyao_kg.cast("乾", month="寅", day="甲子", topic="找工作")


def test_an_english_synonym_is_an_english_label():
    kg = liuyao_kg.default_graph()
    rows = kg.select('PREFIX skos: <http://www.w3.org/2004/02/skos/core#> '
                     'SELECT ?q WHERE { ?q skos:altLabel "love"@en }')
    assert len(rows) == 1
