"""`liuyao upgrade --store PATH`: bring an on-disk store written by an older rule base up to date.

1. Every outdated layer graph (see :mod:`liuyao_kg.store.versioning`) is replaced by the package's: the
   quads that differ are removed and added (the graph is never empty, so a store interrupted here is
   still whole and still reported outdated).
2. Every cast's ``<cast>/inferred`` graph is derived again from its asserted ``<cast>`` graph, which
   is only read — casts are never reloaded from their input. They are derived a partition at a time, as
   ``liuyao load`` derives them (liuyao_kg.load.partition.derive_asserted, with the rules the store now holds),
   into an N-Quads file read back a cast at a time; each cast's graph is changed by one update deleting and
   inserting only what differs (``KnowledgeGraph.replace_inferred``), so a cast is wholly old or wholly new.
3. Only then are the new layer versions recorded in ``…/graph/meta``. An interrupted upgrade leaves
   the store outdated, and running it again finishes it (every step is idempotent).
"""
from __future__ import annotations

import os
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import pyoxigraph as ox

from liuyao_kg import namespaces as ns
from liuyao_kg.load import forget_engine, rules_of, settings
from liuyao_kg.load.partition import derive_asserted
from liuyao_kg.reasoner.engines import REGISTRY, engine
from liuyao_kg.store import versioning

_CASTS = f"SELECT ?c WHERE {{ GRAPH ?c {{ ?c a <{ns.LYO}Cast> }} }} ORDER BY ?c"


def cast_iris(store: ox.Store) -> list[str]:
    """Every cast in the store: the named graphs that describe a lyo:Cast of their own name."""
    return [row["c"].value for row in store.query(_CASTS)]


def _rederive(kg, casts: list[str], partition: int, report: dict, on_progress) -> None:
    """Derive the casts again a partition at a time, with the rules the store now holds; each cast's inferred graph
    rewritten from the N-Quads file a partition writes (replace_inferred)."""
    directory = tempfile.mkdtemp(prefix="liuyao-upgrade-")
    derive = engine(rules_of(kg), settings(kg)[1])
    try:
        for part, i in enumerate(range(0, len(casts), partition)):
            chunk = casts[i:i + partition]
            asserted = [list(kg.store.quads_for_pattern(None, None, None, ox.NamedNode(c))) for c in chunk]
            derived = derive_asserted(derive, asserted, part, nquads=directory, asserted=False)
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


def upgrade_graph(kg, *, force: bool = False, on_progress: Callable[[int, int], None] | None = None,
                  partition: int | None = None) -> dict:
    """Upgrade an open KnowledgeGraph in place (see the module docstring). `force` re-derives even if current.
    `partition`: casts derived at a time (default: the engine's batch, reasoner.engines.REGISTRY)."""
    from liuyao_kg.ontology import layer_quads

    if partition is not None and partition < 1:
        raise ValueError(f"partition={partition}: a number of casts ≥ 1")
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
    report["changed"] = 0  # casts whose inferred graph differs now (the others are not written)
    if casts:
        _rederive(kg, casts, partition or REGISTRY[settings(kg)[1]].batch, report, on_progress)
    for graph in outdated:
        versioning.record(kg.store, graph)
    kg.outdated = versioning.outdated_layers(kg.store)
    if kg.path is not None:
        kg.store.flush()
    report["seconds"] = round(time.perf_counter() - t0, 3)
    return report


def upgrade(path: str | Path, *, force: bool = False, on_progress: Callable[[int, int], None] | None = None,
            partition: int | None = None) -> dict:
    """Open the on-disk store at `path`, upgrade it, close it; return a report."""
    from liuyao_kg.store.embedded import KnowledgeGraph

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", versioning.OutdatedStoreWarning)
        kg = KnowledgeGraph(path)
    try:
        return upgrade_graph(kg, force=force, on_progress=on_progress, partition=partition)
    finally:
        kg.close()
