"""The in-memory store holds a bounded number of casts (`KnowledgeGraph(keep_casts=N)`, the default graph's
`KEEP_CASTS`): a process that casts without end stays bounded, and a dropped cast cast again is derived again."""
from __future__ import annotations

import pyoxigraph as ox
import pytest

import liuyao_kg
from liuyao_kg.graph import KnowledgeGraph
from liuyao_kg.reasoner.engine import inferred_graph

A = ("節之中孚", "寅", "辛亥")
B = ("797986", "卯", "甲子")
C = ("乾之姤", "午", "丙寅")


def _cast(kg, spec):
    return liuyao_kg.cast(spec[0], month=spec[1], day=spec[2], topic="求財", kg=kg)


def _quads_of(kg, iri: str) -> int:
    return sum(1 for g in (iri, inferred_graph(iri)) for _ in kg._ox.quads_for_pattern(None, None, None, ox.NamedNode(g)))


def test_the_least_recently_cast_is_dropped_with_both_its_graphs():
    kg = KnowledgeGraph(keep_casts=2)
    a, b, c = (_cast(kg, s)["cast"] for s in (A, B, C))
    assert [kg.has_cast(i) for i in (a, b, c)] == [False, True, True]
    assert _quads_of(kg, a) == 0 and _quads_of(kg, b) > 0 and _quads_of(kg, c) > 0


def test_a_cast_cast_again_goes_last():
    kg = KnowledgeGraph(keep_casts=2)
    a, b = _cast(kg, A)["cast"], _cast(kg, B)["cast"]
    _cast(kg, A)
    c = _cast(kg, C)["cast"]
    assert [kg.has_cast(i) for i in (a, b, c)] == [True, False, True]


def test_a_dropped_cast_cast_again_reads_as_before():
    kg = KnowledgeGraph(keep_casts=1)
    first = _cast(kg, A)
    quads = _quads_of(kg, first["cast"])
    _cast(kg, B)
    assert not kg.has_cast(first["cast"])
    assert _cast(kg, A) == first and _quads_of(kg, first["cast"]) == quads


def test_the_default_graph_keeps_the_most_recent_casts_and_a_store_on_disk_all(tmp_path):
    assert liuyao_kg.default_graph().keep_casts == liuyao_kg.KEEP_CASTS
    assert KnowledgeGraph().keep_casts is None
    with pytest.raises(ValueError, match="store on disk keeps every cast"):
        KnowledgeGraph(tmp_path / "store", keep_casts=10)


@pytest.mark.parametrize("bad", [0, -1, 2.5, "10", True])
def test_a_bound_that_is_not_a_whole_number_of_casts_is_refused(bad):
    with pytest.raises(ValueError, match="keep_casts must be a whole number"):
        KnowledgeGraph(keep_casts=bad)
