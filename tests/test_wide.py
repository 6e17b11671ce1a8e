"""The chapter rules' conditions compiled over the wide tables (reasoner/columnar/wide.py).

What they derive is held equal to the pyoxigraph engine by test_columnar.py (the `-wide` backends: rule
witnesses, a seeded sample with dates) and test_columnar_full.py (64×64 pairs, 10,000 casts). Here: which
rules take the path, why one would not, and the guards that send a batch back to the generic SQL.
"""
from __future__ import annotations

import dataclasses

import pyoxigraph as ox
import pytest

from liuyao_kg import namespaces as ns
from liuyao_kg.graph import layer_quads
from liuyao_kg.loaders.cast_input import make_cast_input
from liuyao_kg.loaders.rdf import cast_quads
from liuyao_kg.reasoner.columnar.engine import ColumnarEngine
from liuyao_kg.reasoner.columnar.wide import chapter_conditions, compile_rules
from liuyao_kg.reasoner.engine import Engine, load_rules
from samples import sample_casts


@pytest.fixture(scope="module")
def package():
    layers = layer_quads()
    store = ox.Store()
    store.extend(layers[ns.GRAPH_RULES])
    rules = load_rules(store, ns.GRAPH_RULES)
    return rules, layers[ns.GRAPH_ONTOLOGY] + layers[ns.GRAPH_REFERENCE], chapter_conditions(layers[ns.GRAPH_RULES])


@pytest.fixture(scope="module")
def engines(package):
    rules, reference, conditions = package
    col = ColumnarEngine(rules, reference, threads=1, conditions=conditions)
    yield Engine(rules, reference), col
    col.close()


def test_every_executable_chapter_rule_compiles_from_its_stored_condition(package):
    rules, _reference, conditions = package
    executable = [r for r in rules if r.chapter]
    compiled, refused, comp = compile_rules(rules, conditions)
    assert refused == {}
    assert set(compiled) == {r.iri for r in executable} and len(compiled) > 1_000
    assert {e.kind for e in comp.extensions.values()} == {"line", "hidden", "cast", "pair", "pair1"}


def test_the_engine_reports_the_compiled_rules_as_their_own_path(engines):
    _ref, col = engines
    assert col.paths["wide"] == len(col.wide) == sum(r.chapter for r in col.rules.values())
    assert sum(col.paths.values()) == len(col.rules)


def test_a_rule_whose_construct_is_not_its_conditions_compilation_keeps_its_generic_sql(package):
    rules, _reference, conditions = package
    rule = next(r for r in rules if r.chapter)
    edited = dataclasses.replace(rule, construct=rule.construct.replace("?cast a lyo:Cast .", "?cast a lyo:Cast . ?cast lyo:hasLine ?any ."))
    compiled, refused, _comp = compile_rules([edited], conditions)
    assert compiled == {}
    assert "not what the condition compiles to" in refused[rule.iri]


def test_the_wide_tables_are_built_once_a_batch(engines):
    _ref, col = engines
    builds = []
    original = col._wide_build
    col._wide_build = lambda exact: (builds.append(1), original(exact))
    try:
        col.derive([q for v, m, d, t in sample_casts(4, seed=3) for q in cast_quads(make_cast_input(v, month=m, day=d, topic=t))])
    finally:
        del col._wide_build
    assert builds == [1]
    assert col._wide_usable == {e for e, _t in col._extensions}  # every compiled rule ran compiled


def _with_second_day(quads: list[ox.Quad]) -> list[ox.Quad]:
    """The cast's quads and a second day pillar: its day node's triples again under `<cast>/day2`, on 乙丑."""
    day = next(q.object for q in quads if q.predicate.value == ns.LYO + "hasDay")
    cast, graph = next((q.subject, q.graph_name) for q in quads if q.predicate.value == ns.LYO + "hasDay")
    day2 = ox.NamedNode(day.value + "2")
    extra = [ox.Quad(cast, ox.NamedNode(ns.LYO + "hasDay"), day2, graph)]
    for q in quads:
        if q.subject == day:
            obj = ox.NamedNode(ns.LYR + "GZ_YiChou") if q.predicate.value == ns.LYO + "stemBranch" else q.object
            extra.append(ox.Quad(day2, q.predicate, obj, graph))
    return quads + extra


def test_a_cast_with_two_days_sends_its_batch_to_the_generic_sql_and_derives_the_reference(engines):
    ref, col = engines
    casts = [cast_quads(make_cast_input(v, month=m, day=d, topic=t)) for v, m, d, t in sample_casts(3, seed=8)]
    quads = _with_second_day(casts[0]) + [q for c in casts[1:] for q in c]
    got = sorted(map(str, col.derive(quads)))
    assert col._wide_usable == set()
    assert got == sorted(map(str, ref.derive(quads)))
