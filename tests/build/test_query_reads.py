"""What a query can read, from its algebra: the ground on which a store defers part of a layer (lazy_build)."""
from __future__ import annotations

from liuyao_kg.namespaces import OA, RDF, RDFS, sparql_prologue
from liuyao_kg.build.reads import EVERYTHING, Nodes, query_reads

LABEL = ("p", RDFS + "label", "")
#: one selector, <urn:sel>, labelled and reached from its passage by oa:hasSelector
NODES = Nodes(frozenset({LABEL, ("p", RDF + "type", ""), ("t", OA + "TextQuoteSelector", "")}),
              frozenset({OA + "hasSelector"}), frozenset({"urn:sel"}))


def reads(where: str) -> frozenset:
    return query_reads(sparql_prologue() + f"SELECT * WHERE {{ {where} }}", NODES)


def test_a_label_of_whatever_has_one_may_be_a_selectors():
    assert reads("?x rdfs:label ?l") == {("*", LABEL, True)}


def test_a_label_of_what_a_predicate_never_pointing_at_a_selector_reaches_is_not_a_selectors():
    assert ("*", LABEL, False) in reads("?line lyo:branch ?b . ?b rdfs:label ?l")
    assert ("*", LABEL, False) in reads("?line lyo:branch ?b OPTIONAL { ?b rdfs:label ?l }")
    assert ("*", LABEL, False) in reads("?line lyo:branch/rdfs:label ?l")


def test_a_label_of_a_selector_reached_as_one_is_a_selectors():
    assert ("*", LABEL, True) in reads("?p oa:hasSelector ?s . ?s rdfs:label ?l")


def test_a_label_bound_only_beside_an_optional_is_a_selectors():
    assert ("*", LABEL, True) in reads("OPTIONAL { ?line lyo:branch ?b } ?b rdfs:label ?l")


def test_a_filter_no_selector_passes_keeps_the_label_off_the_selectors():
    assert reads('?x rdfs:label ?l FILTER(CONTAINS(STR(?x), "/ref/School"))') == {("*", LABEL, False)}
    assert ("*", LABEL, True) in reads('?x rdfs:label ?l FILTER(STRSTARTS(STR(?x), "urn:"))')


def test_a_variable_predicate_reads_everything_unless_values_list_it():
    assert EVERYTHING in reads("?s ?p ?o")
    assert reads("VALUES ?p { lyo:clashes } ?s ?p ?o") == {("*", ("p", "https://w3id.org/liuyao-kg/ontology#clashes",
                                                                 ""), True)}


def test_a_variable_predicate_a_filter_keeps_to_listed_iris_reads_only_those():
    clashes, combines = (("*", ("p", f"https://w3id.org/liuyao-kg/ontology#{p}", ""), True)
                         for p in ("clashes", "combines"))
    assert reads("?s ?p ?o FILTER(?p IN (lyo:clashes, lyo:combines))") == {clashes, combines}
    assert reads("?s ?p ?o FILTER(?p = lyo:clashes && ?s != ?o)") == {clashes}
    assert reads("?s ?p ?o FILTER(?p IN (lyo:clashes, lyo:combines) && ?p != lyo:combines)") == {clashes, combines}
    # an outer VALUES and an inner FILTER on the same variable: what both list
    assert reads("VALUES ?p { lyo:clashes } { ?s ?p ?o FILTER(?p IN (lyo:clashes, lyo:combines)) }") == {clashes}


def test_a_filter_that_may_pass_other_predicates_leaves_a_variable_predicate_reading_everything():
    assert EVERYTHING in reads("?s ?p ?o FILTER(?p IN (lyo:clashes) || ?s = ?o)")
    assert EVERYTHING in reads("?s ?p ?o FILTER(?p != lyo:clashes)")
    assert EVERYTHING in reads("?s ?p ?o FILTER(?p IN (lyo:clashes, ?o))")
    assert EVERYTHING in reads("?s lyo:branch ?o OPTIONAL { ?s ?p ?x } FILTER(?p IN (lyo:clashes))")


def test_a_zero_length_path_reads_everything_unless_an_end_is_bound_as_a_subject():
    assert EVERYTHING in reads("?a lyo:alignedPassage? ?b")
    assert EVERYTHING not in reads("?a lyo:alignedPassage? ?b . ?a oa:hasSource ?e")


def test_a_graph_clause_names_its_graph():
    assert ("urn:g", LABEL, True) in reads("GRAPH <urn:g> { ?x rdfs:label ?l }")
