"""Deriving casts together (one engine call) must give exactly what deriving them one by one gives.

Found by the benchmark's cross-stack digests: `RescueWay4`/`RescueWay5` once wrote
`{ BIND(?f AS ?g) } UNION { … }`; inside its own group ?f is unbound, so ?g matched any node with an
element — reference branches, 納音 and, in a batch, the lines of *other casts*.
"""
from __future__ import annotations

from liuyao_kg.store.embedded import KnowledgeGraph
from liuyao_kg.loaders.cast_input import make_cast_input
from liuyao_kg.loaders.rdf import cast_quads
from liuyao_kg.load import derive_with, engine_for
from samples import sample_casts


def test_batch_derivation_equals_one_cast_at_a_time():
    engine = engine_for(derive_with(KnowledgeGraph(), chapter_rules=False))
    inputs = [cast_quads(make_cast_input(v, month=m, day=d, topic=t)) for v, m, d, t in sample_casts(60, seed=3)]
    single = {q for c in inputs for q in engine.derive(c)}
    batch = set(engine.derive([q for c in inputs for q in c]))
    assert batch == single, sorted(map(str, batch ^ single))[:5]


def test_rescue_way_4_names_only_nodes_of_its_own_cast():
    """Even one cast at a time the rescuer can be a reference individual (a branch, a 納音 …)."""
    engine = engine_for(derive_with(KnowledgeGraph(), chapter_rules=False))
    bad = []
    for v, m, d, t in sample_casts(60, seed=3):
        quads = cast_quads(make_cast_input(v, month=m, day=d, topic=t))
        cast = quads[0].graph_name.value
        bad += [str(q) for q in engine.derive(quads)
                if q.predicate.value.endswith("#rescuer") and not q.object.value.startswith(cast)]
    assert bad == []
