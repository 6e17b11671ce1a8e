"""Loading a batch file into a knowledge graph, with a per-cast report.

The file is read twice, lazily (JSON Lines and CSV record by record; see loaders.batch.iter_batch):

1. a scan that counts the records (for the progress line) and, with ``on_error="abort"``, validates
   every one, its fields and its asserted graph against the SHACL shapes — if any is bad, :class:`BatchError`
   is raised and nothing is written;
2. the load: good casts not yet in the store are gathered into chunks of ``chunk`` casts, of one topic
   each when chapter rules run (a chapter rule runs only on a chunk holding its topic, so one-topic
   chunks derive faster than mixed ones: benchmarks/bench.py); each chunk is derived (one rule
   evaluation covers the chunk) — in ``jobs`` worker processes, each with its own Engine built from
   the package's layers, or in this process when ``jobs`` is 1 or the file holds a single chunk — and
   this process alone writes each chunk's asserted and inferred quads into the store (on disk with
   RocksDB's bulk loader behind a journal, so a chunk is in completely or not at all:
   KnowledgeGraph.write_derived). At most ``2 × jobs`` chunks are in flight and at most one partly filled chunk
   per topic waits, and the store is flushed after each chunk (RocksDB otherwise keeps the written
   data in its memtables), so memory does not grow with the file.

A cast already in the store, or earlier in the same file (same content), is reported as skipped:
re-running a load writes nothing.

Every cast's asserted graph is validated against ontology/shapes/cast.ttl before it is derived, as
``liuyao_kg.cast`` does, one pySHACL run per chunk (:func:`shape_rejections`); a cast that violates a shape is a
bad record like any other: rejected with the shape named (``on_error="skip"``), or nothing is loaded
(``"abort"``).
"""
from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import TypeVar


from liuyao_kg.load import engine_for, settings
from liuyao_kg.loaders.batch import count_records, iter_numbered_batch
from liuyao_kg.loaders.errors import BatchError, CastInputError
from liuyao_kg.reasoner.engines import DEFAULT_BACKEND, REGISTRY, derive_casts

T = TypeVar("T")

#: casts derived together: the reference engine's chunk (reasoner.engines.REGISTRY), whatever derives a chunked load
CHUNK = REGISTRY["oxigraph"].batch
#: the engine's in-memory working store keeps removed quads as history until it is rebuilt (every
#: Engine.REBUILD_EVERY derivations: a worker's memory grew by hundreds of MB, benchmarks/load.py); a loader
#: rebuilds it every few chunks instead.
REBUILD_EVERY_CHUNKS = 16

#: `load_file(partitioned=None)` derives a file of at least this many records in partitions (load.partitions: each
#: written by one bulk load), a smaller one in chunks of CHUNK (each written by one transaction)
PARTITIONED_FROM = 1_000

_ENGINE = None  # the worker process's own engine


def partitionable(kg) -> bool:
    """Whether a load into `kg` can derive in partitions: an embedded store (its layers read in place; a remote
    endpoint is written one update a cast) deriving with the default engine (a store told to derive with another
    backend was asked for that one)."""
    return "local" in kg.capabilities and settings(kg)[1] == DEFAULT_BACKEND


def _init_worker(chapter_rules: bool, backend: str = DEFAULT_BACKEND) -> None:
    """A worker process's engine: the package's rules (reasoner.engines), as the parent's is."""
    global _ENGINE
    from liuyao_kg.reasoner.engines import RuleSource, engine

    _ENGINE = engine(RuleSource(chapter_rules), backend)
    if hasattr(_ENGINE, "threads"):
        _ENGINE.threads = 1  # the workers already take a core each
    _ENGINE.REBUILD_EVERY = min(getattr(_ENGINE, "REBUILD_EVERY", REBUILD_EVERY_CHUNKS), REBUILD_EVERY_CHUNKS)


def _derive_in_worker(casts) -> bytes:
    return derive_casts(_ENGINE, casts)


def derive_chunk(kg, casts) -> bytes:
    """The derived graphs (N-Quads) of one chunk of casts, in this process, with the store's engine.

    The load's one derivation step, beside the worker path; both go through liuyao_kg.reasoner.engines."""
    engine = engine_for(kg)
    if hasattr(engine, "REBUILD_EVERY"):
        engine.REBUILD_EVERY = min(engine.REBUILD_EVERY, REBUILD_EVERY_CHUNKS)
    return derive_casts(engine, casts)


def _done(value) -> Future:
    f: Future = Future()
    f.set_result(value)
    return f


def chunks_by_topic(items: Iterable[T], size: int, *, topic: Callable[[T], object]) -> Iterator[list[T]]:
    """Chunks of `size` items of one topic each, a chunk as soon as it is full, the partial ones last.

    Holds at most one partial chunk per topic, so memory does not grow with the input.
    """
    open_chunks: dict[object, list[T]] = {}
    for item in items:
        key = topic(item)
        chunk = open_chunks.setdefault(key, [])
        chunk.append(item)
        if len(chunk) >= size:
            yield open_chunks.pop(key)
    yield from open_chunks.values()


def shape_rejections(records, quads: list | None = None) -> dict[str, CastInputError]:
    """{record id: its ShapeViolation} for the records [(id, CastInput, line)] whose asserted graph violates a
    shape of ontology/shapes/cast.ttl: one pySHACL run over the union of the graphs of each CHUNK records
    (liuyao_kg.loaders.shapes.cast_graph_violations), each error naming the record, its line and the shape. `quads`: each
    record's asserted quads, when the caller has them already (else built here)."""
    from liuyao_kg.loaders import rdf
    from liuyao_kg.loaders.shapes import cast_graph_violations, shape_violation

    records = list(records)
    if quads is None:
        quads = [rdf.cast_quads(ci) for _, ci, _ in records]
    found: dict[str, list[dict]] = {}
    for i in range(0, len(records), CHUNK):
        found |= cast_graph_violations(q for qs in quads[i:i + CHUNK] for q in qs)
    out: dict[str, CastInputError] = {}
    for rid, ci, line in records:
        if ci.iri in found:
            out[rid] = err = shape_violation(found[ci.iri])
            err.record_id, err.line = rid, line
    return out


def check_store_writable(kg) -> None:
    """Refuse a load into a store that cannot take it, before anything is derived: one opened read-only, or one
    whose layers another rule base wrote (`liuyao upgrade` first)."""
    from liuyao_kg.store import StoreAccessError
    from liuyao_kg.store.versioning import OutdatedStoreError

    if "read_only" in kg.capabilities:
        raise StoreAccessError(f"store {kg.location} was opened read-only: writes are refused")
    if kg.outdated:
        raise OutdatedStoreError(f"store {kg.path} is outdated (its layers were written by another rule base): "
                                 f"run `liuyao upgrade --store {kg.path}` first")


def shape_violation_of(error: CastInputError, rid: str, line: int) -> CastInputError:
    """`error` (a ShapeViolation) for another record of the same cast."""
    from liuyao_kg.loaders.shapes import ShapeViolation

    other = ShapeViolation(error.message, field=error.field, value=error.value)
    other.record_id, other.line = rid, line
    return other


def scan(path, *, on_error: str = "skip", format: str | None = None, encoding: str | None = None) -> int:
    """Count the records of a batch file; with on_error="abort", raise BatchError if any is bad (its fields, or
    its asserted graph against the SHACL shapes, checked a chunk at a time)."""
    if on_error not in ("skip", "abort"):
        raise ValueError(f"on_error {on_error!r}: must be 'skip' or 'abort'")
    if on_error == "skip":
        return count_records(path, format=format, encoding=encoding)
    total, problems = 0, []
    chunk: dict[str, tuple] = {}  # cast IRI → record: a cast given twice is validated once
    twins: dict[str, list[tuple[str, int]]] = {}

    def check_chunk():
        bad = shape_rejections(chunk.values())
        for iri, (rid, _, _) in chunk.items():
            if rid in bad:
                problems.append(bad[rid])
                problems.extend(shape_violation_of(bad[rid], *twin) for twin in twins.get(iri, ()))
        chunk.clear()
        twins.clear()

    for rid, line, item in iter_numbered_batch(path, format=format, encoding=encoding):
        total += 1
        if isinstance(item, CastInputError):
            problems.append(item)
        else:
            if item.iri in chunk:
                twins.setdefault(item.iri, []).append((rid, line))
            chunk.setdefault(item.iri, (rid, item, line))
            if len(chunk) >= CHUNK:
                check_chunk()
    check_chunk()
    if problems:
        problems.sort(key=lambda p: p.line or 0)
        raise BatchError(f"{Path(path).name}: {len(problems)} of {total} record(s) rejected; nothing loaded", problems)
    return total


def load_file(kg, path, *, on_error: str = "skip", jobs: int | None = 1, chunk: int = CHUNK,
              format: str | None = None, progress=None, stats: dict | None = None, encoding: str | None = None,
              partitioned: bool | None = False, partition: int | None = None) -> dict:
    """Load every good cast of a batch file (see loaders.batch for the error policy).

    Returns {"loaded": [ids], "skipped": [ids already in the store or earlier in the file],
    "rejected": [{id, line, reason}]}. With on_error="abort" a bad record raises BatchError before
    anything is written. `jobs` worker processes derive (None: os.cpu_count()); `progress` is a
    liuyao_kg.progress.Progress (or anything with update(done, total, **counts)); `stats`, if given,
    receives the record count and the number of jobs used. `encoding`: the file's, when it has no BOM
    and is not UTF-8 (a byte it cannot decode rejects that record only).

    `partitioned=True` derives in partitions instead (partitions.load_parquet with a store: `partition` casts each,
    `jobs` at once); None chooses it for an embedded store when the file holds at least PARTITIONED_FROM records
    (`stats["partitioned"]` says which ran). Both write the same quads (tests/load/test_store_load.py).
    """
    total = scan(path, on_error=on_error, format=format, encoding=encoding)
    if partitioned is None:
        partitioned = total >= PARTITIONED_FROM and partitionable(kg)
    if stats is not None:
        stats["partitioned"] = bool(partitioned)
    if partitioned:
        from liuyao_kg.load.partitions import BATCH, default_jobs, load_parquet

        if partition is None:  # a file of fewer than `jobs` full partitions is shared out, so every job derives
            partition = max(1, min(BATCH, -(-total // (jobs or default_jobs()))))
        return load_parquet(path, None, kg=kg, on_error=on_error, batch=partition, jobs=jobs, format=format,
                            progress=progress, stats=stats, encoding=encoding, scanned=total)
    jobs = max(1, jobs or os.cpu_count() or 1)
    jobs = min(jobs, max(1, -(-total // chunk)))  # a worker per chunk at most: small files stay in-process
    report = {"loaded": [], "skipped": [], "rejected": []}
    if stats is not None:
        stats.update(records=total, jobs=jobs)
    done = 0

    def tick():
        if progress is not None:
            progress.update(done, total, loaded=len(report["loaded"]), skipped=len(report["skipped"]),
                            rejected=len(report["rejected"]))

    pool = None
    in_flight: deque[tuple[Future, list[tuple[str, object, int]]]] = deque()
    pending: set[str] = set()  # cast IRIs derived but not yet written: duplicates of these are skipped too
    twins: dict[str, list[tuple[str, int]]] = {}  # pending cast IRI → its duplicates' (id, line), skipped

    def submit(items):
        nonlocal pool, done
        check_store_writable(kg)
        bad = shape_rejections(items)  # SHACL, before the chunk is derived or stored
        if bad:
            if on_error == "abort":  # the scan found none: the file changed since
                raise BatchError(f"{Path(path).name}: {len(bad)} record(s) rejected; the file changed while loading",
                                 list(bad.values()))
            for rid, ci, line in items:
                if rid in bad:
                    report["rejected"].append({"id": rid, "line": line, "reason": str(bad[rid])})
                    pending.discard(ci.iri)
                    done += 1
                    for twin, twin_line in twins.pop(ci.iri, []):  # the same content: the same violation
                        report["skipped"].remove(twin)
                        err = shape_violation_of(bad[rid], twin, twin_line)
                        report["rejected"].append({"id": twin, "line": twin_line, "reason": str(err)})
            tick()
            items = [item for item in items if item[0] not in bad]
            if not items:
                return
        casts = [ci for _, ci, _ in items]
        if jobs == 1:
            in_flight.append((_done(derive_chunk(kg, casts)), items))
            return
        if pool is None:  # started at the first chunk to derive: a re-run that writes nothing starts none
            import multiprocessing

            pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                                       initializer=_init_worker, initargs=settings(kg))
        in_flight.append((pool.submit(_derive_in_worker, casts), items))

    def write_oldest():
        nonlocal done
        future, items = in_flight.popleft()
        # embedded: one chunk, journaled so it is all or nothing; remote: one update per cast
        kg.write_derived(future.result(), casts=[ci.iri for _, ci, _ in items])
        for rid, ci, _ in items:
            report["loaded"].append(rid)
            pending.discard(ci.iri)
            twins.pop(ci.iri, None)
        done += len(items)
        tick()

    order: dict[str, int] = {}  # record id → position in the file, to report loads in file order

    def good():
        """The records to derive, in file order; rejections and duplicates go to the report."""
        nonlocal done
        for rid, line, item in iter_numbered_batch(path, format=format, encoding=encoding):
            if isinstance(item, CastInputError):
                if on_error == "abort":  # the file changed since the scan
                    raise BatchError(f"{Path(path).name}: record {rid!r} rejected; the file changed while loading",
                                     [item])
                report["rejected"].append({"id": rid, "line": item.line, "reason": str(item)})
                done += 1
                tick()
            elif item.iri in pending or kg.has_cast(item.iri):
                if item.iri in pending:
                    twins.setdefault(item.iri, []).append((rid, line))
                report["skipped"].append(rid)
                done += 1
                tick()
            else:
                pending.add(item.iri)
                order.setdefault(rid, len(order))
                yield rid, item, line

    try:
        # topics matter only to chapter rules: without them any casts make a chunk
        by_topic = settings(kg)[0]
        for batch in chunks_by_topic(good(), chunk, topic=lambda record: record[1].topic if by_topic else None):
            submit(batch)
            while len(in_flight) > 2 * jobs - 1:
                write_oldest()
        while in_flight:
            write_oldest()
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    report["loaded"].sort(key=lambda rid: order.get(rid, len(order)))
    return report


def summary(report: dict, *, name: str, seconds: float, jobs: int) -> str:
    """Human summary of a load report: counts, then each rejected record with its reason."""
    n = sum(len(report[k]) for k in ("loaded", "skipped", "rejected"))
    rate = len(report["loaded"]) / seconds if seconds > 0 else 0.0
    lines = [f"{name}: {n:,} record(s): loaded {len(report['loaded']):,}, already present (skipped as duplicate) "
             f"{len(report['skipped']):,}, rejected {len(report['rejected']):,} — {seconds:.1f} s, {rate:,.1f} casts/s, "
             f"jobs {jobs}"]
    lines += [f"  rejected: {r['reason']}" for r in report["rejected"]]
    return "\n".join(lines) + "\n"

