"""The rdflib reference backend runs the same rules to the same inferred quads as the engine.

Same rule texts (read from the rules graph), same plan, a different SPARQL implementation: the
inferred quads must be equal as sets. rdflib is ~100x slower, so a handful of casts is checked.
"""
from __future__ import annotations

import pytest

from liuyao_kg.graph import KnowledgeGraph
from liuyao_kg.loaders.cast_input import make_cast_input
from liuyao_kg.loaders.rdf import cast_quads
from liuyao_kg.reasoner.rdflib_engine import RdflibEngine, rule_query
from samples import sample_casts


def _engines(chapter_rules: bool):
    kg = KnowledgeGraph(chapter_rules=chapter_rules)
    engine = kg.engine
    return engine, RdflibEngine(list(engine.rules.values()), engine._reference)


@pytest.fixture(scope="module")
def states_only():
    return _engines(False)


@pytest.mark.parametrize("values,month,day,topic", sample_casts(4, seed=5))
def test_state_rules_give_identical_quads(states_only, values, month, day, topic):
    engine, ref = states_only
    quads = cast_quads(make_cast_input(values, month=month, day=day, topic=topic))
    expected = set(engine.derive(quads))
    got = set(ref.derive(quads))
    assert got == expected, (sorted(map(str, expected - got))[:5], sorted(map(str, got - expected))[:5])


@pytest.mark.parametrize("spec,month,day,topic", [("節之中孚", "寅", "辛亥", "求財"), ("大畜之蒙", "巳", "癸未", "疾病")])
def test_chapter_rules_give_identical_quads(spec, month, day, topic):
    engine, ref = _engines(True)
    quads = cast_quads(make_cast_input(spec, month=month, day=day, topic=topic))
    expected = set(engine.derive(quads))
    assert any(q.object.value.endswith("#Judgment") for q in expected)
    assert set(ref.derive(quads)) == expected


def test_the_rule_binding_is_written_inside_the_where_group():
    """rdflib drops a trailing VALUES from a CONSTRUCT; the rewrite keeps the same algebra."""
    engine, _ = _engines(False)
    rule = engine.rules[next(iter(engine.rules))]
    text = rule_query(rule)
    assert text.rstrip().endswith(f"VALUES ?rule {{ <{rule.iri}> }} }}")
    assert text.count("{") == text.count("}")


def test_a_knowledge_graph_can_derive_with_the_rdflib_backend():
    import liuyao_kg

    ref = KnowledgeGraph(chapter_rules=False, backend="rdflib")
    assert type(ref.engine).__name__ == "RdflibEngine"
    ox_chart = liuyao_kg.cast("節之中孚", month="寅", day="辛亥", kg=KnowledgeGraph(chapter_rules=False))
    assert liuyao_kg.cast("節之中孚", month="寅", day="辛亥", kg=ref) == ox_chart
    with pytest.raises(ValueError):
        KnowledgeGraph(backend="jena")
