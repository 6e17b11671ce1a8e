"""`liuyao load FILE --parquet DIR [--cluster local:N|ADDRESS]`, and `liuyao load FILE --store DIR` with the columnar
back end: a batch derived by DuckDB in partitions, as Parquet, into a store, or both.

Each partition of casts (`batch` casts, in file order) is derived by reasoner.columnar.ColumnarEngine and
written as two files: `states-<part>.parquet` (cast, state, class, of, position, rule) and
`judgments-<part>.parquet` (cast, judgment, rule, lines) — IRIs as plain strings, `rule` the IRI the
result was derived from (prov:wasDerivedFrom), `position`/`lines` the line numbers 1–6. No rule joins two
casts, so partitions are independent: `jobs` of them are derived at once in this process, each by its own
engine (its own DuckDB database) in a thread of its own — DuckDB runs a statement without holding the GIL, so
two threads load 1.6–1.9× as fast as one on two cores (docs/columnar.md) — or, with `cluster`, each one runs on a
Dask distributed worker (`local:N` starts a local cluster of N single-threaded workers; anything else is a
scheduler address) and writes its own files, which is why DIR must be a directory every worker sees.

Only one partition's casts and results are in memory at a time per worker (or job), and the parent holds at
most 2 × workers (or jobs) partitions in flight, so memory does not grow with the file. A partition checks its
casts against the SHACL shapes where it is derived, so the parent only reads the file.

Into a store, a partition's quads leave DuckDB as an N-Quads file (ColumnarEngine.write_inferred_nquads), which this
process bulk-loads into the store in file order while the next partitions are derived (docs/loading.md).
"""
from __future__ import annotations

import os
import queue
import shutil
import tempfile
import threading
from collections import deque
from pathlib import Path

from liuyao_kg.loaders.batch import iter_numbered_batch
from liuyao_kg.loaders.errors import BatchError, CastInputError

#: casts derived together (`liuyao load --partition N` sets another): the engine's fixed cost per batch (≈600
#: statements after fusing, ~5 s of CPU) is then ~1 ms a cast; memory grows with the batch, ~0.35 GB per 1,000 casts
#: (peak RSS 1.5 GB at 4,000); 10,000 was measured no faster at 1.7× the memory (docs/columnar.md)
BATCH = 5_000
#: the memory a job takes per cast of its partition (its engine's database and the partition: ~0.35 GB per 1,000
#: casts, above), which bounds the default number of jobs (`default_jobs`)
JOB_BYTES_PER_CAST = 350_000

#: this process's idle ColumnarEngines, by the rules they derive with (`RuleSource.key`): a partition takes one (or
#: builds one) and puts it back, so there are as many as partitions were ever derived at once here — one in a Dask
#: worker, `jobs` in a threaded load
_POOLS: dict[tuple, queue.SimpleQueue] = {}
_BUILDING = threading.Lock()  # engines are built one at a time (the build is Python, under the GIL anyway)


class RuleSource:
    """The rules and reference a partition's engine derives with: the package's own (the default; only a key, so a
    Dask worker builds its engine from its own installed package) or a store's layers (`of_store`: a load into a
    store derives with the rules that store holds, as its own engine would)."""

    def __init__(self, chapter_rules: bool = True, layers: dict | None = None, digest: str = "package"):
        self.chapter_rules, self.layers, self.digest = chapter_rules, layers, digest

    @property
    def key(self) -> tuple:
        return (self.chapter_rules, self.digest)

    @classmethod
    def of_store(cls, kg) -> "RuleSource":
        """The layers `kg` holds (read once, here); engines built from them are pooled by their content's digest."""
        import hashlib

        from liuyao_kg import namespaces as ns

        layers = {g: quads for g, quads in kg.layers().items()
                  if g in (ns.GRAPH_ONTOLOGY, ns.GRAPH_REFERENCE, ns.GRAPH_RULES)}
        digest = hashlib.sha256()
        for g in sorted(layers):
            digest.update(g.encode() + b"\n" + "\n".join(sorted(map(str, layers[g]))).encode() + b"\n")
        return cls(kg.chapter_rules, layers, digest.hexdigest())

    def __reduce__(self):  # to a Dask worker: the package's rules are its own; a store's layers are never sent
        if self.layers is not None:
            raise TypeError("a store's rules derive in this process only (no --cluster with --store)")
        return (RuleSource, (self.chapter_rules,))


_IDLE: queue.SimpleQueue = _POOLS.setdefault(RuleSource().key, queue.SimpleQueue())  # the package's, every rule


def columnar_engine(threads: int | None = None, *, chapter_rules: bool = True, only: str | None = None,
                    layers: dict | None = None):
    """A ColumnarEngine over the package's rules and reference layers (what a load derives with), or over
    `layers` ({graph: quads} of the ontology, reference and rules: a store's, `RuleSource.of_store`);
    `chapter_rules=False`: the state and reading rules (no judgments), as KnowledgeGraph(chapter_rules=False);
    `only` (a rule class IRI, `lyo:StateRule`): the rules of that class and what they read (`of_class`)."""
    import pyoxigraph as ox

    from liuyao_kg import namespaces as ns
    from liuyao_kg.graph import layer_quads
    from liuyao_kg.reasoner.columnar.engine import ColumnarEngine
    from liuyao_kg.reasoner.columnar.wide import chapter_conditions
    from liuyao_kg.reasoner.engine import load_rules

    if layers is None:
        layers = layer_quads((ns.GRAPH_ONTOLOGY, ns.GRAPH_REFERENCE, ns.GRAPH_RULES))  # not the passages: no rule reads them
    store = ox.Store()
    store.extend(layers[ns.GRAPH_RULES])
    rules = [r for r in load_rules(store, ns.GRAPH_RULES) if chapter_rules or not r.chapter]
    if only is not None:
        from liuyao_kg.reasoner.engine import of_class

        rules = of_class(rules, layers[ns.GRAPH_RULES], only)
        chapter_rules = any(r.chapter for r in rules)
    return ColumnarEngine(rules, layers[ns.GRAPH_ONTOLOGY] + layers[ns.GRAPH_REFERENCE], threads=threads,
                          conditions=chapter_conditions(layers[ns.GRAPH_RULES]) if chapter_rules else None)


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


def default_jobs(batch: int) -> int:
    """One job per CPU, as many as the available memory holds at JOB_BYTES_PER_CAST a cast of a partition: on a
    machine of many cores and little memory a job per core would run out of memory, not go faster."""
    cpus = os.cpu_count() or 1
    memory = available_memory()
    return cpus if memory is None else max(1, min(cpus, memory // (JOB_BYTES_PER_CAST * batch)))


def _take_engine(rules: RuleSource):
    """An idle engine of this process's for `rules`, or a new one: one DuckDB thread each (a job or worker takes a
    core)."""
    try:
        return _pool(rules).get_nowait()
    except queue.Empty:
        with _BUILDING:
            return columnar_engine(threads=1, chapter_rules=rules.chapter_rules, layers=rules.layers)


def _pool(rules: RuleSource) -> queue.SimpleQueue:
    return _POOLS.setdefault(rules.key, queue.SimpleQueue())


def _tid(engine, kind: str, iri: str) -> str:
    from liuyao_kg.reasoner.columnar.translate import table_id

    return table_id((kind, iri))


def derive_partition(records: list, out_dir: str | None, part: int, *, abort: bool = False, source: str = "the file",
                     rules: RuleSource | None = None, nquads: str | None = None) -> dict:
    """Check one partition's records [(id, CastInput, line)] against the SHACL shapes, derive the good ones and
    write the partition's two Parquet files (into `out_dir`; None: no file). Returns the row counts (`states`,
    `judgments`, with files), the ids `loaded` and the `rejected` records as the load's report lists them; with
    `nquads` (a directory), also the good casts' IRIs (`casts`) and the file there holding their asserted and
    inferred graphs as N-Quads (`nquads`: what a store bulk-loads), or None when no cast was good. `abort`: a record the shapes reject raises BatchError before anything is written (the load's
    scan found none, so the file changed while loading). `rules`: what the engine derives with (the package's).

    The check runs here, where the partition is derived (a Dask worker, a job's thread), not in the client: it
    was the client's one serial cost per cast (docs/columnar.md)."""
    from liuyao_kg.batch import shape_rejections
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
    rules = rules or RuleSource()
    engine = _take_engine(rules)
    try:
        derived = _derive_partition(engine, [q for i in good for q in quads[i]], out_dir, part, nquads=nquads)
    finally:
        _pool(rules).put(engine)  # not before: an engine derives one partition at a time
    if nquads:
        import pyoxigraph as ox

        out["casts"] = [records[i][1].iri for i in good]
        with open(derived["nquads"], "ab") as f:  # the asserted graphs after the inferred ones: one file to load
            for i in good:
                f.write(ox.serialize(quads[i], format=ox.RdfFormat.N_QUADS))
    return out | derived


def _derive_partition(engine, quads: list, out_dir: str | None, part: int, *, nquads: str | None = None,
                      by_cast: bool = False) -> dict:
    """Derive a partition's asserted quads with `engine` and write its two Parquet files (if `out_dir`); returns the
    row counts, and with `nquads` (a directory) the file there that holds the inferred quads as N-Quads (`nquads`:
    ColumnarEngine.write_inferred_nquads; `by_cast`: a cast's quads together) and their number (`inferred`)."""
    from liuyao_kg.namespaces import LYO, PROV

    counts = {}

    def sink(con):
        if out_dir is not None:
            parquet(con)
        if nquads is not None:
            path = counts["nquads"] = str(Path(nquads) / f"part-{part:06d}.nq")
            counts["inferred"] = engine.write_inferred_nquads(con, {q.graph_name.value for q in quads}, path,
                                                              by_cast=by_cast)
        return []

    def parquet(con):
        out = Path(out_dir)
        d = {name: f"({engine.derived_sql('p', iri)})" for name, iri in
             (("stateOf", LYO + "stateOf"), ("rule", PROV + "wasDerivedFrom"), ("inCast", LYO + "inCast"),
              ("judgmentOf", LYO + "judgmentOf"), ("matched", LYO + "matchedLine"))}
        position = _tid(engine, "p", LYO + "position")
        # joined as the tables spell terms (a cast's IRIs short: terms.compact), written in full
        strip = "substr(nt_expand({0}), 2, length(nt_expand({0})) - 2)"
        states = (f'SELECT {strip.format("c.o")} AS "cast", {strip.format("so.s")} AS "state", ty.class AS "class", '
                  f'{strip.format("so.o")} AS "of", CAST(nt_int(p.o) AS TINYINT) AS "position", '
                  f'{strip.format("r.o")} AS "rule" '
                  f"FROM {d['stateOf']} AS so JOIN {d['rule']} AS r ON r.s = so.s "
                  f"JOIN {d['inCast']} AS c ON c.s = so.s "
                  f"JOIN ({engine.derived_sql('t')}) AS ty ON ty.s = so.s "
                  f"LEFT JOIN c_{position} AS p ON p.s = so.o ORDER BY 1, 2, 3")
        judgments = (f'SELECT {strip.format("j.o")} AS "cast", {strip.format("j.s")} AS "judgment", '
                     f'{strip.format("r.o")} AS "rule", list(CAST(nt_int(p.o) AS TINYINT) ORDER BY nt_int(p.o)) '
                     f'FILTER (WHERE p.o IS NOT NULL) AS "lines" '
                     f"FROM {d['judgmentOf']} AS j JOIN {d['rule']} AS r ON r.s = j.s "
                     f"LEFT JOIN {d['matched']} AS m ON m.s = j.s "
                     f"LEFT JOIN c_{position} AS p ON p.s = m.o GROUP BY j.o, j.s, r.o ORDER BY 1, 2")
        for name, sql in (("states", states), ("judgments", judgments)):
            path = out / f"{name}-{part:06d}.parquet"
            con.execute(f"COPY ({sql}) TO '{_sql_path(path)}' (FORMAT parquet)")
            counts[name] = con.execute(f"SELECT count(*) FROM read_parquet('{_sql_path(path)}')").fetchone()[0]

    engine.derive_triples(quads, sink=sink)
    return counts


def _sql_path(path: Path) -> str:
    return str(path).replace("'", "''")


def load_parquet(path, out_dir, *, kg=None, on_error: str = "skip", batch: int = BATCH, cluster: str | None = None,
                 format: str | None = None, progress=None, jobs: int | None = 1, stats: dict | None = None,
                 encoding: str | None = None, scanned: int | None = None) -> dict:
    """Derive every good cast of a batch file with the columnar back end: into Parquet under `out_dir`, into the
    store `kg`, or both; the report is load_file's (with Parquet, also the `states` and `judgments` written).

    A cast earlier in the file (same content), or already in `kg`, is skipped; a bad record is rejected with its
    reason (on_error="abort": any bad record raises BatchError before anything is written). `out_dir` must not
    hold Parquet files of an earlier load (they would be mixed with these): that is refused, not overwritten.
    With `kg` each partition is written into the store when it is derived, in one write (`write_derived`: on disk
    journaled, so a cast is in completely or not at all), in file order; with both, the Parquet files hold exactly
    the casts written into the store (the report's `loaded`), and a load that fails leaves the partitions written
    before it in the store and no Parquet file (running it again loads the rest; its files then hold the rest).
    The engine derives with the rules the store holds (`RuleSource.of_store`), else the package's.
    Without `cluster`, `jobs` partitions are derived at once in threads of this process (None: `default_jobs`, one
    per CPU as memory allows; never more than the file has partitions, so a small file builds one engine); `stats`
    receives the record count and the jobs used. `scanned`: the file's record count, when the caller has scanned it
    already (batch.scan: counted and, with on_error="abort", checked), so it is not read a third time.
    """
    if cluster is not None and jobs not in (None, 1):
        raise BatchError(f"jobs={jobs} with a cluster: the cluster's workers derive (one partition each at a time)", [])
    if jobs is not None and jobs < 1:
        raise BatchError(f"jobs={jobs}: a number of threads ≥ 1", [])
    if out_dir is None and kg is None:
        raise BatchError("nothing to load into: give a Parquet directory, a store, or both", [])
    if cluster is not None and kg is not None:
        raise BatchError("a cluster writes Parquet only: its workers cannot write into this process's store", [])
    if kg is not None:
        from liuyao_kg.graph import KnowledgeGraph

        if not isinstance(kg, KnowledgeGraph):  # an endpoint is written one update a cast (load_file)
            raise BatchError(f"the columnar back end loads into a store on disk or in memory, not {kg.location}", [])
    from liuyao_kg.batch import check_store_writable, scan, shape_violation_of
    from liuyao_kg.shapes import ShapeViolation

    out = Path(out_dir) if out_dir is not None else None
    if out is not None and out.exists() and (any(out.glob("states*.parquet")) or any(out.glob("judgments*.parquet"))):
        raise BatchError(f"{out} already holds states/judgments Parquet files of an earlier load: choose an empty "
                         f"directory", [])
    total = scan(path, on_error=on_error, format=format, encoding=encoding) if scanned is None else scanned
    rules = None  # read at the first partition: a load that derives nothing reads no layer
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    report = {"loaded": [], "skipped": [], "rejected": []} | ({"states": 0, "judgments": 0} if out is not None else {})
    jobs = 1 if cluster else min(jobs or default_jobs(batch), max(1, -(-total // batch)))
    if stats is not None:
        stats.update(records=total, jobs=jobs)
    client, local = _client(cluster) if cluster else (None, None)
    threads = None
    if jobs > 1:
        from concurrent.futures import ThreadPoolExecutor

        threads = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="liuyao-parquet")
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
        nonlocal rules
        if rules is None:
            if kg is not None:
                check_store_writable(kg)
            rules = RuleSource.of_store(kg) if kg is not None else RuleSource()
        # the partition checks its records against the SHACL shapes where it is derived (derive_partition)
        args = (derive_partition, records, str(staging.resolve()) if staging is not None else None, part)
        options = {"abort": on_error == "abort", "source": Path(path).name, "rules": rules, "nquads": quads_dir}
        if client is not None:
            in_flight.append(client.submit(*args, pure=False, **options))
        elif threads is not None:
            in_flight.append(threads.submit(*args, **options))
        else:
            in_flight.append(derive_partition(*args[1:], **options))
        limit = 2 * max(1, len(client.scheduler_info().get("workers", {})) if client is not None else jobs)
        while len(in_flight) > limit - 1:
            finish_oldest()

    # every partition writes into a hidden directory of DIR; its files move into DIR when the whole load is done, so
    # DIR never shows a half-written file or part of a load that failed (removed with that directory)
    staging, whole = None, False
    # a partition's graphs for the store, as the N-Quads file it bulk-loads (removed once loaded): held on disk, not in
    # memory (~150 KB a cast); in the temporary directory (TMPDIR), never in the store's own directory
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
        if threads is not None:  # a failed load waits for the partitions already deriving, and starts no other
            threads.shutdown(wait=True, cancel_futures=True)
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
