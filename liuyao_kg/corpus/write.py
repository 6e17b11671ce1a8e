"""Writing an edition's graph to a store — embedded (pyoxigraph) or a SPARQL endpoint — through the store interface.

An edition graph is written whole or not at all, as far as the store gives it:

* embedded: a new graph is one `extend` (one transaction); a replaced one is one SPARQL update, DROP then
  INSERT DATA, which pyoxigraph applies as one transaction;
* an endpoint (`RemoteKnowledgeGraph`): ONE update request, `DROP SILENT GRAPH <g> ; INSERT DATA { GRAPH <g>
  { … } }` (the triples in blocks of `remote.BLOCK`, as the casts are written). A request that does not arrive
  whole (a cut connection) does not parse, and a request that does not parse changes nothing. A store that
  applies a request as one transaction (pyoxigraph behind `liuyao serve --allow-update`, Fuseki) keeps the old
  graph when the INSERT fails; Virtuoso applies the operations one by one, so an INSERT that fails *at run
  time* after the DROP leaves the edition's graph absent (never half-written: one INSERT DATA operation is
  refused whole, docs/remote-stores.md) — the next `corpus add` finds no graph and writes it.

What was recorded (the file's checksum and what the graph was computed from) is read with a SELECT, the same
on both stores, so an unchanged edition writes nothing on either.
"""
from __future__ import annotations

import pyoxigraph as ox

from liuyao_kg import namespaces as ns

_RECORDED = ns.sparql_prologue() + """SELECT ?g ?sha ?version WHERE {
  GRAPH ?g { ?edition a lyo:Edition ; lyo:sha256 ?sha . OPTIONAL { ?edition owl:versionInfo ?version } } }"""


def recorded(kg, graph: str) -> tuple[str | None, str | None]:
    """(sha256, owl:versionInfo) the edition graph records, or (None, None) when the store has no such graph."""
    rows = kg.select(_RECORDED, {"g": ox.NamedNode(graph)})
    return (rows[0]["sha"], rows[0]["version"]) if rows else (None, None)


def passages_version(kg) -> str | None:
    """The version of the passages layer the store records (None if it records none)."""
    return kg.layer_versions().get(ns.GRAPH_PASSAGES)


def replace_request(graph: str, quads: list[ox.Quad]) -> str:
    """One update request: drop the graph (if any), then insert its new triples."""
    from liuyao_kg.store.remote import insert_data

    return f"DROP SILENT GRAPH {ox.NamedNode(graph)} ;\n" + insert_data({graph: quads})


def write_graph(kg, graph: str, quads: list[ox.Quad], *, new: bool) -> None:
    """Write the edition graph: into a new graph, or replacing the one the store has."""
    if "remote" in kg.capabilities:  # an endpoint: one request either way
        kg.update(replace_request(graph, quads))
        return
    if new:
        kg.store.extend(quads)
    else:
        kg.update(replace_request(graph, quads))
    if "disk" in kg.capabilities:
        kg.store.flush()


def update(kg, text: str) -> None:
    """One SPARQL update (review statuses) on either store, flushed to disk on an embedded one."""
    kg.update(text)
    if "disk" in kg.capabilities:
        kg.store.flush()
