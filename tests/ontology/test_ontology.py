"""The T-box (ontology/lyo.ttl) and the generated reference graph (ontology/reference.ttl).

Spot checks are against the classics: 京房 八宮 (palace, generation, 世/應), 納甲 and 納音.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import rdflib
from rdflib import Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS

from liuyao_kg.namespaces import LYO, LYR, SKOS, sparql_prologue
from liuyao_kg.ontology import tables as T

ROOT = Path(__file__).resolve().parents[2]
TBOX = ROOT / "ontology" / "lyo.ttl"
REFERENCE = ROOT / "ontology" / "reference.ttl"
CHECKS = sorted((ROOT / "queries" / "checks").glob("*-violation.rq"))

ONTOLOGY_IRI = URIRef("https://w3id.org/liuyao-kg/ontology")
VERSION_IRI = URIRef("https://w3id.org/liuyao-kg/ontology/0.1.0")

CLASSES = """Element Stem Branch StemBranch JinShenPillar TuiShenPillar Nayin Trigram Hexagram HexagramPosition
Generation Relative Spirit LifeStage SeasonalStrength StageEntry StrengthEntry TripleCombineFrame Role Topic
School Work Cast Endpoint Line MovingLine StaticLine ChangedLine HiddenLine Pillar MonthPillar DayPillar
YearPillar HourPillar SixClashHexagram SixCombineHexagram State LineState CastState Rule StateRule Source Passage
StandardConvention StateVariant ChapterRule Judgment QuestionSubject UseGodChoice ShenShaKind ShenShaEntry""".split()
LINE_STATES = """MonthBroken Void DayClash DarkMovement ClashScattered MonthCombine DayCombine DayTomb MovingTomb
ChangeToTomb ChangeToSeverance ChangeToVoid ChangeToBroken ChangeToClash ChangeToCombine ReturnGenerate
ReturnOvercome ChangeAdvance ChangeRetreat JinShen TuiShen StemStage SeasonStrength VoidFilledByClash
ShenShaState DayBroken ClashNotScattered""".split()
SHENSHA_STATES = """HeavenlyNoble Emolument PostHorse SaltyPool RobberyKiller LostSpirit GeneralStar FloweryCanopy
HeavenlyJoy MourningGate CondolingGuest""".split()
CAST_STATES = """SixClashPrimary SixCombinePrimary SixClashChanged SixCombineChanged ClashToCombine CombineToClash
ClashAtCombine SingleMoving SingleStatic TwoPresent UseGodTwice UseGod RescueFromSeverance
EnterTombWithGhost FanYin FuYin TripleCombination""".split()
OBJECT_PROPERTIES = """stem branch element stemBranch nayin relative spirit hasRole stageDay stageMonth stage strength
hasLine hasMonth hasDay hasYear hasHour birthBranch primaryHexagram changedHexagram hasChange changeOf hasHidden
hasPalaceHidden inCast generates overcomes clashes combines punishes harms branchClashes branchCombines
branchHarms branchPunishes elementGenerates elementOvercomes tombBranch tripleCombineFrame hasBranch
forElement forStem atBranch monthBranch upperTrigram lowerTrigram palace generation hasPosition firstSpirit
advancesTo useGodRelative useGodRole stateOf involves school citesSource citesPassage work hasEndpoint
voidBranch stateRelative hiddenUseGod variant rescuer judgmentOf matchedLine shenShaKind keyStem
keyBranch targetBranch pendingCast useGodElement helperRelative forQuestion hasUseGodChoice forSubject question
concernsSubject readBySchool userUseGodRelative chosenUseGod chosenBy strengthTable opposedTrigram formsFrame
nuclearHexagram oppositeHexagram inverseHexagram""".split()
DATATYPE_PROPERTIES = """position timingUnit lineValue castId topic castAt kingWenNumber linePattern shiPosition yingPosition
index yang spiritOrder cycleIndex sparqlConstruct provenanceNote chapter quote koreanRendering seedFile
paragraphIndex startOffset endOffset stemIndex branchIndex condition conclusion polarity appliesToTopic
executable nonExecutableReason schoolName concerns askerSex useGodPosition forSex defaultChoice specificity
userUseGodPosition chosenByUser""".split()
ANNOTATION_PROPERTIES = ["derives", "definesTerm"]
# the corpus layer (docs/corpus.md)
CLASSES += "Edition PassageAlignment VariantReading ParallelLink".split()
OBJECT_PROPERTIES += "alignedPassage hasVariantReading parallelFrom parallelTo".split()
DATATYPE_PROPERTIES += """sha256 fileName wikisourceTitle retrievedOn alignmentMethod alignmentScore unalignedReason
variantKind baseReading editionReading alternativeReading quoteOffset linkMethod linkScore sharedTerm reviewStatus
linkKind""".split()
OBJECT_PROPERTIES += ["carriesWork"]
ANNOTATION_PROPERTIES += ["mentionsTerm"]
# collation of witnesses (liuyao corpus collate)
CLASSES += "Collation CollationDifference WitnessReading".split()
OBJECT_PROPERTIES += "firstWitness secondWitness hasDifference firstWitnessReading secondWitnessReading".split()
DATATYPE_PROPERTIES += """firstWitnessName secondWitnessName firstWitnessCharacters secondWitnessCharacters
alignedCharacters identicalCharacters collationMethod differenceKind differenceLength differenceNumber presentIn
readingText""".split()
# the reading (issue 11, docs/reading.md)
CLASSES += """ReadingFact ConditionFactor Outweighing ReadLine Verdict TimingCandidate ReadingRule TimingRule FactorKind
FactorGroup Precedence VerdictTerm""".split()
OBJECT_PROPERTIES += """readingOf factorOf readsLine timingFor otherLine factorKind inFactorGroup strongerGroup weakerGroup
strongerFactor weakerFactor underPrecedence verdictTerm supportedBy opposedBy timingBranch""".split()
DATATYPE_PROPERTIES += "factorPolarity factorStands favourable timingPriority immediate".split()
# the schools of the reading (issue 38: 易冒 and 卜筮正宗 where they read a cast differently)
CLASSES += "ReadingSchool DoubledPreference".split()
OBJECT_PROPERTIES += "readingSchool doubledPreference singleMovingLine".split()
DATATYPE_PROPERTIES += "defaultReadingSchool preferenceRank".split()
# the register of the schools' conflicts (issue 42, docs/schools.md)
CLASSES += "SchoolConflict ConflictSide".split()
OBJECT_PROPERTIES += "hasSide sideSchool implementedBy defaultSide defaultBecause supports contradicts".split()
DATATYPE_PROPERTIES += "claim conflictQuestion defaultReason".split()


@pytest.fixture(scope="module")
def tbox() -> rdflib.Graph:
    """lyo.ttl with the module of reused terms it imports (external.ttl)."""
    return rdflib.Graph().parse(TBOX).parse(TBOX.with_name("external.ttl"))


@pytest.fixture(scope="module")
def ref() -> rdflib.Graph:
    return rdflib.Graph().parse(REFERENCE)


@pytest.fixture(scope="module")
def both(tbox, ref) -> rdflib.Graph:
    g = rdflib.Graph()
    for t in tbox:
        g.add(t)
    for t in ref:
        g.add(t)
    return g


def select(graph: rdflib.Graph, query: str, **bindings) -> list[tuple]:
    init = {k: v if isinstance(v, (URIRef, Literal)) else Literal(v) for k, v in bindings.items()}
    return [tuple(row) for row in graph.query(sparql_prologue() + query, initBindings=init)]


def count(graph: rdflib.Graph, cls: str) -> int:
    return len(set(graph.subjects(RDF.type, URIRef(LYO + cls))))


# ---------------------------------------------------------------------------------------------
# T-box
# ---------------------------------------------------------------------------------------------

def test_tbox_parses_and_names_the_ontology_with_its_version_iri(tbox):
    assert (ONTOLOGY_IRI, RDF.type, OWL.Ontology) in tbox
    assert (ONTOLOGY_IRI, OWL.versionIRI, VERSION_IRI) in tbox
    titles = {t.language for t in tbox.objects(ONTOLOGY_IRI, URIRef("http://purl.org/dc/terms/title"))}
    assert titles == {"zh-Hant", "en", "ko"}


@pytest.mark.parametrize("kind, names", [
    (OWL.Class, CLASSES + LINE_STATES + CAST_STATES + SHENSHA_STATES),
    (OWL.ObjectProperty, OBJECT_PROPERTIES),
    (OWL.DatatypeProperty, DATATYPE_PROPERTIES),
    (OWL.AnnotationProperty, ANNOTATION_PROPERTIES),
], ids=["classes", "object-properties", "datatype-properties", "annotation-properties"])
def test_every_term_of_the_vocabulary_contract_is_declared_with_its_kind(tbox, kind, names):
    missing = [n for n in names if (URIRef(LYO + n), RDF.type, kind) not in tbox]
    assert missing == []


def test_the_tbox_declares_no_lyo_term_outside_the_contract(tbox):
    declared = {str(s)[len(LYO):] for s in tbox.subjects(RDF.type, None)
                if isinstance(s, URIRef) and str(s).startswith(LYO)}
    expected = set(CLASSES + LINE_STATES + CAST_STATES + SHENSHA_STATES + OBJECT_PROPERTIES + DATATYPE_PROPERTIES
                   + ANNOTATION_PROPERTIES)
    assert declared == expected


def test_every_lyo_term_the_project_uses_is_declared_in_the_tbox(tbox):
    """A misspelt term in a rule, query, generated graph or module would silently match nothing."""
    import re

    declared = {str(s)[len(LYO):] for s in tbox.subjects(RDF.type, None)
                if isinstance(s, URIRef) and str(s).startswith(LYO)}
    sources = [*(ROOT / "ontology" / "rules").glob("*.ttl"), *(ROOT / "queries").rglob("*.rq"),
               ROOT / "ontology" / "reference.ttl", ROOT / "ontology" / "passages.ttl",
               *(ROOT / "loaders").glob("*.py"), *(ROOT / "liuyao_kg").glob("*.py"), *(ROOT / "reasoner").glob("*.py")]
    used = {}
    for path in sources:
        for term in re.findall(r"\blyo:([A-Za-z][A-Za-z0-9]*)", path.read_text(encoding="utf-8")):
            used.setdefault(term, path.name)
    undeclared = {t: f for t, f in used.items() if t not in declared}
    assert undeclared == {}


@pytest.mark.parametrize("names, parent", [(LINE_STATES, "LineState"), (CAST_STATES, "CastState"),
                                           (SHENSHA_STATES, "ShenShaState")])
def test_every_state_class_is_a_direct_subclass_of_line_state_or_cast_state(tbox, names, parent):
    wrong = [n for n in names if (URIRef(LYO + n), RDFS.subClassOf, URIRef(LYO + parent)) not in tbox]
    assert wrong == []


def test_moving_and_static_lines_are_disjoint_and_line_value_and_position_are_functional(tbox):
    assert (URIRef(LYO + "Line"), OWL.disjointUnionOf, None) in tbox
    members = rdflib.collection.Collection(tbox, tbox.value(URIRef(LYO + "Line"), OWL.disjointUnionOf))
    assert set(members) == {URIRef(LYO + "MovingLine"), URIRef(LYO + "StaticLine")}
    for p in ("position", "lineValue"):
        assert (URIRef(LYO + p), RDF.type, OWL.FunctionalProperty) in tbox


def test_pair_relations_clash_combine_harm_are_symmetric_and_punish_is_not(tbox):
    symmetric = {str(s)[len(LYO):] for s in tbox.subjects(RDF.type, OWL.SymmetricProperty)}
    assert symmetric == {"clashes", "combines", "harms", "branchClashes", "branchCombines", "branchHarms",
                         "opposedTrigram", "oppositeHexagram", "inverseHexagram"}


@pytest.mark.parametrize("check", CHECKS, ids=[c.stem for c in CHECKS])
def test_quality_check_finds_no_violation_in_ontology_and_reference(both, check):
    rows = list(both.query(check.read_text(encoding="utf-8")))
    assert [tuple(str(v) for v in r) for r in rows] == []


def test_quality_checks_exist_for_labels_and_definitions():
    names = {c.stem for c in CHECKS}
    assert {"term-label-violation", "term-definition-violation", "individual-label-violation"} <= names


def test_the_label_check_catches_a_term_without_a_korean_label(tbox):
    g = rdflib.Graph()
    g.add((URIRef(LYO + "Probe"), RDF.type, OWL.Class))
    g.add((URIRef(LYO + "Probe"), RDFS.label, Literal("探", lang="zh-Hant")))
    g.add((URIRef(LYO + "Probe"), RDFS.label, Literal("probe", lang="en")))
    query = (ROOT / "queries" / "checks" / "term-label-violation.rq").read_text(encoding="utf-8")
    assert [(str(t), str(lang)) for t, lang in g.query(query)] == [(LYO + "Probe", "ko")]


# ---------------------------------------------------------------------------------------------
# Reference counts
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("cls, n", [
    ("Element", 5), ("Stem", 10), ("Branch", 12), ("StemBranch", 60), ("Nayin", 30), ("Trigram", 8),
    ("Hexagram", 64), ("HexagramPosition", 384), ("Generation", 8), ("Relative", 5), ("Spirit", 6),
    ("LifeStage", 12), ("SeasonalStrength", 5), ("StageEntry", 60 + 120), ("StrengthEntry", 60 + 60),
    ("TripleCombineFrame", 4), ("Role", 4), ("Topic", len(T.QUESTIONS)), ("School", 16), ("UseGodChoice", len(T.USE_GOD_CHOICES) + len(T.PERSON_CHOICES)), ("Work", 5),
    ("ShenShaKind", 11), ("ShenShaEntry", 150),
    ("SixClashHexagram", 10), ("SixCombineHexagram", 8), ("JinShenPillar", 4), ("TuiShenPillar", 4),
])
def test_reference_holds_the_expected_number_of_individuals(ref, cls, n):
    assert count(ref, cls) == n


def test_every_hexagram_has_six_positions_indexed_one_to_six(ref):
    rows = select(ref, """SELECT ?h (COUNT(DISTINCT ?i) AS ?n) (MIN(?i) AS ?lo) (MAX(?i) AS ?hi)
        WHERE { ?h a lyo:Hexagram ; lyo:hasPosition ?p . ?p lyo:index ?i } GROUP BY ?h""")
    assert len(rows) == 64
    assert {(r[1].toPython(), r[2].toPython(), r[3].toPython()) for r in rows} == {(6, 1, 6)}


def test_eight_palaces_hold_eight_hexagrams_one_of_each_generation(ref):
    rows = select(ref, """SELECT ?palace (COUNT(?h) AS ?n) (COUNT(DISTINCT ?g) AS ?gens)
        WHERE { ?h lyo:palace ?palace ; lyo:generation ?g } GROUP BY ?palace""")
    assert len(rows) == 8
    assert {(r[1].toPython(), r[2].toPython()) for r in rows} == {(8, 8)}


def test_each_pure_hexagram_heads_its_own_palace_with_shi_on_six(ref):
    rows = select(ref, """SELECT ?h ?up ?palace ?shi WHERE { ?h lyo:generation lyr:PureGeneration ;
        lyo:upperTrigram ?up ; lyo:lowerTrigram ?up ; lyo:palace ?palace ; lyo:shiPosition ?shi }""")
    assert len(rows) == 8
    assert all(r[1] == r[2] and r[3].toPython() == 6 for r in rows)


def test_ying_is_three_lines_from_shi_in_every_hexagram(ref):
    rows = select(ref, "SELECT ?shi ?ying WHERE { ?h lyo:shiPosition ?shi ; lyo:yingPosition ?ying }")
    assert len(rows) == 64
    assert all(abs(s.toPython() - y.toPython()) == 3 for s, y in rows)


# ---------------------------------------------------------------------------------------------
# Spot checks against the classics
# ---------------------------------------------------------------------------------------------

HEX_QUERY = """SELECT ?palace ?generation ?shi ?ying WHERE {
  ?h a lyo:Hexagram ; rdfs:label ?l ; lyo:palace/rdfs:label ?palace ; lyo:generation/rdfs:label ?generation ;
     lyo:shiPosition ?shi ; lyo:yingPosition ?ying .
  FILTER(STR(?l) = ?name && LANGMATCHES(LANG(?l), "zh-Hant"))
  FILTER(LANGMATCHES(LANG(?palace), "zh-Hant") && LANGMATCHES(LANG(?generation), "zh-Hant")) }"""

POSITION_QUERY = """SELECT ?gz WHERE {
  ?h a lyo:Hexagram ; rdfs:label ?l ; lyo:hasPosition ?p . ?p lyo:index ?index ; lyo:stemBranch/rdfs:label ?gz .
  FILTER(STR(?l) = ?name && LANGMATCHES(LANG(?l), "zh-Hant") && LANGMATCHES(LANG(?gz), "zh-Hant")) }"""


def hexagram(ref, name: str) -> tuple[str, str, int, int]:
    rows = select(ref, HEX_QUERY, name=name)
    assert len(rows) == 1, (name, rows)
    palace, generation, shi, ying = rows[0]
    return str(palace), str(generation), shi.toPython(), ying.toPython()


@pytest.mark.parametrize("name, palace, generation, shi, ying", [
    ("節", "坎", "一世", 1, 4),
    ("大畜", "艮", "二世", 2, 5),
    ("觀", "乾", "四世", 4, 1),
    ("姤", "乾", "一世", 1, 4),
    ("否", "乾", "三世", 3, 6),
    ("兌", "兌", "本宮", 6, 3),
    ("剝", "乾", "五世", 5, 2),
    ("晉", "乾", "遊魂", 4, 1),
    ("大有", "乾", "歸魂", 3, 6),
    ("遯", "乾", "二世", 2, 5),
    ("鼎", "離", "二世", 2, 5),
    ("屯", "坎", "二世", 2, 5),
    ("中孚", "艮", "遊魂", 4, 1),
    ("隨", "震", "歸魂", 3, 6),
])
def test_hexagram_palace_generation_shi_and_ying_follow_the_eight_palaces(ref, name, palace, generation, shi, ying):
    assert hexagram(ref, name) == (palace, generation, shi, ying)


@pytest.mark.parametrize("name, index, gz", [
    ("節", 1, "丁巳"), ("節", 4, "戊申"), ("節", 6, "戊子"),
    ("觀", 2, "乙巳"), ("觀", 4, "辛未"),
    ("乾", 1, "甲子"), ("乾", 6, "壬戌"),
    ("坤", 1, "乙未"), ("坤", 4, "癸丑"),
    ("中孚", 6, "辛卯"),
    ("姤", 1, "辛丑"),
])
def test_position_stem_branch_follows_najia_inner_then_outer(ref, name, index, gz):
    assert [str(r[0]) for r in select(ref, POSITION_QUERY, name=name, index=index)] == [gz]


def test_jie_line_pattern_and_trigrams(ref):
    h = URIRef(LYR + "Hexagram60")
    assert str(ref.value(h, URIRef(LYO + "linePattern"))) == "110010"
    assert ref.value(h, URIRef(LYO + "upperTrigram")) == URIRef(LYR + "TrigramKan")
    assert ref.value(h, URIRef(LYO + "lowerTrigram")) == URIRef(LYR + "TrigramDui")
    assert (h, RDF.type, URIRef(LYO + "SixCombineHexagram")) in ref


@pytest.mark.parametrize("gz, nayin, element", [
    ("甲子", "海中金", "金"), ("壬午", "楊柳木", "木"), ("辛亥", "釵釧金", "金"),
    ("丙午", "天河水", "水"), ("壬申", "劍鋒金", "金"), ("己未", "天上火", "火"), ("癸亥", "大海水", "水"),
])
def test_nayin_of_the_jiazi(ref, gz, nayin, element):
    rows = select(ref, """SELECT ?n ?e WHERE { ?p a lyo:StemBranch ; rdfs:label ?l ; lyo:nayin ?x .
        ?x rdfs:label ?n ; lyo:element/rdfs:label ?e .
        FILTER(STR(?l) = ?gz && LANGMATCHES(LANG(?n), "zh-Hant") && LANGMATCHES(LANG(?e), "zh-Hant")) }""", gz=gz)
    assert [(str(n), str(e)) for n, e in rows] == [(nayin, element)]


def test_jiazi_carry_stem_branch_and_cycle_index(ref):
    p = URIRef(LYR + "GZ_XinHai")
    assert ref.value(p, URIRef(LYO + "stem")) == URIRef(LYR + "StemXin")
    assert ref.value(p, URIRef(LYO + "branch")) == URIRef(LYR + "BranchHai")
    assert ref.value(p, URIRef(LYO + "cycleIndex")).toPython() == 47


def _zh_pairs(ref, prop: str) -> set[tuple[str, str]]:
    rows = select(ref, f"""SELECT ?a ?b WHERE {{ ?x lyo:{prop} ?y . ?x rdfs:label ?a . ?y rdfs:label ?b .
        FILTER(LANGMATCHES(LANG(?a), "zh-Hant") && LANGMATCHES(LANG(?b), "zh-Hant")) }}""")
    return {(str(a), str(b)) for a, b in rows}


def test_branch_clash_combine_harm_are_listed_both_ways(ref):
    clashes = _zh_pairs(ref, "branchClashes")
    assert len(clashes) == 12 and ("子", "午") in clashes and ("午", "子") in clashes
    combines = _zh_pairs(ref, "branchCombines")
    assert len(combines) == 12 and ("午", "未") in combines and ("未", "午") in combines
    harms = _zh_pairs(ref, "branchHarms")
    assert len(harms) == 12 and ("申", "亥") in harms and ("亥", "申") in harms


def test_branch_punishment_is_directed_with_reflexive_self_punishment(ref):
    punish = _zh_pairs(ref, "branchPunishes")
    assert len(punish) == 12
    assert ("寅", "巳") in punish and ("巳", "寅") not in punish
    assert {("辰", "辰"), ("午", "午"), ("酉", "酉"), ("亥", "亥")} <= punish


def test_element_cycles_and_tombs(ref):
    gen = _zh_pairs(ref, "elementGenerates")
    assert gen == {("木", "火"), ("火", "土"), ("土", "金"), ("金", "水"), ("水", "木")}
    over = _zh_pairs(ref, "elementOvercomes")
    assert over == {("木", "土"), ("土", "水"), ("水", "火"), ("火", "金"), ("金", "木")}
    tombs = _zh_pairs(ref, "tombBranch")
    assert tombs == {("金", "丑"), ("木", "未"), ("火", "戌"), ("水", "辰"), ("土", "辰")}


STAGE_QUERY = """SELECT ?stage WHERE { ?e lyo:{key} ?k ; lyo:atBranch ?b ; lyo:stage/rdfs:label ?stage .
  ?k rdfs:label ?kl . ?b rdfs:label ?bl .
  FILTER(STR(?kl) = ?who && STR(?bl) = ?at && LANGMATCHES(LANG(?stage), "zh-Hant")) }"""


@pytest.mark.parametrize("element, branch, stage", [
    ("水", "申", "長生"), ("土", "申", "長生"), ("金", "巳", "長生"), ("木", "亥", "長生"), ("火", "寅", "長生"),
    ("水", "辰", "墓"), ("金", "丑", "墓"), ("木", "未", "墓"), ("火", "戌", "墓"),
    ("金", "寅", "絕"), ("水", "子", "帝旺"),
])
def test_element_life_stages(ref, element, branch, stage):
    rows = select(ref, STAGE_QUERY.replace("{key}", "forElement"), who=element, at=branch)
    assert [str(r[0]) for r in rows] == [stage]


@pytest.mark.parametrize("stem, branch, stage", [
    ("甲", "亥", "長生"), ("乙", "午", "長生"), ("乙", "巳", "沐浴"), ("乙", "戌", "墓"),
    ("己", "酉", "長生"), ("戊", "寅", "長生"), ("癸", "卯", "長生"), ("癸", "未", "墓"),
])
def test_stem_life_stages_count_yin_stems_backwards(ref, stem, branch, stage):
    rows = select(ref, STAGE_QUERY.replace("{key}", "forStem"), who=stem, at=branch)
    assert [str(r[0]) for r in rows] == [stage]


def test_stem_stage_entries_belong_to_the_stem_stages_school(ref):
    rows = select(ref, """SELECT (COUNT(?e) AS ?n) WHERE { ?e lyo:forStem ?s ; lyo:school lyr:SchoolStemStages }""")
    assert rows[0][0].toPython() == 120
    element_entry_with_school = "ASK { ?e lyo:forElement ?x ; lyo:atBranch ?b ; lyo:school ?s }"
    assert not ref.query(sparql_prologue() + element_entry_with_school).askAnswer


@pytest.mark.parametrize("month, strengths", [
    ("寅", {"木": "旺", "火": "相", "水": "休", "金": "囚", "土": "死"}),
    ("午", {"火": "旺", "土": "相", "木": "休", "水": "囚", "金": "死"}),
    ("辰", {"土": "旺", "金": "相", "火": "休", "木": "囚", "水": "死"}),
    ("子", {"水": "旺", "木": "相", "金": "休", "土": "囚", "火": "死"}),
])
def test_seasonal_strength_by_month(ref, month, strengths):
    rows = select(ref, """SELECT ?e ?s WHERE { ?x lyo:monthBranch/rdfs:label ?m ; lyo:forElement/rdfs:label ?e ;
        lyo:strength/rdfs:label ?s . FILTER(STR(?m) = ?month && LANGMATCHES(LANG(?e), "zh-Hant")
        && LANGMATCHES(LANG(?s), "zh-Hant")) FILTER NOT EXISTS { ?x lyo:school ?variant } }""", month=month)
    assert {str(e): str(s) for e, s in rows} == strengths


@pytest.mark.parametrize("month, strengths", [
    # 火珠林: 「春，寅卯木旺，巳午火相，亥子水休，申酉金囚，辰戌丑未土死。」 — 辰 is a spring month.
    ("辰", {"木": "旺", "火": "相", "水": "休", "金": "囚", "土": "死"}),
    ("未", {"火": "旺", "土": "相", "木": "休", "水": "囚", "金": "死"}),
    ("戌", {"金": "旺", "水": "相", "土": "休", "火": "囚", "木": "死"}),
    ("丑", {"水": "旺", "木": "相", "金": "休", "土": "囚", "火": "死"}),
])
def test_huozhulin_reads_strength_by_the_four_seasons(ref, month, strengths):
    rows = select(ref, """SELECT ?e ?s WHERE { ?x lyo:monthBranch/rdfs:label ?m ; lyo:forElement/rdfs:label ?e ;
        lyo:strength/rdfs:label ?s ; lyo:school lyr:SchoolHuoZhuLinSeasons .
        FILTER(STR(?m) = ?month && LANGMATCHES(LANG(?e), "zh-Hant") && LANGMATCHES(LANG(?s), "zh-Hant")) }""",
                  month=month)
    assert {str(e): str(s) for e, s in rows} == strengths


def test_day_stem_gives_the_first_spirit(ref):
    rows = select(ref, """SELECT ?st ?sp WHERE { ?s lyo:firstSpirit ?x . ?s rdfs:label ?st . ?x rdfs:label ?sp .
        FILTER(LANGMATCHES(LANG(?st), "zh-Hant") && LANGMATCHES(LANG(?sp), "zh-Hant")) }""")
    assert {str(a): str(b) for a, b in rows} == {
        "甲": "青龍", "乙": "青龍", "丙": "朱雀", "丁": "朱雀", "戊": "勾陳", "己": "螣蛇",
        "庚": "白虎", "辛": "白虎", "壬": "玄武", "癸": "玄武"}


def test_questions_form_a_skos_scheme_with_broader_and_narrower(ref):
    rows = select(ref, """SELECT ?n ?b WHERE { ?q skos:inScheme lyr:QuestionScheme ; skos:prefLabel ?n .
        OPTIONAL { ?q skos:broader/skos:prefLabel ?b . FILTER(LANGMATCHES(LANG(?b), "zh-Hant")) }
        FILTER(LANGMATCHES(LANG(?n), "zh-Hant")) }""")
    broader = {str(n): (str(b) if b is not None else None) for n, b in rows}
    assert len(broader) == len(T.QUESTIONS)
    assert {q for q, b in broader.items() if b == "天時"} == {"晴", "雨"}
    assert {q for q, b in broader.items() if b == "田蠶"} == {"農", "蠶"}
    assert {q for q, b in broader.items() if b == "功名"} == {"考試", "求官"}
    assert {q for q, b in broader.items() if b == "疾病"} >= {"醫藥"}
    for q in ref.subjects(URIRef(SKOS + "broader"), None):  # narrower is the inverse, asserted both ways
        for b in ref.objects(q, URIRef(SKOS + "broader")):
            assert (b, URIRef(SKOS + "narrower"), q) in ref


def test_every_question_takes_a_use_god_choice_with_a_passage(ref):
    rows = select(ref, """SELECT ?q (COUNT(?c) AS ?n) WHERE { ?q a lyo:Topic .
        OPTIONAL { ?q lyo:hasUseGodChoice ?c . ?c lyo:citesSource ?p } } GROUP BY ?q""")
    assert len(rows) == len(T.QUESTIONS) and all(r[1].toPython() >= 1 for r in rows)
    assert (URIRef(LYR + "UseGodChoice_MarriageWoman"), URIRef(LYO + "useGodRelative"), URIRef(LYR + "Officer")) in ref
    assert (URIRef(LYR + "UseGodChoice_Illness"), URIRef(LYO + "useGodRole"), URIRef(LYR + "RoleShi")) in ref


def test_whom_a_question_concerns_selects_the_use_god_as_tianxuanfu_says(ref):
    """天玄賦 疾病章: 子占父母…妻占夫看鬼，夫占妻看財，父占子看子，占兄弟看兄弟，占朋友亦看兄弟，占奴僕亦看子孫."""
    rows = select(ref, """SELECT ?s ?r WHERE { ?c lyo:forQuestion lyr:TopicIllness ; lyo:forSubject/rdfs:label ?s ;
        lyo:useGodRelative/rdfs:label ?r .
        FILTER(LANGMATCHES(LANG(?s), "zh-Hant") && LANGMATCHES(LANG(?r), "zh-Hant")) }""")
    assert {str(a): str(b) for a, b in rows} == {"父母": "父母", "夫": "官鬼", "妻": "妻財", "子": "子孫",
                                                   "兄弟": "兄弟", "朋友": "兄弟", "奴僕": "子孫"}


def test_jin_tui_shen_lists_and_later_advance_pairs(ref):
    jin = {str(l) for s in ref.subjects(RDF.type, URIRef(LYO + "JinShenPillar"))
           for l in ref.objects(s, RDFS.label) if l.language == "zh-Hant"}
    tui = {str(l) for s in ref.subjects(RDF.type, URIRef(LYO + "TuiShenPillar"))
           for l in ref.objects(s, RDFS.label) if l.language == "zh-Hant"}
    assert jin == {"甲子", "甲午", "己卯", "己酉"}
    assert tui == {"壬戌", "壬辰", "丁丑", "丁未"}
    assert _zh_pairs(ref, "advancesTo") == {
        ("亥", "子"), ("寅", "卯"), ("巳", "午"), ("申", "酉"), ("丑", "辰"), ("辰", "未"), ("未", "戌"), ("戌", "丑")}


def test_triple_combination_frames(ref):
    frame = URIRef(LYR + "Frame_ShenZiChen")
    assert set(ref.objects(frame, URIRef(LYO + "hasBranch"))) == {
        URIRef(LYR + b) for b in ("BranchShen", "BranchZi", "BranchChen")}
    assert ref.value(frame, URIRef(LYO + "element")) == URIRef(LYR + "Water")
    assert (URIRef(LYR + "BranchZi"), URIRef(LYO + "tripleCombineFrame"), frame) in ref


# ---------------------------------------------------------------------------------------------
# Generation is deterministic
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("hashseed", ["0", "12345"])
def test_regenerating_reference_ttl_is_a_no_op(hashseed):
    env = dict(os.environ, PYTHONHASHSEED=hashseed)
    made = subprocess.run([sys.executable, "-c", "import sys; from liuyao_kg.build import reference; "
                           "sys.stdout.buffer.write(reference.render().encode('utf-8'))"],
                          check=True, env=env, capture_output=True).stdout
    assert made == REFERENCE.read_bytes()


@pytest.mark.parametrize("check", ["undeclared-term-violation", "datatype-literal-violation"])
def test_the_sample_cast_uses_only_declared_terms_with_the_right_kind_of_value(tbox, check):
    g = rdflib.Graph()
    for t in tbox:
        g.add(t)
    g.parse(ROOT / "tests" / "data" / "cast_sample.ttl")
    query = (ROOT / "queries" / "checks" / f"{check}.rq").read_text(encoding="utf-8")
    assert [tuple(str(v) for v in r) for r in g.query(query)] == []
