"""HermiT (via owlready2) finds the T-box, the reference individuals and a sample cast consistent.

Each case merges Turtle files with rdflib, writes N-Triples to tmp_path, loads them into a fresh
owlready2 World and runs HermiT (a fresh JVM per call). Timings on this machine: about 1.2 s for
the T-box alone, 1.5 s with the reference graph (8.4k triples) and with the sample cast.
"""
from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
import rdflib

owlready2 = pytest.importorskip("owlready2")

pytestmark = [
    pytest.mark.reasoner_owl,
    pytest.mark.skipif(shutil.which("java") is None, reason="HermiT needs a Java runtime"),
]

ROOT = Path(__file__).resolve().parents[2]
TBOX = ROOT / "ontology" / "lyo.ttl"
# lyo.ttl imports the module of reused terms; owlready2 resolves it from the local RDF/XML (external.owl)
owlready2.onto_path.append(str(ROOT / "ontology"))
REFERENCE = ROOT / "ontology" / "reference.ttl"
CAST = ROOT / "tests" / "data" / "cast_sample.ttl"
CAST_IRI = "https://w3id.org/liuyao-kg/cast/sample-jie-zhongfu"
LYO = "https://w3id.org/liuyao-kg/ontology#"
BUDGET_SECONDS = 60

PREFIXES = """@prefix lyo: <https://w3id.org/liuyao-kg/ontology#> .
@prefix lyr: <https://w3id.org/liuyao-kg/ref/> .
"""


class Reasoned:
    def __init__(self, world, consistent: bool, seconds: float):
        self.world, self.consistent, self.seconds = world, consistent, seconds

    def unsatisfiable(self) -> list[str]:
        return [c.iri for c in self.world.inconsistent_classes()]

    def types(self, iri: str) -> set[str]:
        entity = self.world[iri]
        return {c.iri for c in entity.INDIRECT_is_a if hasattr(c, "iri")}


def reason(tmp_path: Path, *sources: Path, turtle: str | None = None) -> Reasoned:
    graph = rdflib.Graph()
    for source in sources:
        graph.parse(source)
    if turtle:
        graph.parse(data=PREFIXES + turtle, format="turtle")
    merged = tmp_path / "merged.nt"
    graph.serialize(merged, format="nt", encoding="utf-8")
    world = owlready2.World()
    world.get_ontology(merged.as_uri()).load()
    start = time.perf_counter()
    try:
        owlready2.sync_reasoner_hermit(world, infer_property_values=False, debug=0)
        consistent = True
    except owlready2.OwlReadyInconsistentOntologyError:
        consistent = False
    seconds = time.perf_counter() - start
    print(f"HermiT on {len(graph)} triples ({', '.join(s.name for s in sources)}): {seconds:.2f} s")
    return Reasoned(world, consistent, seconds)


@pytest.fixture(scope="module")
def full(tmp_path_factory) -> Reasoned:
    return reason(tmp_path_factory.mktemp("owl"), TBOX, REFERENCE, CAST)


def test_tbox_alone_is_consistent_and_every_class_is_satisfiable(tmp_path):
    result = reason(tmp_path, TBOX)
    assert result.consistent
    assert result.unsatisfiable() == []


def test_tbox_with_reference_individuals_is_consistent_within_budget(tmp_path):
    result = reason(tmp_path, TBOX, REFERENCE)
    assert result.consistent
    assert result.unsatisfiable() == []
    assert result.seconds < BUDGET_SECONDS


def test_ontology_reference_and_sample_cast_are_consistent(full):
    assert full.consistent
    assert full.unsatisfiable() == []
    assert full.seconds < BUDGET_SECONDS


def test_hermit_classifies_lines_as_moving_or_static_from_their_values(full):
    cast = CAST_IRI + "/line/"
    assert LYO + "StaticLine" in full.types(cast + "1")
    assert LYO + "StaticLine" in full.types(cast + "4")
    assert LYO + "MovingLine" in full.types(cast + "6")
    assert LYO + "MovingLine" not in full.types(cast + "1")


def test_hermit_places_a_month_broken_state_under_line_state(full):
    types = full.types(CAST_IRI + "/line/4/state/MonthBroken")
    assert {LYO + "MonthBroken", LYO + "LineState", LYO + "State"} <= types


def test_a_static_line_with_a_moving_value_is_inconsistent(tmp_path):
    result = reason(tmp_path, TBOX, turtle="<urn:test:line> a lyo:StaticLine ; lyo:lineValue 9 .")
    assert not result.consistent


def test_a_hexagram_used_as_a_cast_line_is_inconsistent(tmp_path):
    result = reason(tmp_path, TBOX, REFERENCE, turtle="<urn:test:cast> lyo:hasLine lyr:Hexagram60 .")
    assert not result.consistent


def test_a_hexagram_asserted_as_its_own_opposite_is_inconsistent(tmp_path):
    """錯 is irreflexive: every line changed is never the same hexagram."""
    assert not reason(tmp_path, TBOX, turtle="lyr:Hexagram60 lyo:oppositeHexagram lyr:Hexagram60 .").consistent


def test_a_hexagram_that_reads_the_same_upside_down_may_be_its_own_inverse(tmp_path):
    assert reason(tmp_path, TBOX, turtle="lyr:Hexagram01 lyo:inverseHexagram lyr:Hexagram01 .").consistent


@pytest.mark.parametrize("spec, month, day, topic", [
    ("大畜之蒙", "巳", "癸未", "疾病"),      # 易冒: 世墓 and 命墓 (with birth 寅)
    ("兌之節", "午", "丙子", "婚姻"),        # 易冒: 六沖變六合
])
def test_a_loaded_and_derived_cast_is_consistent_with_the_ontology(tmp_path, spec, month, day, topic):
    """Not a hand-written sample: the loader's asserted graph plus everything the engine derived."""
    import pyoxigraph as ox

    import liuyao_kg

    chart = liuyao_kg.cast(spec, month=month, day=day, topic=topic, birth="寅")
    quads = liuyao_kg.default_graph().cast_graph(chart["cast"], inferred=True)
    cast_file = tmp_path / "cast.ttl"
    cast_file.write_bytes(ox.serialize([ox.Triple(q.subject, q.predicate, q.object) for q in quads],
                                       format=ox.RdfFormat.TURTLE))
    result = reason(tmp_path, TBOX, REFERENCE, cast_file)
    assert result.consistent
    line1 = chart["cast"] + "/line/1"
    assert LYO + "Line" in result.types(line1)


def test_an_added_edition_graph_is_consistent_with_the_ontology_and_the_passages(tmp_path):
    """The corpus layer (docs/corpus.md): an edition, its alignments with 異文, an unaligned passage, its
    sentences and their parallel links, as `liuyao corpus add` writes them, together with passages.ttl."""
    import pyoxigraph as ox

    import liuyao_kg
    from liuyao_kg.corpus.add import build

    text = ("== 1、財官 ==\n财官异路，可辨五乡；用有{{另|輔助|扶助}}，類可忖量。\n值旺相为有气，休囚為無氣，得生扶為吉，克破為凶。\n"
            "== 2、身命 ==\n若問成家，嫌六沖之為卦；卦值六沖，半世求謀。\n")
    edition = tmp_path / "mine.txt"
    edition.write_text(text, encoding="utf-8")
    quads, report = build(liuyao_kg.default_graph(), edition, "火珠林", "mine", retrieved="2026-12-01",
                          source="https://example.org/mine.txt")
    assert report.aligned and report.unaligned and report.parallels and report.textual_variants == 0
    assert report.alternatives == 1  # {{另|A|B}}: a variant reading of the edition itself
    graph_file = tmp_path / "edition.ttl"
    graph_file.write_bytes(ox.serialize([ox.Triple(q.subject, q.predicate, q.object) for q in quads],
                                        format=ox.RdfFormat.TURTLE))
    result = reason(tmp_path, TBOX, REFERENCE, ROOT / "ontology" / "passages.ttl", graph_file)
    assert result.consistent
    assert result.unsatisfiable() == []
    assert LYO + "Edition" in result.types("https://w3id.org/liuyao-kg/edition/HuoZhuLin/mine")


def test_the_register_of_the_schools_conflicts_is_consistent_with_the_ontology_and_the_passages(tmp_path):
    """conflicts.ttl (docs/schools.md) with the reference and the passages: a passage that supports or contradicts
    a side is a lyo:Passage, never a convention (the two are disjoint), and each side's school is a lyo:School."""
    ontology = ROOT / "ontology"
    result = reason(tmp_path, TBOX, REFERENCE, ontology / "passages.ttl", ontology / "conflicts.ttl")
    assert result.consistent
    assert result.unsatisfiable() == []
    assert LYO + "ConflictSide" in result.types("https://w3id.org/liuyao-kg/ref/ConflictSide_ClashScatter_ZengShan")
