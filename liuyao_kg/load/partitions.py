"""`liuyao load FILE --parquet DIR [--cluster local:N|ADDRESS]`, and `liuyao load FILE --store DIR` of a large file: a
batch derived in partitions, as Parquet, into a store, or both.

Each partition of casts (`batch` casts, in file order) is derived by the native engine (reasoner/native: the rules
compiled to Python), each cast alone, and written as three files: `states-<part>.parquet` (cast, state, class, of,
position, rule), `judgments-<part>.parquet` (cast, judgment, rule, lines) and `casts-<part>.parquet` (cast, record,
primary, changed, topic, reading_school, verdict, favourable, timing: the record's id, the hexagrams' names, the
question, the reading's verdict and its 應期 branches in rank order) — IRIs as plain strings, `rule` the IRI the
result was derived from (prov:wasDerivedFrom), `position`/`lines` the line numbers 1–6: rows a data user reads
without a join. No rule joins two casts, so partitions are independent: `jobs` of them are derived at once,
each in a worker process of its own (the engine is Python: one process a core), or, with `cluster`, each on a Dask
distributed worker (`local:N` starts a local cluster of N single-threaded workers; anything else is a scheduler
address) that writes its own files, which is why DIR must be a directory every worker sees.

Only one partition's casts and rows are in memory at a time per worker, and the parent holds at most 2 × workers
partitions in flight, so memory does not grow with the file. A partition checks its casts against the SHACL shapes
where it is derived, so the parent only reads the file.

Into a store, a partition's asserted and inferred graphs are written as an N-Quads file, which this process
bulk-loads into the store in file order while the next partitions are derived (docs/loading.md).
"""
from __future__ import annotations

import os
import shutil
import tempfile
from collections import deque
from pathlib import Path

from liuyao_kg.load import settings
from liuyao_kg.loaders.batch import iter_numbered_batch
from liuyao_kg.loaders.errors import BatchError, CastInputError
from liuyao_kg.reasoner.engines import REGISTRY, RuleSource, engine

#: casts a partition derives (`liuyao load --partition N` sets another): the native engine's batch
#: (reasoner.engines.REGISTRY); each cast is derived alone, so a partition only bounds what a worker holds
BATCH = REGISTRY["native"].batch
#: the memory a job's worker process takes (its interpreter, engine and one partition; benchmarks/load.py measures
#: the peak), which bounds the default number of jobs (`default_jobs`)
JOB_BYTES = 256 * 2**20


def available_memory() -> int | None:
    """Bytes of memory available to new work (Linux: MemAvailable of /proc/meminfo), or None when unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def default_jobs() -> int:
    """One job per CPU, as many as the available memory holds at JOB_BYTES a job: on a machine of many cores and
    little memory a job per core would run out of memory, not go faster."""
    cpus = os.cpu_count() or 1
    memory = available_memory()
    return cpus if memory is None else max(1, min(cpus, memory // JOB_BYTES))


def derive_partition(records: list, out_dir: str | None, part: int, *, abort: bool = False, source: str = "the file",
                     rules: RuleSource | None = None, nquads: str | None = None) -> dict:
    """Check one partition's records [(id, CastInput, line)] against the SHACL shapes, derive the good ones and
    write the partition's two Parquet files (into `out_dir`; None: no file). Returns the row counts (`states`,
    `judgments`, with files), the ids `loaded` and the `rejected` records as the load's report lists them; with
    `nquads` (a directory), also the good casts' IRIs (`casts`) and the file there holding their asserted and
    inferred graphs as N-Quads (`nquads`: what a store bulk-loads), or None when no cast was good. `abort`: a record the shapes reject raises BatchError before anything is written (the load's
    scan found none, so the file changed while loading). `rules`: what the engine derives with (the package's).

    The check runs here, where the partition is derived (a Dask worker, a job's thread), not in the client: it
    was the client's one serial cost per cast."""
    from liuyao_kg.load.batch import shape_rejections
    from liuyao_kg.loaders.rdf import cast_quads

    quads = [cast_quads(ci) for _, ci, _ in records]  # built once: for the shapes and for the derivation
    bad = shape_rejections(records, quads)
    if bad and abort:
        raise BatchError(f"{source}: {len(bad)} record(s) rejected; the file changed while loading", list(bad.values()))
    good = [i for i, (rid, _, _) in enumerate(records) if rid not in bad]
    out = {"states": 0, "judgments": 0, "loaded": [records[i][0] for i in good],
           "rejected": [{"id": rid, "line": line, "reason": str(bad[rid])} for rid, _, line in records if rid in bad],
           # (cast IRI, message, field, value) of each: what a later duplicate of the record is rejected with
           "violations": [(ci.iri, bad[rid].message, bad[rid].field, bad[rid].value) for rid, ci, _ in records if rid in bad]}
    if nquads:
        out |= {"casts": [], "nquads": None}
    if not good:
        return out  # no file: nothing to write
    derived = _derive_partition(engine(rules or RuleSource()), [quads[i] for i in good], out_dir, part,
                                nquads=nquads, ids=[records[i][0] for i in good])
    if nquads:
        import pyoxigraph as ox

        out["casts"] = [records[i][1].iri for i in good]
        with open(derived["nquads"], "ab") as f:  # the asserted graphs after the inferred ones: one file to load
            for i in good:
                f.write(ox.serialize(quads[i], format=ox.RdfFormat.N_QUADS))
    return out | derived


def _derive_partition(engine, casts: list, out_dir: str | None, part: int, *, nquads: str | None = None,
                      ids: list | None = None) -> dict:
    """Derive a partition's casts (`casts`: the asserted quads of each; `ids`: their records' ids) with `engine`, each
    alone, and write its three Parquet files (if `out_dir`); returns the row counts, and with `nquads` (a
    directory) the file there that holds the inferred graphs as N-Quads, a cast's quads together (`nquads`), and
    their number (`inferred`)."""
    from liuyao_kg.namespaces import inferred_graph
    from liuyao_kg.reasoner.native.nquads import quads_text

    counts: dict = {}
    states: list[tuple] = []
    judgments: list[tuple] = []
    readings: list[tuple] = []
    native = hasattr(engine, "derive_index")
    text = open(Path(nquads) / f"part-{part:06d}.nq", "w", encoding="utf-8") if nquads else None
    inferred = 0
    try:
        for k, quads in enumerate(casts):
            if native:
                index, start = engine.derive_index(quads)
                triples = index.added[start:]
            else:  # the reference engine, for rules other than the compiled ones
                index, triples = _index_of(quads, engine.derive(quads))
            cast = quads[0].graph_name.value
            _rows(index, triples, states, judgments)
            if out_dir is not None:
                readings.append(_reading_row(engine, index, cast, None if ids is None else ids[k], native))
            if text is not None:
                text.write(quads_text(triples, inferred_graph(cast)))
                inferred += len(triples)
    finally:
        if text is not None:
            text.close()
    if nquads:
        counts |= {"nquads": str(Path(nquads) / f"part-{part:06d}.nq"), "inferred": inferred}
    if out_dir is not None:
        counts |= _write_rows(Path(out_dir), part, states, judgments, readings)
    return counts


def _reading_row(engine, index, cast: str, record, native: bool) -> tuple:
    """A cast's row of casts-<part>.parquet: (cast, record, primary, changed, topic, reading school, verdict,
    favourable, timing: the 應期 branches in the reading's order), read by the chart's own named queries compiled
    into the native back end (liuyao_kg.queries.native) on the cast's index."""
    from liuyao_kg.queries.native import answers_for
    from liuyao_kg.chart.reading import timing_candidates

    ask = answers_for(engine if native else None, index).ask
    hexes = {r["which"]: r["name"] for r in ask("chart-hexagrams", cast=cast)}
    question = next(iter(ask("chart-question", cast=cast)), {})
    verdict = next(iter(ask("reading-verdict", cast=cast)), {})
    timing = [c["branch"] for c in timing_candidates(ask, cast)]  # ranked as the chart ranks them
    return (cast, record, hexes.get("primary"), hexes.get("changed"), question.get("topic"),
            question.get("readingSchool") or None, verdict.get("termZh"), verdict.get("favourable"), timing)


def _index_of(asserted: list, inferred: list):
    """A native index of a cast's asserted and inferred quads (the reference engine's output), and its inferred
    triples."""
    from liuyao_kg.reasoner.native.index import Index
    from liuyao_kg.reasoner.native.terms import from_ox

    index = Index()
    index.extend([(from_ox(q.subject), from_ox(q.predicate), from_ox(q.object)) for q in asserted])
    start = len(index.added)
    index.extend([(from_ox(q.subject), from_ox(q.predicate), from_ox(q.object)) for q in inferred])
    return index, index.added[start:]


def _rows(index, triples: list, states: list, judgments: list) -> None:
    """The states rows (cast, state, class, of, position, rule) and judgments rows (cast, judgment, rule, lines) of one
    cast's inferred triples: every derived type, cast and rule of a state, each combination a row."""
    from liuyao_kg.namespaces import LYO, PROV, RDF

    of, judged = LYO + "stateOf", LYO + "judgmentOf"
    by = PROV + "wasDerivedFrom"
    mine: dict = {}  # subject → {predicate: [objects]} of the inferred triples
    for s, p, o in triples:
        if p in (of, judged, by, RDF + "type", LYO + "inCast", LYO + "matchedLine"):
            mine.setdefault(s, {}).setdefault(p, []).append(o)
    sp = index.sp
    position = LYO + "position"

    def pos(node):
        found = sp.get((node, position))
        return int(found[0][0]) if found else None

    for s, props in mine.items():
        for o in props.get(of, ()):
            for cast in props.get(LYO + "inCast", ()):
                for cls in props.get(RDF + "type", ()):
                    for rule in props.get(by, ()):
                        states.append((cast, s, cls, o, pos(o), rule))
        for cast in props.get(judged, ()):
            lines = sorted(p for p in (pos(m) for m in props.get(LYO + "matchedLine", ())) if p is not None)
            for rule in props.get(by, ()):
                judgments.append((cast, s, rule, lines or None))  # null: no line matched


def _write_rows(out: Path, part: int, states: list, judgments: list, readings: list) -> dict:
    """A partition's three Parquet files, sorted by their first columns (the module's docstring lists them)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    text = pa.string()
    schemas = {
        "states": pa.schema([("cast", text), ("state", text), pa.field("class", text, nullable=False), ("of", text),
                             ("position", pa.int8()), ("rule", text)]),
        "judgments": pa.schema([("cast", text), ("judgment", text), ("rule", text), ("lines", pa.list_(pa.int8()))]),
        "casts": pa.schema([("cast", text), ("record", text), ("primary", text), ("changed", text), ("topic", text),
                            ("reading_school", text), ("verdict", text), ("favourable", pa.bool_()),
                            ("timing", pa.list_(text))]),
    }
    counts = {}
    for name, rows in (("states", states), ("judgments", judgments), ("casts", readings)):
        rows.sort(key=lambda r: r[:3])  # the cast first: its rows together, in a stable order
        schema = schemas[name]
        table = pa.Table.from_pydict({f.name: [r[i] for r in rows] for i, f in enumerate(schema)}, schema=schema)
        pq.write_table(table, out / f"{name}-{part:06d}.parquet")
        if name != "casts":  # a cast a loaded record: the report lists them
            counts[name] = len(rows)
    return counts


def load_parquet(path, out_dir, *, kg=None, on_error: str = "skip", batch: int | None = None, cluster: str | None = None,
                 format: str | None = None, progress=None, jobs: int | None = 1, stats: dict | None = None,
                 encoding: str | None = None, scanned: int | None = None) -> dict:
    """Derive every good cast of a batch file in partitions: into Parquet under `out_dir`, into the
    store `kg`, or both; the report is load_file's (with Parquet, also the `states` and `judgments` written).

    A cast earlier in the file (same content), or already in `kg`, is skipped; a bad record is rejected with its
    reason (on_error="abort": any bad record raises BatchError before anything is written). `out_dir` must not
    hold Parquet files of an earlier load (they would be mixed with these): that is refused, not overwritten.
    With `kg` each partition is written into the store when it is derived, in one write (`write_derived`: on disk
    journaled, so a cast is in completely or not at all), in file order; with both, the Parquet files hold exactly
    the casts written into the store (the report's `loaded`), and a load that fails leaves the partitions written
    before it in the store and no Parquet file (running it again loads the rest; its files then hold the rest).
    The engine derives with the rules the store holds (`RuleSource.of_layers`), else the package's.
    Without `cluster`, `jobs` partitions are derived at once in worker processes (None: `default_jobs`, one per CPU
    as memory allows; never more than the file has partitions, so a small file derives in this process); `stats`
    receives the record count and the jobs used. `scanned`: the file's record count, when the caller has scanned it
    already (batch.scan: counted and, with on_error="abort", checked), so it is not read a third time.
    """
    batch = batch or BATCH
    if cluster is not None and jobs not in (None, 1):
        raise BatchError(f"jobs={jobs} with a cluster: the cluster's workers derive (one partition each at a time)", [])
    if jobs is not None and jobs < 1:
        raise BatchError(f"jobs={jobs}: a number of threads ≥ 1", [])
    if out_dir is None and kg is None:
        raise BatchError("nothing to load into: give a Parquet directory, a store, or both", [])
    if cluster is not None and kg is not None:
        raise BatchError("a cluster writes Parquet only: its workers cannot write into this process's store", [])
    if kg is not None:
        if "local" not in kg.capabilities:  # an endpoint is written one update a cast (load_file)
            raise BatchError(f"a load in partitions goes into a store on disk or in memory, not {kg.location}", [])
    from liuyao_kg.load.batch import check_store_writable, scan, shape_violation_of
    from liuyao_kg.loaders.shapes import ShapeViolation

    out = Path(out_dir) if out_dir is not None else None
    if out is not None and out.exists() and any(any(out.glob(f"{n}*.parquet")) for n in ("states", "judgments", "casts")):
        raise BatchError(f"{out} already holds states/judgments/casts Parquet files of an earlier load: choose an empty "
                         f"directory", [])
    total = scan(path, on_error=on_error, format=format, encoding=encoding) if scanned is None else scanned
    rules = None  # read at the first partition: a load that derives nothing reads no layer
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    report = {"loaded": [], "skipped": [], "rejected": []} | ({"states": 0, "judgments": 0} if out is not None else {})
    jobs = 1 if cluster else min(jobs or default_jobs(), max(1, -(-total // batch)))
    if stats is not None:
        stats.update(records=total, jobs=jobs)
    client, local = _client(cluster) if cluster else (None, None)
    pool = None  # the jobs' worker processes (started at the first partition)
    seen: set[str] = set()
    skipped: dict[str, None] = {}  # the report's `skipped`, in file order; a dict: a twin leaves it in O(1)
    twins: dict[str, list[tuple[str, int]]] = {}  # a cast IRI → its later duplicates' (id, line), skipped
    violated: dict = {}  # a cast IRI the shapes rejected → its ShapeViolation
    done = 0
    in_flight: deque = deque()

    def finish_oldest():
        nonlocal done
        future = in_flight.popleft()
        result = future if isinstance(future, dict) else future.result()
        if kg is not None and result["casts"]:
            try:
                kg.write_derived(Path(result["nquads"]), casts=result["casts"])  # one bulk load a partition
            finally:
                os.unlink(result["nquads"])
        if out is not None:
            report["states"] += result["states"]
            report["judgments"] += result["judgments"]
        report["loaded"] += result["loaded"]
        report["rejected"] += result["rejected"]
        for iri, message, field, value in result["violations"]:  # the same content: the same violation (as load_file)
            violated[iri] = ShapeViolation(message, field=field, value=value)
            for twin, twin_line in twins.pop(iri, ()):
                del skipped[twin]
                reject_twin(iri, twin, twin_line)
        done += len(result["loaded"])
        if progress is not None:
            progress.update(done + len(skipped) + len(report["rejected"]), total,
                            loaded=len(report["loaded"]), skipped=len(skipped), rejected=len(report["rejected"]))

    def reject_twin(iri, rid, line):
        err = shape_violation_of(violated[iri], rid, line)
        report["rejected"].append({"id": rid, "line": line, "reason": str(err)})

    def submit(records, part):
        nonlocal rules, pool
        if rules is None:
            if kg is not None:
                check_store_writable(kg)
            rules = RuleSource.of_layers(kg.layers(), settings(kg)[0]) if kg is not None else RuleSource()
            # the engine is Python, under the GIL: a process a job (spawned: this process may hold threads). A store
            # holding rules other than the package's derives in this process, with those rules.
            if jobs > 1 and rules.layers is None:
                import multiprocessing
                from concurrent.futures import ProcessPoolExecutor

                pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"))
        # the partition checks its records against the SHACL shapes where it is derived (derive_partition)
        args = (derive_partition, records, str(staging.resolve()) if staging is not None else None, part)
        options = {"abort": on_error == "abort", "source": Path(path).name, "rules": rules, "nquads": quads_dir}
        if client is not None:
            in_flight.append(client.submit(*args, pure=False, **options))
        elif pool is not None:
            in_flight.append(pool.submit(*args, **options))
        else:
            in_flight.append(derive_partition(*args[1:], **options))
        limit = 2 * max(1, len(client.scheduler_info().get("workers", {})) if client is not None else jobs)
        while len(in_flight) > limit - 1:
            finish_oldest()

    # every partition writes into a hidden directory of DIR; its files move into DIR when the whole load is done, so
    # DIR never shows a half-written file or part of a load that failed (removed with that directory)
    staging, whole = None, False
    # a partition's graphs for the store, as the N-Quads file it bulk-loads (removed once loaded): held on disk, not in
    # memory; in the temporary directory (TMPDIR), never in the store's own directory
    quads_dir = tempfile.mkdtemp(prefix="liuyao-load-") if kg is not None else None
    try:
        if out is not None:
            staging = Path(tempfile.mkdtemp(prefix=".partial-", dir=out))
        pending, part = [], 0
        for rid, line, item in iter_numbered_batch(path, format=format, encoding=encoding):
            if isinstance(item, CastInputError):
                if on_error == "abort":  # the scan found none: the file changed since
                    raise BatchError(f"{Path(path).name}: record {rid!r} rejected; the file changed while loading",
                                     [item])
                report["rejected"].append({"id": rid, "line": item.line, "reason": str(item)})
            elif item.iri in violated:  # a duplicate of a record the shapes rejected
                reject_twin(item.iri, rid, line)
            elif item.iri in seen:
                skipped[rid] = None
                twins.setdefault(item.iri, []).append((rid, line))
            elif kg is not None and kg.has_cast(item.iri):  # loaded before: the same content, already derived
                skipped[rid] = None
            else:
                seen.add(item.iri)
                pending.append((rid, item, line))
                if len(pending) >= batch:
                    submit(pending, part)
                    pending, part = [], part + 1
        if pending:
            submit(pending, part)
        while in_flight:
            finish_oldest()
        # in file order: a partition's shape rejections arrive when it is done, after later records' field errors
        report["rejected"].sort(key=lambda r: (r["line"] is None, r["line"] or 0))
        report["skipped"] = list(skipped)
        whole = True
    finally:
        if pool is not None:  # a failed load waits for the partitions already deriving, and starts no other
            pool.shutdown(wait=True, cancel_futures=True)
        if client is not None:
            client.close()
        if local is not None:
            local.close()
        if not whole and staging is not None:  # after the jobs have stopped writing into it
            shutil.rmtree(staging, ignore_errors=True)
        if quads_dir is not None:
            shutil.rmtree(quads_dir, ignore_errors=True)
    if out is None:
        return report
    files = sorted(staging.iterdir())
    taken = [f.name for f in files if (out / f.name).exists()]
    if taken:  # another load into DIR finished meanwhile: its files are not replaced, this load's stay where they are
        raise BatchError(f"{out} received another load's files while this one ran ({', '.join(taken[:3])}"
                         f"{' …' if len(taken) > 3 else ''}): this load's files are in {staging}", [])
    for f in files:  # the load is whole: its files into DIR
        f.rename(out / f.name)
    staging.rmdir()
    return report


def _client(address: str):
    """A Dask distributed client: `local:N` on a new local cluster of N workers, else the scheduler at `address`."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as e:  # the `cluster` extra
        raise BatchError("--cluster needs Dask distributed: pip install 'liuyao-kg[cluster]'", []) from e
    if address.startswith("local:"):
        try:
            n = int(address.split(":", 1)[1])
        except ValueError:
            n = 0
        if n < 1:
            raise BatchError(f"--cluster {address!r}: local:N needs a number of workers N ≥ 1", [])
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
        return Client(cluster), cluster
    try:
        return Client(address, timeout="10s"), None
    except (OSError, TimeoutError, ValueError) as e:
        raise BatchError(f"--cluster {address!r}: cannot reach a Dask scheduler there ({e})", []) from e
