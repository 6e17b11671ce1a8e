"""One place builds the engine: every store, and the batch loader's worker processes, get it from derivation."""
from __future__ import annotations

import pytest

from liuyao_kg.load.pipeline import load_file
from liuyao_kg.reasoner.engines import build_engine
from liuyao_kg.reasoner.engine import Engine
from liuyao_kg.reasoner.native import NativeEngine
from liuyao_kg.store import open_store
from liuyao_kg.load import derive_with, engine_for


def test_a_partition_derives_with_the_engine_of_the_rules_and_backend_it_is_given():
    """What a worker process runs builds its engine from what it is sent (reasoner.engines.engine)."""
    from liuyao_kg.load.partition import derive_partition
    from liuyao_kg.loaders.cast_input import make_cast_input
    from liuyao_kg.reasoner.engines import RuleSource, engine

    ci = make_cast_input("787986", month="子", day="甲子", topic="求財")
    out = derive_partition([("c0", ci, 1)], 0, rules=RuleSource(False), backend="oxigraph")
    assert out["loaded"] == ["c0"] and out["inferred"] > 0
    built = engine(RuleSource(False), "oxigraph")
    assert isinstance(built, Engine) and not any(r.chapter for r in built.rules.values())


def test_the_loader_hands_the_stores_settings_to_its_workers(monkeypatch, tmp_path):
    from liuyao_kg.load import workers

    seen = {}

    def submit(self, fn, *args, **kwargs):  # records what the loader sends its worker processes
        seen.update(kwargs)
        raise RuntimeError("stop here")

    monkeypatch.setattr(workers.Processes, "submit", submit)
    path = tmp_path / "casts.jsonl"
    path.write_text("".join(f'{{"id": "c{i}", "spec": "787986", "month": "子", "day": "{d}"}}\n'
                            for i, d in enumerate(["甲子", "乙丑", "丙寅", "丁卯"])), encoding="utf-8")
    kg = derive_with(open_store("memory"), backend="oxigraph", chapter_rules=False)
    with pytest.raises(RuntimeError, match="stop here"):
        load_file(path, kg, workers=2, partition=2)
    assert seen["backend"] == "oxigraph" and seen["rules"].key == (False, "package")


def test_every_adapter_takes_its_engine_from_derivation():
    assert isinstance(engine_for(open_store("memory")), NativeEngine)
    assert isinstance(engine_for(derive_with(open_store("memory"), backend="oxigraph")), Engine)
    with pytest.raises(ValueError, match="unknown backend"):
        build_engine(backend="jena")


def test_a_rule_base_that_differs_from_the_compiled_one_derives_on_the_reference():
    """The compiled module answers for the package's rules only: a changed rule base falls back, unannounced."""
    import pyoxigraph as ox

    from liuyao_kg import namespaces as ns
    from liuyao_kg.ontology import layer_quads

    layers = layer_quads((ns.GRAPH_ONTOLOGY, ns.GRAPH_REFERENCE, ns.GRAPH_RULES))
    first = next(q for q in layers[ns.GRAPH_RULES] if q.predicate.value == ns.LYO + "sparqlConstruct")
    changed = ox.Quad(first.subject, first.predicate, ox.Literal(first.object.value + "\n"), first.graph_name)
    layers[ns.GRAPH_RULES] = [changed if q == first else q for q in layers[ns.GRAPH_RULES]]
    assert isinstance(build_engine(layers), Engine)
    assert isinstance(build_engine(), NativeEngine)


def test_a_stores_layers_are_the_packages_whatever_their_blank_nodes_are_called():
    """A store written by another process holds the ontology's blank nodes under other ids: it still derives with the
    package's rules (so a load's worker processes can build them), and a changed rule still makes its own source."""
    import pyoxigraph as ox

    from liuyao_kg import namespaces as ns
    from liuyao_kg.ontology import layer_quads
    from liuyao_kg.reasoner.engines import RuleSource

    layers = layer_quads(RuleSource.GRAPHS)
    renamed = {}

    def fresh(term):
        return renamed.setdefault(term.value, ox.BlankNode()) if isinstance(term, ox.BlankNode) else term

    elsewhere = {g: [ox.Quad(fresh(q.subject), q.predicate, fresh(q.object), q.graph_name) for q in quads]
                 for g, quads in layers.items()}
    assert renamed and RuleSource.of_layers(elsewhere).layers is None
    rules = elsewhere[ns.GRAPH_RULES]
    elsewhere[ns.GRAPH_RULES] = rules[1:]
    assert RuleSource.of_layers(elsewhere).layers is not None
