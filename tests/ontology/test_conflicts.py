"""The register of the schools' conflicts (ontology/conflicts.yaml → conflicts.ttl, docs/schools.md): every school the
rule base names is a side of a conflict, every side rests on its rules and passages, the reading's default is given
with its reason, 卜筮正宗's arguments point at the rules they support or contradict, and `why` and the named queries
show them."""
from __future__ import annotations

import json

import pyoxigraph as ox
import pytest

from liuyao_kg import namespaces as ns
from liuyao_kg import queries
from liuyao_kg.build import conflicts as build
from liuyao_kg.cli import main
from liuyao_kg.ontology import load_layers
from liuyao_kg.store.embedded import KnowledgeGraph

RULE_KINDS = "lyo:StateRule lyo:ReadingRule lyo:TimingRule lyo:ChapterRule lyo:UseGodChoice"


@pytest.fixture(scope="module")
def graph() -> ox.Store:
    store = ox.Store()
    load_layers(store, atomic=False)
    return store


def select(store: ox.Store, where: str, *names: str) -> set:
    rows = store.query(ns.sparql_prologue() + f"SELECT DISTINCT {' '.join('?' + n for n in names)} {{ {where} }}",
                       use_default_graph_as_union=True)
    return {tuple(r[n].value if r[n] is not None else None for n in names) for r in rows}


# --- coverage -------------------------------------------------------------------------------------------------------

def test_every_school_the_rule_base_names_is_a_side_of_a_conflict(graph):
    named = select(graph, "{ ?r lyo:school ?s } UNION { ?s a lyo:School } UNION { ?s a lyo:ReadingSchool }", "s")
    on_a_side = select(graph, "?side a lyo:ConflictSide ; lyo:sideSchool ?s", "s")
    assert len(named) == 18
    assert named - on_a_side == set()


def test_every_rule_of_a_school_implements_a_side_held_by_that_school(graph):
    orphans = select(graph, f"VALUES ?t {{ {RULE_KINDS} }} ?r a ?t ; lyo:school ?s . "
                            "FILTER NOT EXISTS { ?side lyo:sideSchool ?s ; lyo:implementedBy ?r }", "r", "s")
    assert orphans == set()


def test_every_rule_a_side_names_is_in_the_rule_base(graph):
    missing = select(graph, "?side lyo:implementedBy ?r . "
                            f"FILTER NOT EXISTS {{ VALUES ?t {{ {RULE_KINDS} }} ?r a ?t }}", "r")
    assert missing == set()


# --- each conflict and each side --------------------------------------------------------------------------------

def test_each_conflict_has_labels_in_three_languages_a_question_two_sides_and_a_default_with_its_reason(graph):
    conflicts = select(graph, "?c a lyo:SchoolConflict", "c")
    assert len(conflicts) == 15
    for (c,) in conflicts:
        iri = f"<{c}>"
        langs = select(graph, f"{iri} rdfs:label ?l BIND(LCASE(LANG(?l)) AS ?lang)", "lang")
        assert langs == {("zh-hant",), ("en",), ("ko",)}, c
        assert select(graph, f"{iri} lyo:conflictQuestion ?q FILTER(LANG(?q) = 'en')", "q"), c
        assert len(select(graph, f"{iri} lyo:hasSide ?s", "s")) >= 2, c
        defaults = select(graph, f"{iri} lyo:defaultSide ?d", "d")
        assert defaults and defaults <= select(graph, f"{iri} lyo:hasSide ?s", "s"), c
        assert select(graph, f"{iri} lyo:defaultBecause ?b . {{ ?b a lyo:Passage }} UNION {{ ?b a lyo:StandardConvention }}",
                      "b"), c
        assert select(graph, f"{iri} lyo:defaultReason ?r FILTER(LANG(?r) = 'en')", "r"), c


def test_each_side_has_a_claim_in_zh_and_en_and_a_source_in_the_passages_layer(graph):
    sides = select(graph, "?s a lyo:ConflictSide", "s")
    for (s,) in sides:
        iri = f"<{s}>"
        assert {lang for (lang,) in select(graph, f"{iri} lyo:claim ?c BIND(LCASE(LANG(?c)) AS ?lang)", "lang")} \
            == {"zh-hant", "en"}, s
        sources = select(graph, f"{iri} lyo:citesSource ?p", "p")
        typed = select(graph, f"{iri} lyo:citesSource ?p . {{ ?p a lyo:Passage }} UNION {{ ?p a lyo:StandardConvention }}",
                       "p")
        assert sources and sources == typed, s


def test_a_side_that_supports_or_contradicts_comes_from_a_quoted_passage(graph):
    stances = select(graph, "{ ?p lyo:supports ?x } UNION { ?p lyo:contradicts ?x }", "p")
    quoted = select(graph, "?p a lyo:Passage ; lyo:quote ?q", "p")
    assert len(stances) >= 10
    assert stances <= quoted


# --- what the register says (the conflicts the issue names) ---------------------------------------------------------

def test_bushi_zhengzong_contradicts_the_hidden_line_under_every_line(graph):
    contradicted = select(graph, "lyp:BuZhengHiddenProper lyo:contradicts ?x", "x")
    assert (ns.LYRULE + "PalaceHidden",) in contradicted
    assert (ns.LYR + "ConflictSide_HiddenLines_EveryLine",) in contradicted


def test_bushi_zhengzong_supports_earth_born_at_shen_by_the_five_elements(graph):
    supported = select(graph, "lyp:BuZhengFourBirths lyo:supports ?x", "x")
    assert {(ns.LYRULE + "StageByDay",), (ns.LYRULE + "StageByMonth",)} <= supported
    assert select(graph, "lyp:BuZhengFourBirths lyo:quote ?q", "q") == {("火生於寅也，金生於巳也，水土生於申也，木生於亥也",)}


def test_bushi_zhengzong_contradicts_the_six_harms_the_chapters_read(graph):
    contradicted = select(graph, "lyp:BuZhengSixHarms lyo:contradicts ?x", "x")
    assert (ns.LYRULE + "ch/001a-shenming/shi-ying-harm",) in contradicted
    assert (ns.LYRULE + "EndpointHarms",) in contradicted


def test_the_reading_follows_the_later_convention_on_a_still_line_the_day_clashes(graph):
    default = select(graph, "lyr:Conflict_DayClashStill lyo:defaultSide ?d . ?d lyo:implementedBy ?r", "r")
    assert {(ns.LYRULE + "FactorDarkMoved",), (ns.LYRULE + "FactorDayBroken",)} <= default


def test_both_advance_schools_are_read_by_default(graph):
    assert len(select(graph, "lyr:Conflict_ChangeAdvance lyo:defaultSide ?d", "d")) == 2


# --- the generator --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["conflicts.ttl", "schools.md"])
def test_the_register_and_its_docs_tables_are_what_the_build_writes(name):
    (path, data), = [(p, d) for p, d in build.outputs().items() if p.name == name]
    assert path.read_bytes() == data, "run python -m liuyao_kg.build conflicts"


def _one(**side) -> dict:
    base = {"id": "X", "label": {"zh": "甲", "en": "a", "ko": "가"}, "claim": {"zh": "甲", "en": "a"},
            "passages": ["ClashScattered"]}
    return {"conflicts": [{"id": "Test", "label": {"zh": "試", "en": "test", "ko": "시"},
                           "question": {"zh": "試？", "en": "test?"},
                           "sides": [base | side, base | {"id": "Y"}], "default": "X",
                           "because": ["ClashScattered"], "why": {"zh": "試", "en": "test"}}]}


@pytest.mark.parametrize("side, named", [
    ({"rules": ["ClashScatterd"]}, "ClashScatterd"),
    ({"school": "ZengShen"}, "ZengShen"),
    ({"passages": ["NoSuchPassage"]}, "NoSuchPassage"),
    ({"supported_by": ["ConventionSeedDefault"]}, "is a convention"),
])
def test_a_wrong_name_in_the_register_fails_the_build_naming_it(side, named):
    with pytest.raises(build.ConflictError, match=named):
        build.register(_one(**side))


def test_a_default_that_is_none_of_the_sides_fails_the_build():
    data = _one()
    data["conflicts"][0]["default"] = "Z"
    with pytest.raises(build.ConflictError, match="default 'Z' is none of its sides"):
        build.register(data)


# --- the named queries and why --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def kg():
    with KnowledgeGraph() as store:
        yield store


def test_school_conflicts_lists_every_conflict_with_its_sides_and_default(kg):
    rows = queries.run(kg, "school-conflicts")
    assert len({r["conflict"] for r in rows}) == 15
    clash = {r["side"]: (r["school"], r["default"]) for r in rows if r["conflict"] == "ClashScatter"}
    assert clash == {"Scattered": (None, True), "ZengShan": ("ZengShan", False)}


def test_conflict_sides_gives_each_sides_school_claim_and_rules(kg):
    rows = queries.run(kg, "conflict-sides", conflict="ClashScatter")
    rules = {(r["side"], r["rule"]) for r in rows}
    assert rules == {("Scattered", ns.LYRULE + "ClashScattered"), ("Scattered", ns.LYRULE + "FactorScattered"),
                     ("ZengShan", ns.LYRULE + "ClashNotScatteredZengShan")}
    assert {r["claim"] for r in rows if r["side"] == "ZengShan"} == {
        "A moving line clashed by the day is not scattered and keeps acting (增刪卜易 rejects 動沖則散)."}


def test_a_side_no_rule_implements_is_listed_with_no_rule(kg):
    rows = queries.run(kg, "conflict-sides", conflict="HiddenUseGod")
    assert [r["rule"] for r in rows if r["side"] == "ChangedFirst"] == [None]


def test_conflict_passages_quotes_each_side_where_it_stands(kg):
    rows = queries.run(kg, "conflict-passages", conflict="HiddenLines")
    against = [r for r in rows if r["side"] == "EveryLine" and r["stance"] == "contradicts"]
    assert {r["chapter"] for r in against} == {"卜筮正宗凡例", "伏神正傳第六"}
    assert all(r["file"] == "buzheng-zhengzong.ctext.txt" and r["start"] < r["end"] for r in against)


WHY = ["why", "節之中孚", "--month", "寅", "--day", "辛亥", "--topic", "求財"]


def test_why_shows_under_a_judgment_the_conflict_its_rule_depends_on(capsys):
    assert main([*WHY, "--rule", "usegod-in-season-auspicious", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert ('schools disagree `EarthSeason` "does earth prosper in the season-end months?": this rule holds "earth '
            'prospers in the four season-end months" (the default); the other side: "Huozhulin strength by the four '
            'seasons"') in out


@pytest.mark.parametrize("lang, line", [
    ("zh", "異說 `DayClashStill` “靜爻日沖暗動或日破”：此從 “增刪卜易說”（預設）；另說：“靜沖暗動說”"),
    ("zh-Hans", "异说 `DayClashStill` “静爻日冲暗动或日破”：此从 “增删卜易说”（预设）；另说：“静冲暗动说”"),
    ("ko", "이설 `DayClashStill` “정효 일충: 암동인가 일파인가”: 이 규칙은 “증산복역설” (기본); 다른 설: “정충암동설”"),
])
def test_why_shows_under_a_state_the_conflict_in_the_output_language(capsys, lang, line):
    assert main([*WHY, "--rule", "case-wealth-severed-sibling-moves", "--lang", lang]) == 0
    assert line in capsys.readouterr().out


def test_why_json_gives_the_conflicts_of_each_judgment(capsys):
    assert main([*WHY, "--rule", "usegod-in-season-auspicious", "--format", "json"]) == 0
    (j,) = json.loads(capsys.readouterr().out)["judgments"]
    (c,) = j["conflicts"]
    assert c["conflict"] == "EarthSeason" and c["default"] is True and c["others"][0]["zh"] == "火珠林四時旺衰"
