"""SHACL shapes (ontology/shapes/): every cast's asserted graph, the rule base and the passages conform; a cast that
does not is refused before it is stored, with an error naming the shape."""
from __future__ import annotations

import pyoxigraph as ox
import pytest
import rdflib

import liuyao_kg
from liuyao_kg import namespaces as ns
from liuyao_kg.graph import LAYERS, KnowledgeGraph, layer_quads
from liuyao_kg.loaders.cast_input import make_cast_input
from liuyao_kg.loaders.rdf import cast_quads
from liuyao_kg.shapes import ShapeViolation, check_cast, violations

INT = ox.NamedNode(ns.XSD + "integer")


@pytest.fixture(scope="module")
def jie():
    return cast_quads(make_cast_input("節之中孚", month="寅", day="辛亥", year="壬午", birth="寅", sex="男",
                                      topic="求財", date=None))


def _replace(quads, predicate, subject_suffix, value):
    return [ox.Quad(q.subject, q.predicate, value, q.graph_name)
            if q.predicate.value == ns.LYO + predicate and q.subject.value.endswith(subject_suffix) else q for q in quads]


@pytest.mark.parametrize("spec, extra", [("節之中孚", {}), ("乾", {"date": "2024-02-04T16:28+08:00"}),
                                         ("787986", {"birth": "子", "sex": "女", "topic": "婚姻", "about": "妻"})])
def test_the_loaders_casts_conform(spec, extra):
    fields = {"month": "寅", "day": "辛亥"} if "date" not in extra else {}
    check_cast(cast_quads(make_cast_input(spec, **(fields | extra))))


def test_a_line_value_outside_6_to_9_violates_the_line_shape(jie):
    bad = _replace(jie, "lineValue", "/line/3", ox.Literal("5", datatype=INT))
    with pytest.raises(ShapeViolation, match=r"shape lysh:LineShape .*/line/3 lyo:lineValue: a line's value is one of 6 7 8 9"):
        check_cast(bad)


def test_two_lines_at_one_position_violate_the_cast_shape(jie):
    bad = _replace(jie, "position", "/line/3", ox.Literal("2", datatype=INT))
    with pytest.raises(ShapeViolation, match="shape lysh:CastShape .*positions 1 … 6, each once"):
        check_cast(bad)


def test_a_cast_with_two_day_pillars_violates_the_cast_shape(jie):
    (day,) = [q for q in jie if q.predicate.value == ns.LYO + "hasDay"]
    other = ox.Quad(day.subject, day.predicate, ox.NamedNode(ns.LYR + "Day_甲子"), day.graph_name)
    with pytest.raises(ShapeViolation, match="lysh:CastShape .* lyo:hasDay: a cast has at most one day pillar"):
        check_cast(jie + [other])


def test_a_cast_without_a_date_conforms_to_the_cast_shape(jie):
    check_cast([q for q in jie if q.predicate.value not in (ns.LYO + "hasDay", ns.LYO + "hasMonth")])


def test_a_hexagram_outside_the_64_violates_the_cast_shape(jie):
    bad = _replace(jie, "primaryHexagram", "", ox.NamedNode(ns.LYR + "Hexagram65"))
    with pytest.raises(ShapeViolation, match="lyo:primaryHexagram: a cast has one primary hexagram"):
        check_cast(bad)


def test_a_violating_cast_is_not_stored(jie, monkeypatch):
    from liuyao_kg.loaders import rdf

    kg = KnowledgeGraph(chapter_rules=False)
    monkeypatch.setattr(rdf, "cast_quads", lambda ci: _replace(cast_quads(ci), "lineValue", "/line/3",
                                                               ox.Literal("5", datatype=INT)))
    with pytest.raises(ShapeViolation):
        liuyao_kg.cast("節之中孚", month="寅", day="辛亥", kg=kg)
    assert not kg.has_cast(make_cast_input("節之中孚", month="寅", day="辛亥").iri)


def test_the_cli_reports_a_shape_violation_as_an_input_error(monkeypatch, capsys):
    from liuyao_kg.cli import main
    from liuyao_kg.loaders import rdf

    monkeypatch.setattr(rdf, "cast_quads", lambda ci: [q for q in cast_quads(ci) if q.predicate.value != ns.LYO + "hasLine"
                                                       or not q.object.value.endswith("/line/6")])
    assert main(["cast", "節", "--month", "寅", "--day", "辛亥"]) == 2
    assert "liuyao: error: the cast's graph violates shape lysh:CastShape" in capsys.readouterr().err


def _layers(*graphs: str) -> rdflib.Graph:
    quads = layer_quads()
    g = rdflib.Graph()
    data = ox.serialize([ox.Triple(q.subject, q.predicate, q.object) for name in graphs for q in quads[name]],
                        format=ox.RdfFormat.N_TRIPLES)
    g.parse(data=data.decode(), format="nt")
    return g


@pytest.fixture(scope="module")
def rule_data():
    """The rule and passage layers, with the works they belong to (typed in the reference layer)."""
    g = _layers(ns.GRAPH_RULES, ns.GRAPH_PASSAGES)
    work = rdflib.URIRef(ns.LYO + "Work")
    for w in _layers(ns.GRAPH_REFERENCE).subjects(rdflib.RDF.type, work):
        g.add((w, rdflib.RDF.type, work))
    return g


#: rules the shapes find wanting, each with why it is not fixed here; the test fails when one is fixed or a new one appears
KNOWN_GAPS = {
    # the seed's Korean rendering of this passage stops mid-sentence ("밖의 인정에"), so there is no Korean
    # conclusion to transcribe: ontology/chapters/004b-jibing.yaml has ko: null
    ("lysh:KoreanConclusionShape", ns.LYRULE + "ch/004b-jibing/ill-cause-ghost-hidden-under-offspring"),
}


def test_the_rule_base_and_passages_conform_to_their_shapes(rule_data):
    assert {(v["shape"], v["focus"]) for v in violations(rule_data, "rules")} == KNOWN_GAPS


def test_a_chapter_rule_without_the_korean_its_passage_gives_violates_the_rule_shape(rule_data):
    g = rdflib.Graph()
    rule = rdflib.URIRef(ns.LYRULE + "ch/000-yushi/case-wealth-severed-sibling-moves")
    for t in rule_data.triples((rule, None, None)):
        if not (t[1] == rdflib.URIRef(ns.LYO + "conclusion") and t[2].language == "ko"):
            g.add(t)
    for t in rule_data.triples((rdflib.URIRef(ns.LYR + "WorkYiMao"), None, None)):
        g.add(t)
    for t in rule_data.triples((None, None, None)):
        if t[0] in set(g.objects(rule, rdflib.URIRef(ns.LYO + "citesSource"))):
            g.add(t)
    found = violations(g, "rules")
    assert [(v["shape"], v["message"]) for v in found] == [
        ("lysh:KoreanConclusionShape", "a chapter rule whose passage has a Korean rendering gives its conclusion in Korean too")]


