"""The columnar back end against pyoxigraph on every 64×64 primary/changed pair and on a seeded sample.

Per cast the sorted N-Quads must be equal (marker `columnar_full`: minutes on 2 cores). The reference
derives in chunks of 50 (as `liuyao load` does); the columnar engine in batches of COLUMNAR_BATCH, the
size `liuyao load --parquet` uses (parquet_load.BATCH), on SAMPLE seeded casts: the 10,000 the issue asks
for (docs/columnar.md).
"""
from __future__ import annotations

import hashlib
import random

import pyoxigraph as ox
import pytest

from liuyao_kg import namespaces as ns
from liuyao_kg import parquet_load
from liuyao_kg.graph import layer_quads
from liuyao_kg.loaders.cast_input import make_cast_input
from liuyao_kg.loaders.rdf import cast_quads
from liuyao_kg.ontology import tables as T
from liuyao_kg.reasoner.columnar.engine import ColumnarEngine
from liuyao_kg.reasoner.columnar.wide import chapter_conditions
from liuyao_kg.reasoner.engine import Engine, load_rules
from samples import BRANCHES, JIAZI

pytestmark = pytest.mark.columnar_full
TOPICS = [q[0] for q in T.QUESTIONS]
COLUMNAR_BATCH = parquet_load.BATCH
SAMPLE = 10_000


@pytest.fixture(scope="module")
def engines():
    layers = layer_quads()
    store = ox.Store()
    store.extend(layers[ns.GRAPH_RULES])
    rules = load_rules(store, ns.GRAPH_RULES)
    reference = layers[ns.GRAPH_ONTOLOGY] + layers[ns.GRAPH_REFERENCE]
    # as `liuyao load --parquet` derives: the chapter rules compiled from their conditions (wide.py)
    col = ColumnarEngine(rules, reference, conditions=chapter_conditions(layers[ns.GRAPH_RULES]))
    yield Engine(rules, reference), col
    col.close()


def digests(quads) -> dict[str, str]:
    per: dict[str, list[str]] = {}
    for q in quads:
        per.setdefault(q.graph_name.value, []).append(str(q))
    return {g: hashlib.sha256("\n".join(sorted(v)).encode()).hexdigest() for g, v in per.items()}


def compare(engines, inputs) -> None:
    ref, col = engines
    asserted = [cast_quads(ci) for ci in inputs]
    expected, got = {}, {}
    for i in range(0, len(asserted), 50):
        expected.update(digests(ref.derive([q for c in asserted[i:i + 50] for q in c])))
    for i in range(0, len(asserted), COLUMNAR_BATCH):
        got.update(digests(col.derive([q for c in asserted[i:i + COLUMNAR_BATCH] for q in c])))
    bad = sorted(g for g in expected.keys() | got.keys() if expected.get(g) != got.get(g))
    assert bad == [], f"{len(bad)} of {len(expected)} casts differ, e.g. {bad[:3]}"


def test_all_64x64_primary_changed_pairs_derive_identically(engines):
    rnd = random.Random(64)
    lines = []
    for p in range(64):
        for c in range(64):
            # bit k of p / c: yang (1) or yin (0) at position k+1; moving where they differ
            values = "".join(("9" if (p >> k) & 1 else "6") if ((p ^ c) >> k) & 1 else ("7" if (p >> k) & 1 else "8")
                             for k in range(6))
            lines.append(values)
    inputs = [make_cast_input(v, month=rnd.choice(BRANCHES), day=rnd.choice(JIAZI), topic=TOPICS[i % len(TOPICS)])
              for i, v in enumerate(lines)]
    compare(engines, inputs)


def test_a_seeded_sample_of_casts_derives_identically(engines):
    rnd = random.Random(10_000)
    inputs = []
    for i in range(SAMPLE):
        kw = {"year": rnd.choice(JIAZI)} if i % 3 == 0 else {}
        if i % 7 == 0:
            kw["birth"] = rnd.choice(BRANCHES)
        inputs.append(make_cast_input("".join(rnd.choice("6789") for _ in range(6)), month=rnd.choice(BRANCHES),
                                      day=rnd.choice(JIAZI), topic=TOPICS[i % len(TOPICS)], **kw))
    compare(engines, inputs)
