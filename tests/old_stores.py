"""Stores written by an older rule base, for the upgrade tests (tests/load/test_upgrade*.py): the casts' quads, a graph's
quads, an on-disk store whose rules lack MonthBroken, and each cast's inferred graph as this package derives it."""
from __future__ import annotations

import pyoxigraph as ox

from liuyao_kg import namespaces as ns
from liuyao_kg.store.embedded import KnowledgeGraph
from liuyao_kg.loaders import make_cast_input
from liuyao_kg.loaders.rdf import cast_quads
from liuyao_kg.namespaces import inferred_graph
from liuyao_kg.store.versioning import record
from liuyao_kg.load import add_casts, derive_with

#: the rule the old rule base lacks
RULE = ns.LYRULE + "MonthBroken"


def asserted(casts: list[dict]) -> list[ox.Quad]:
    return [q for c in casts for q in cast_quads(make_cast_input(**c))]


def graph(store, g: str) -> set[ox.Quad]:
    return set(store.quads_for_pattern(None, None, None, ox.NamedNode(g)))


def fresh_inferred(casts: list[dict]) -> dict[str, set[ox.Quad]]:
    """Each cast's inferred graph as a fresh in-memory store with this package's rules derives it."""
    kg = derive_with(KnowledgeGraph(), backend="oxigraph")  # the reference: what a fresh store's engine must equal
    iris = add_casts(kg, asserted(casts))
    return {c: graph(kg.store, inferred_graph(c)) for c in iris}


def old_store(path, casts: list[dict]) -> tuple[list[str], dict[str, set[ox.Quad]]]:
    """A store whose rules lack RULE, its casts derived by that rule base, recorded as version sha256:old; returns
    the cast IRIs and each one's asserted graph."""
    kg = KnowledgeGraph(path)
    kg.store.update(f"DELETE WHERE {{ GRAPH <{ns.GRAPH_RULES}> {{ <{RULE}> ?p ?o }} }}")
    kg.__dict__.pop("engine", None)
    iris = add_casts(kg, asserted(casts))
    record(kg.store, ns.GRAPH_RULES, "sha256:old")
    by_cast = {c: graph(kg.store, c) for c in iris}
    kg.close()
    return iris, by_cast
