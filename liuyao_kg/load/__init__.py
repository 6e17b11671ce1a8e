"""Where an engine meets a store: casts derived by an engine (liuyao_kg.reasoner.engines) and written into a store
(liuyao_kg.store), for one cast (`add_casts`, what `liuyao_kg.cast` and `liuyao cast` use) or a file of them
(`pipeline.load_file`: in partitions, into a store, Parquet or both, by this process, worker processes or a Dask
cluster), and `upgrade`, which derives a store's casts again.

A store only reads and writes quads. Which engine derives the casts written into it is said here (`derive_with`:
the chapter rules or not, the backend) and kept beside the store, for as long as the store lives: the engine of a
store holding the package's layers untouched is the process's own (`reasoner.engines.engine`); a store whose
layers are its own derives with an engine built from the rules it holds.
"""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

import pyoxigraph as ox

from liuyao_kg.reasoner.engines import DEFAULT_BACKEND, RuleSource, build_engine, check_backend, derive_quads, engine

if TYPE_CHECKING:
    from liuyao_kg.store import CastStore

#: {store: (chapter_rules, backend, its engine once built)}
_WITH: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def derive_with(store: CastStore, *, chapter_rules: bool = True, backend: str = DEFAULT_BACKEND):
    """Say how casts written into `store` are derived from now on: with the chapter rules (judgments) or the chart
    states only, and which engine (`backend`, a name of reasoner.engines.REGISTRY). Returns the store."""
    _WITH[store] = (chapter_rules, check_backend(backend), None)
    return store


def settings(store: CastStore) -> tuple[bool, str]:
    """(chapter_rules, backend) casts written into `store` are derived with (`derive_with`; default: both the
    package's defaults)."""
    chapter_rules, backend, _ = _WITH.get(store, (True, DEFAULT_BACKEND, None))
    return chapter_rules, backend


def engine_for(store: CastStore):
    """The engine casts written into `store` are derived with (built once per store and settings): the process's
    own for the package's layers (a store with the `packaged` capability), else one built from the rules the store
    holds, read in place."""
    chapter_rules, backend, built = _WITH.get(store, (True, DEFAULT_BACKEND, None))
    if built is None:
        if "packaged" in store.capabilities:
            built = engine(RuleSource(chapter_rules), backend)
        else:
            built = build_engine(store=store.layer_store(), chapter_rules=chapter_rules, backend=backend)
        _WITH[store] = (chapter_rules, backend, built)
    return built


def rules_of(store: CastStore) -> RuleSource:
    """The rules casts written into `store` are derived with, as a source any worker builds its engine from: the
    package's for a store holding the package's layers untouched (the `packaged` capability), else the rules the
    store holds (which derive only in this process)."""
    chapter_rules = settings(store)[0]
    if "packaged" in store.capabilities:
        return RuleSource(chapter_rules)
    layers = store.layer_store()
    return RuleSource.of_layers({g: list(layers.quads_for_pattern(None, None, None, ox.NamedNode(g)))
                                 for g in RuleSource.GRAPHS}, chapter_rules)


def forget_engine(store: CastStore) -> None:
    """Build the store's engine again at its next cast: its rules have changed (`upgrade`)."""
    if store in _WITH:
        chapter_rules, backend, _ = _WITH[store]
        _WITH[store] = (chapter_rules, backend, None)


def add_casts(store: CastStore, asserted: list[ox.Quad], engine=None) -> list[str]:
    """Derive and write casts given as asserted quads (one named graph each), with `engine` (default: the store's,
    `engine_for`); casts the store holds already are skipped. Returns the casts' IRIs, in order. Each cast is
    written completely or not at all (the store's `write_cast`)."""
    by_cast: dict[str, list[ox.Quad]] = {}
    for q in asserted:
        by_cast.setdefault(q.graph_name.value, []).append(q)
    known = store.present(by_cast)
    fresh = [q for iri, qs in by_cast.items() if iri not in known for q in qs]
    if fresh:
        store.write_cast(fresh, derive_quads(engine or engine_for(store), fresh))
    return list(by_cast)


__all__ = ["add_casts", "derive_with", "engine_for", "forget_engine", "rules_of", "settings"]
