"""互卦, 錯卦 and 綜卦 in the reference graph (lyo:nuclearHexagram, lyo:oppositeHexagram, lyo:inverseHexagram).

Every one of the 64 is checked against an independent computation from the oracle's King Wen table (trigram pairs
written out by hand in tests/oracles/oracle.py), then against values any handbook gives, and against the King Wen
order itself, which pairs each hexagram with its 綜 (or, for the eight that read the same upside down, its 錯).
"""
from __future__ import annotations

from pathlib import Path

import pytest
import rdflib
from rdflib import URIRef
from rdflib.namespace import OWL, RDF, RDFS

from liuyao_kg.build.passages import load_entries
from liuyao_kg.namespaces import LYO, LYP
from oracle import BITS_TRIGRAM, HEXAGRAMS, KING_WEN, TRIGRAM_BITS

ROOT = Path(__file__).resolve().parents[2]
TBOX = ROOT / "ontology" / "lyo.ttl"
REFERENCE = ROOT / "ontology" / "reference.ttl"
PASSAGES = ROOT / "ontology" / "passages.yaml"

RELATIONS = ("nuclearHexagram", "oppositeHexagram", "inverseHexagram")
SELF_INVERSE = {"乾", "坤", "頤", "大過", "坎", "離", "中孚", "小過"}


# ---- the oracle: line patterns bottom-up (1 yang) from the hand-written trigram pairs ------------------------------

def pattern(name: str) -> tuple[int, ...]:
    upper, lower = HEXAGRAMS[name]
    return TRIGRAM_BITS[lower] + TRIGRAM_BITS[upper]


def named(lines: tuple[int, ...]) -> str:
    pair = (BITS_TRIGRAM[lines[3:]], BITS_TRIGRAM[lines[:3]])
    return next(n for n, trigrams in HEXAGRAMS.items() if trigrams == pair)


EXPECTED = {
    "nuclearHexagram": lambda p: named(p[1:4] + p[2:5]),  # lines 2-3-4 below, 3-4-5 above
    "oppositeHexagram": lambda p: named(tuple(1 - v for v in p)),  # every line changed
    "inverseHexagram": lambda p: named(p[::-1]),  # upside down
}


# ---- the graph ------------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ref() -> rdflib.Graph:
    return rdflib.Graph().parse(REFERENCE)


@pytest.fixture(scope="module")
def tbox() -> rdflib.Graph:
    return rdflib.Graph().parse(TBOX)


@pytest.fixture(scope="module")
def asserted(ref) -> dict[str, dict[str, list[str]]]:
    """relation → hexagram name → the names it points to, by King Wen number (no label is trusted)."""
    name = {s: KING_WEN[int(n) - 1] for s, n in ref.subject_objects(URIRef(LYO + "kingWenNumber"))}
    assert len(name) == 64
    return {rel: {name[h]: sorted(name[o] for o in ref.objects(h, URIRef(LYO + rel))) for h in name}
            for rel in RELATIONS}


@pytest.mark.parametrize("relation", RELATIONS)
def test_each_of_the_64_has_exactly_one(asserted, relation):
    assert {h: len(o) for h, o in asserted[relation].items() if len(o) != 1} == {}


@pytest.mark.parametrize("relation", RELATIONS)
def test_each_of_the_64_matches_the_computation_from_its_lines(asserted, relation):
    wrong = {h: (o, EXPECTED[relation](pattern(h))) for h, o in asserted[relation].items()
             if o != [EXPECTED[relation](pattern(h))]}
    assert wrong == {}


@pytest.mark.parametrize("name, relation, other", [
    ("乾", "nuclearHexagram", "乾"), ("乾", "oppositeHexagram", "坤"), ("乾", "inverseHexagram", "乾"),
    ("節", "nuclearHexagram", "頤"), ("節", "oppositeHexagram", "旅"), ("節", "inverseHexagram", "渙"),
    ("既濟", "nuclearHexagram", "未濟"), ("未濟", "nuclearHexagram", "既濟"), ("屯", "nuclearHexagram", "剝"),
    ("中孚", "inverseHexagram", "中孚"), ("中孚", "oppositeHexagram", "小過"), ("屯", "inverseHexagram", "蒙"),
    ("泰", "oppositeHexagram", "否"), ("泰", "inverseHexagram", "否"), ("否", "nuclearHexagram", "漸"),
])
def test_known_values(asserted, name, relation, other):
    # 否's 互 is 漸 (內宮互成艮卦 … 外宮互成巽卦: 卜筮正宗 辨互卦, the example the definition cites)
    assert asserted[relation][name] == [other]


@pytest.mark.parametrize("relation", ["oppositeHexagram", "inverseHexagram"])
def test_opposite_and_inverse_are_asserted_both_ways(asserted, relation):
    one_way = [(h, o) for h, (o,) in asserted[relation].items() if asserted[relation][o] != [h]]
    assert one_way == []


def test_nuclear_is_not_symmetric_and_twice_taken_ends_in_qian_kun_jiji_weiji(asserted):
    nuclear = {h: o for h, (o,) in asserted["nuclearHexagram"].items()}
    assert nuclear["節"] == "頤" and nuclear["頤"] == "坤"
    assert {nuclear[nuclear[h]] for h in KING_WEN} == {"乾", "坤", "既濟", "未濟"}


def test_no_hexagram_is_its_own_opposite_and_eight_are_their_own_inverse(asserted):
    assert [h for h, o in asserted["oppositeHexagram"].items() if o == [h]] == []
    assert {h for h, o in asserted["inverseHexagram"].items() if o == [h]} == SELF_INVERSE


def test_the_king_wen_order_pairs_each_hexagram_with_its_inverse_or_else_its_opposite(asserted):
    for first, second in zip(KING_WEN[::2], KING_WEN[1::2]):
        relation = "oppositeHexagram" if first in SELF_INVERSE else "inverseHexagram"
        assert asserted[relation][first] == [second], (first, second)


# ---- the T-box ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("relation, characteristics", [
    ("nuclearHexagram", {OWL.FunctionalProperty}),
    ("oppositeHexagram", {OWL.FunctionalProperty, OWL.SymmetricProperty, OWL.IrreflexiveProperty}),
    ("inverseHexagram", {OWL.FunctionalProperty, OWL.SymmetricProperty}),
])
def test_the_properties_are_declared_between_hexagrams_with_their_characteristics(tbox, relation, characteristics):
    p = URIRef(LYO + relation)
    assert set(tbox.objects(p, RDF.type)) == {OWL.ObjectProperty} | characteristics
    assert (tbox.value(p, RDFS.domain), tbox.value(p, RDFS.range)) == (URIRef(LYO + "Hexagram"),) * 2


@pytest.mark.parametrize("relation, zh, source", [
    ("nuclearHexagram", "互卦", "BuZhengNuclearHexagram"),
    ("oppositeHexagram", "錯卦", "ConventionOppositeHexagram"),
    ("inverseHexagram", "綜卦", "ConventionInverseHexagram"),
])
def test_each_is_labelled_by_its_name_and_defined_with_the_source_that_defines_it(tbox, relation, zh, source):
    p = URIRef(LYO + relation)
    assert rdflib.Literal(zh, lang="zh-Hant") in set(tbox.objects(p, RDFS.label))
    definition = next(str(d) for d in tbox.objects(p, URIRef("http://www.w3.org/2004/02/skos/core#definition"))
                      if d.language == "en")
    assert source in definition
    entries = {e["id"]: e for e in load_entries(PASSAGES)}
    assert relation in entries[source]["terms"]
    passages = rdflib.Graph().parse(ROOT / "ontology" / "passages.ttl")
    assert (URIRef(LYP + source), URIRef(LYO + "definesTerm"), rdflib.Literal(relation)) in passages
