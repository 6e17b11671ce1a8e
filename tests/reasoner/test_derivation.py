"""One place builds the engine: every store, and the batch loader's worker processes, get it from derivation."""
from __future__ import annotations

import pytest

from liuyao_kg.load import batch
from liuyao_kg.reasoner.engines import build_engine
from liuyao_kg.reasoner.engine import Engine
from liuyao_kg.reasoner.native import NativeEngine
from liuyao_kg.store import open_store
from liuyao_kg.load import derive_with, engine_for


def test_a_worker_process_builds_the_engine_of_the_backend_it_is_given():
    batch._init_worker(False, "oxigraph")
    try:
        assert isinstance(batch._ENGINE, Engine)
        assert not any(r.chapter for r in batch._ENGINE.rules.values())
    finally:
        batch._ENGINE = None


def test_the_loader_hands_the_stores_backend_to_its_workers(monkeypatch, tmp_path):
    seen = {}

    class Pool:  # records what the loader would start its workers with
        def __init__(self, *, initializer, initargs, **kw):
            seen["initargs"] = initargs
            raise RuntimeError("stop here")

    monkeypatch.setattr(batch, "ProcessPoolExecutor", Pool)
    path = tmp_path / "casts.jsonl"
    path.write_text("".join(f'{{"id": "c{i}", "spec": "787986", "month": "子", "day": "{d}"}}\n'
                            for i, d in enumerate(["甲子", "乙丑", "丙寅", "丁卯"])), encoding="utf-8")
    kg = derive_with(open_store("memory"), backend="oxigraph", chapter_rules=False)
    with pytest.raises(RuntimeError, match="stop here"):
        batch.load_file(kg, path, jobs=2, chunk=2)
    assert seen["initargs"] == (False, "oxigraph")


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
