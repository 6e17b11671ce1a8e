"""`liuyao upgrade --store PATH`: bring an on-disk store written by an older rule base up to date.

1. Every outdated layer graph (see :mod:`liuyao_kg.store.versioning`) is replaced by the package's: the
   quads that differ are removed and added (the graph is never empty, so a store interrupted here is
   still whole and still reported outdated).
2. Every cast's ``<cast>/inferred`` graph is derived again from its asserted ``<cast>`` graph, which
   is only read — casts are never reloaded from their input. A small store's casts are derived in batches by
   the store's engine and each cast's inferred graph is replaced by one SPARQL update (``DROP`` + ``INSERT
   DATA``). In partitions (the default from ``batch.PARTITIONED_FROM`` casts, as for `liuyao load`), casts are
   derived into an N-Quads file, read back a cast at a time, and each cast's graph is changed by one update
   deleting and inserting only what differs (``KnowledgeGraph.replace_inferred``). Either way a cast is wholly
   old or wholly new.
3. Only then are the new layer versions recorded in ``…/graph/meta``. An interrupted upgrade leaves
   the store outdated, and running it again finishes it (every step is idempotent).
"""
from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from pathlib import Path

import pyoxigraph as ox

from liuyao_kg import namespaces as ns
from liuyao_kg.load import engine_for, forget_engine, settings
from liuyao_kg.namespaces import inferred_graph
from liuyao_kg.reasoner.engines import derive_quads
from liuyao_kg.store import versioning

BATCH = 200

_CASTS = f"SELECT ?c WHERE {{ GRAPH ?c {{ ?c a <{ns.LYO}Cast> }} }} ORDER BY ?c"


def cast_iris(store: ox.Store) -> list[str]:
    """Every cast in the store: the named graphs that describe a lyo:Cast of their own name."""
    return [row["c"].value for row in store.query(_CASTS)]


def _rederive(kg, casts: list[str]) -> int:
    """Derive a batch of casts again; replace each one's inferred graph atomically. Returns quads written."""
    asserted = [q for c in casts for q in kg.store.quads_for_pattern(None, None, None, ox.NamedNode(c))]
    by_graph: dict[str, list[str]] = {inferred_graph(c): [] for c in casts}
    for q in derive_quads(engine_for(kg), asserted):
        by_graph[q.graph_name.value].append(str(q.triple))
    for graph, triples in by_graph.items():
        insert = f" ; INSERT DATA {{ GRAPH <{graph}> {{ {' . '.join(triples)} }} }}" if triples else ""
        kg.store.update(f"DROP SILENT GRAPH <{graph}>{insert}")
    return sum(len(t) for t in by_graph.values())


def _rederive_partitioned(kg, casts: list[str], partition: int, report: dict, on_progress) -> None:
    """Derive the casts again a partition at a time, with the rules the store now holds; each cast's inferred graph
    rewritten from the N-Quads file a partition writes, a cast's quads together (replace_inferred)."""
    import os
    import shutil
    import tempfile

    from liuyao_kg.load.partitions import _derive_partition
    from liuyao_kg.reasoner.engines import RuleSource, engine as engine_of

    engine = engine_of(RuleSource.of_layers(kg.layers(), settings(kg)[0]))
    directory = tempfile.mkdtemp(prefix="liuyao-upgrade-")
    try:
        for part, i in enumerate(range(0, len(casts), partition)):
            chunk = casts[i:i + partition]
            asserted = [list(kg.store.quads_for_pattern(None, None, None, ox.NamedNode(c))) for c in chunk]
            derived = _derive_partition(engine, asserted, None, part, nquads=directory)
            try:
                report["changed"] += kg.replace_inferred(Path(derived["nquads"]), chunk)
            finally:
                os.unlink(derived["nquads"])
            report["inferred_quads"] += derived["inferred"]
            report["casts"] += len(chunk)
            if on_progress is not None:
                on_progress(report["casts"], len(casts))
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def upgrade_graph(kg, *, batch: int = BATCH, force: bool = False,
                  on_progress: Callable[[int, int], None] | None = None, partitioned: bool | None = None,
                  partition: int | None = None) -> dict:
    """Upgrade an open KnowledgeGraph in place (see the module docstring). `force` re-derives even if current.
    `partitioned`: derive in partitions (None: for an embedded store of PARTITIONED_FROM casts or more), `partition`
    casts at a time (default partitions.BATCH); else with the store's engine, `batch` at a time."""
    from liuyao_kg.load.batch import PARTITIONED_FROM, partitionable
    from liuyao_kg.ontology import layer_quads

    if partitioned and not partitionable(kg):  # refused before anything is written
        raise ValueError(f"partitions upgrade an embedded store deriving with the default engine, not "
                         f"{kg.location}")
    t0 = time.perf_counter()
    outdated = dict(kg.outdated)
    report = {"store": str(kg.path) if kg.path is not None else None,
              "layers": {g.rsplit("/", 1)[1]: {"from": old, "to": new} for g, (old, new) in outdated.items()},
              "casts": 0, "inferred_quads": 0}
    if not outdated and not force:
        report["seconds"] = round(time.perf_counter() - t0, 3)
        return report
    layers = layer_quads()
    for graph in outdated:
        removed, added = versioning.replace_layer(kg.store, graph, layers[graph])
        report["layers"][graph.rsplit("/", 1)[1]].update(removed=removed, added=added)
    forget_engine(kg)  # the engine reads the (new) rules from the store
    casts = cast_iris(kg.store)
    if partitioned is None:
        partitioned = partitionable(kg) and len(casts) >= PARTITIONED_FROM
    report["partitioned"] = bool(partitioned)
    if partitioned:
        from liuyao_kg.load.partitions import BATCH as PARTITION

        report["changed"] = 0  # casts whose inferred graph differs now (the others are not written)
        if casts:
            _rederive_partitioned(kg, casts, partition or PARTITION, report, on_progress)
    else:
        for i in range(0, len(casts), batch):
            report["inferred_quads"] += _rederive(kg, casts[i:i + batch])
            report["casts"] += len(casts[i:i + batch])
            if kg.path is not None:
                kg.store.flush()  # bounded memory: write the memtables out after each batch
            if on_progress is not None:
                on_progress(report["casts"], len(casts))
    for graph in outdated:
        versioning.record(kg.store, graph)
    kg.outdated = versioning.outdated_layers(kg.store)
    if kg.path is not None:
        kg.store.flush()
    report["seconds"] = round(time.perf_counter() - t0, 3)
    return report


def upgrade(path: str | Path, *, batch: int = BATCH, force: bool = False,
            on_progress: Callable[[int, int], None] | None = None, partitioned: bool | None = None,
            partition: int | None = None) -> dict:
    """Open the on-disk store at `path`, upgrade it, close it; return a report."""
    from liuyao_kg.store.embedded import KnowledgeGraph

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", versioning.OutdatedStoreWarning)
        kg = KnowledgeGraph(path)
    try:
        return upgrade_graph(kg, batch=batch, force=force, on_progress=on_progress, partitioned=partitioned,
                             partition=partition)
    finally:
        kg.close()
