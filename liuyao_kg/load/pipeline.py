"""`liuyao load FILE`: every good cast of a batch file derived in partitions and written into its sinks (a store,
Parquet files, or both: liuyao_kg.load.sinks) by its workers (this process, worker processes, or a Dask cluster:
liuyao_kg.load.workers), with a per-record report. One pipeline, whatever the file's size, store or engine.

1. A scan counts the records (for the progress line) and, with ``on_error="abort"``, checks every one, its fields
   and its asserted graph against the SHACL shapes: if any is bad, BatchError is raised and nothing is written
   (liuyao_kg.load.records).
2. The records are read again, lazily. A bad one is reported as rejected with its reason; a cast already in the
   store, or earlier in the file (same content), as skipped, so loading a file again writes nothing. The others make
   partitions of `partition` casts (default: the engine's batch, reasoner.engines.REGISTRY), of one topic each where
   the engine evaluates a partition at once and chapter rules run (a chapter rule runs only on a partition holding
   its topic).
3. Each partition is checked against the shapes and derived where the workers are (liuyao_kg.load.partition),
   and this process hands the derived partitions to the sinks in file order. At most the workers' `capacity`
   partitions are in flight and at most one partly filled partition per topic waits, so memory does not grow with
   the file.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TypeVar

from liuyao_kg.load import engine_for, rules_of, settings
from liuyao_kg.load.partition import derive_partition
from liuyao_kg.load.records import check_store_writable, scan, shape_violation_of
from liuyao_kg.load.sinks import Parquet, StoreSink
from liuyao_kg.load.workers import Inline, workers_of
from liuyao_kg.loaders.batch import iter_numbered_batch
from liuyao_kg.loaders.errors import BatchError, CastInputError
from liuyao_kg.reasoner.engines import DEFAULT_BACKEND, REGISTRY, RuleSource, check_backend

T = TypeVar("T")


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


def _sinks(sinks) -> list:
    """The sinks asked for: a store (any CastStore), Parquet(DIR), or a list of them; one store at most."""
    items = list(sinks) if isinstance(sinks, (list, tuple)) else [sinks]
    out = [s if isinstance(s, (StoreSink, Parquet)) else StoreSink(s) for s in items if s is not None]
    if not out:
        raise BatchError("nothing to load into: give a Parquet directory, a store, or both", [])
    if sum(isinstance(s, StoreSink) for s in out) > 1:
        raise BatchError("one store a load: load the file into each store in turn", [])
    return out


def load_file(path, sinks, workers=1, *, on_error: str = "skip", partition: int | None = None,
              backend: str | None = None, format: str | None = None, encoding: str | None = None, progress=None,
              stats: dict | None = None) -> dict:
    """Load every good cast of the batch file at `path` into `sinks` (a store, `Parquet(DIR)`, or a list of both),
    derived by `workers` (load.workers: Inline, Processes, Cluster; or a number of jobs, 1 being this process and
    None one a CPU as memory allows). See the module's docstring for the steps and loaders.batch for the formats.

    Returns {"loaded": [ids, in file order], "skipped": [ids already in the store or earlier in the file],
    "rejected": [{id, line, reason}, in file order]}, with Parquet also the `states` and `judgments` rows written.
    With Parquet beside a store the files hold exactly the casts written into the store; a load that fails leaves
    the partitions written into the store before it, and no Parquet file. The engine derives with the rules the
    store holds and as its settings say (liuyao_kg.load.derive_with), else with the package's rules and `backend`
    (a name of reasoner.engines.REGISTRY; default the native engine; with a store, only the store's). `progress`:
    anything with update(done, total, **counts) (liuyao_kg.progress.Progress); `stats`, if given, receives the
    record count, the jobs used and, under "errors", the CastInputError of each record rejected in this process
    ({(id, line): error}: `summary` says them in another language). `encoding`: the file's, when it has no BOM and is not UTF-8 (a byte it cannot
    decode rejects that record only)."""
    sinks = _sinks(sinks)
    workers = workers if isinstance(workers, Inline) else workers_of(workers)
    store = next((s.store for s in sinks if isinstance(s, StoreSink)), None)
    if store is not None and not workers.shares_files:
        raise BatchError("a cluster writes Parquet only: its workers cannot write into this process's store", [])
    if partition is not None and partition < 1:
        raise BatchError(f"partition={partition}: a number of casts ≥ 1", [])
    parquet = [s for s in sinks if isinstance(s, Parquet)]
    for s in parquet:
        s.check()
    chapter_rules, own = settings(store) if store is not None else (True, None)
    if own is not None and backend not in (None, own):
        raise BatchError(f"backend {backend!r}: the store derives with {own!r} (derive_with sets it)", [])
    backend = own or check_backend(backend or DEFAULT_BACKEND)
    total = scan(path, on_error=on_error, format=format, encoding=encoding)
    spec = REGISTRY[backend]
    size = partition or spec.batch
    running = workers.open(-(-total // size))  # never more jobs than partitions: a small file derives here
    by_topic = chapter_rules and not spec.per_cast
    if stats is not None:
        stats.update(records=total, jobs=running.jobs)

    report: dict = {"loaded": [], "skipped": [], "rejected": []}
    if parquet:
        report |= {"states": 0, "judgments": 0}
    seen: set[str] = set()
    order: dict[str, int] = {}  # a loaded record's id → its place in the file
    skipped: dict[str, None] = {}  # in file order; a dict: a twin leaves it in O(1)
    twins: dict[str, list[tuple[str, int]]] = {}  # a cast IRI → its later duplicates' (id, line), skipped
    violated: dict = {}  # a cast IRI the shapes rejected → its ShapeViolation
    in_flight: deque = deque()
    options: dict = {"abort": on_error == "abort", "source": Path(path).name, "backend": backend}
    opened: list = []

    def reject_twin(iri, rid, line):
        err = shape_violation_of(violated[iri], rid, line)
        report["rejected"].append({"id": rid, "line": line, "reason": str(err)})
        if stats is not None:
            stats.setdefault("errors", {})[(rid, line)] = err

    def tick():
        if progress is not None:
            progress.update(len(report["loaded"]) + len(skipped) + len(report["rejected"]), total,
                            loaded=len(report["loaded"]), skipped=len(skipped), rejected=len(report["rejected"]))

    def finish_oldest():
        from liuyao_kg.loaders.shapes import ShapeViolation

        result = in_flight.popleft().result()
        for sink in sinks:
            sink.take(result)
        if parquet:
            report["states"] += result["states"]
            report["judgments"] += result["judgments"]
        report["loaded"] += result["loaded"]
        report["rejected"] += result["rejected"]
        # the shapes' rejections in the partition (a worker's process, maybe): the error rebuilt from what it sent
        # (its rejected records and their violations, in the same order), to be worded in the summary's language
        for r, (_, message, field, value) in zip(result["rejected"], result["violations"]):
            if stats is not None:
                stats.setdefault("errors", {})[(r["id"], r["line"])] = shape_violation_of(
                    ShapeViolation(message, field=field, value=value), r["id"], r["line"])
        for iri, message, field, value in result["violations"]:  # the same content: the same violation
            violated[iri] = ShapeViolation(message, field=field, value=value)
            for twin, twin_line in twins.pop(iri, ()):
                del skipped[twin]
                reject_twin(iri, twin, twin_line)
        tick()

    def submit(records, part):
        nonlocal running
        if not opened:  # at the first partition: a load that derives nothing reads no layer and opens no sink
            options["rules"] = RuleSource(chapter_rules)
            if store is not None:
                check_store_writable(store)
                # workers elsewhere build the engine of the store's rules; a store's own rules are never sent, so a
                # store holding rules other than the package's derives here, as this process does anyway
                rules = None if running.local else rules_of(store)
                if rules is not None and rules.layers is not None:
                    running.close()
                    running = Inline()
                    if stats is not None:
                        stats["jobs"] = 1
                if running.local:
                    options["engine"] = engine_for(store)  # the store's engine, built once for the store's life
                else:
                    options["rules"] = rules
            for sink in sinks:
                opened.append(sink)
                options.update(sink.open())
        in_flight.append(running.submit(derive_partition, records, part, **options))
        while len(in_flight) >= running.capacity:
            finish_oldest()

    def good():
        """The records to derive, in file order; rejections and duplicates go to the report."""
        for rid, line, item in iter_numbered_batch(path, format=format, encoding=encoding):
            if isinstance(item, CastInputError):
                if on_error == "abort":  # the scan found none: the file changed since
                    raise BatchError(f"{Path(path).name}: record {rid!r} rejected; the file changed while loading",
                                     [item])
                report["rejected"].append({"id": rid, "line": item.line, "reason": str(item)})
                if stats is not None:  # the error itself, for a summary in another language (`summary`)
                    stats.setdefault("errors", {})[(rid, item.line)] = item
                tick()
            elif item.iri in violated:  # a duplicate of a record the shapes rejected
                reject_twin(item.iri, rid, line)
            elif item.iri in seen:
                skipped[rid] = None
                twins.setdefault(item.iri, []).append((rid, line))
                tick()
            elif any(sink.has(item.iri) for sink in sinks):  # loaded before: the same content, already derived
                skipped[rid] = None
                tick()
            else:
                seen.add(item.iri)
                order[rid] = len(order)
                yield rid, item, line

    whole = False
    try:
        topic = (lambda record: record[1].topic) if by_topic else (lambda record: None)
        for part, records in enumerate(chunks_by_topic(good(), size, topic=topic)):
            submit(records, part)
        while in_flight:
            finish_oldest()
        whole = True
    finally:
        running.close()  # a failed load waits for the partitions already deriving, and starts no other
        for sink in opened:
            sink.close(whole)
    report["loaded"].sort(key=order.__getitem__)
    report["skipped"] = list(skipped)
    # in file order: a partition's shape rejections arrive when it is done, after later records' field errors
    report["rejected"].sort(key=lambda r: (r["line"] is None, r["line"] or 0))
    return report


#: the words of the load's progress line and summary (zh-Hant; zh-Hans by OpenCC)
WORDS = {
    "load": {"zh": "載入 {name}", "en": "load {name}", "ko": "적재 {name}"},
    "upgrade": {"zh": "升級：重新推導卦例", "en": "upgrade: re-deriving casts", "ko": "업그레이드: 괘례를 다시 도출"},
    "loaded": {"zh": "已載入", "en": "loaded", "ko": "적재"},
    "skipped": {"zh": "已有而略過", "en": "skipped", "ko": "건너뜀"},
    "rejected": {"zh": "拒收", "en": "rejected", "ko": "거부"},
    "per_second": {"zh": " 筆／秒", "en": "/s", "ko": "건/초"},
    "seconds": {"zh": " 秒", "en": " s", "ko": "초"},
    "head": {"zh": "{name}：{n:,} 筆：已載入 {loaded:,}，已有而略過（重複）{skipped:,}，拒收 {rejected:,} —— "
                   "{seconds:.1f} 秒，每秒 {rate:,.1f} 卦，{jobs} 程序",
             "en": "{name}: {n:,} record(s): loaded {loaded:,}, already present (skipped as duplicate) {skipped:,}, "
                   "rejected {rejected:,} — {seconds:.1f} s, {rate:,.1f} casts/s, jobs {jobs}",
             "ko": "{name}: {n:,}건: 적재 {loaded:,}, 이미 있음(중복으로 건너뜀) {skipped:,}, 거부 {rejected:,} — "
                   "{seconds:.1f}초, 초당 {rate:,.1f}괘, 작업 {jobs}"},
    "record": {"zh": "拒收：第 {line} 行（{id}）：{reason}", "en": "rejected: record {id!r}, line {line}: {reason}",
               "ko": "거부: {line}행 ({id}): {reason}"},
}


def say(key: str, lang: str = "zh", **values) -> str:
    """One of WORDS in `lang` (i18n.check_lang's languages), filled with `values`."""
    from liuyao_kg.chart import i18n

    return i18n.to_lang(WORDS[key][i18n.base(i18n.check_lang(lang))], lang).format(**values)


def progress_names(lang: str = "zh") -> dict[str, str]:
    """The progress line's counts (loaded, skipped, rejected) and units named in `lang`, for liuyao_kg.progress.Progress."""
    return {k: say(k, lang) for k in ("loaded", "skipped", "rejected", "per_second", "seconds")}


def summary(report: dict, *, name: str, seconds: float, jobs: int, lang: str = "zh", errors: dict | None = None,
            reason=None) -> str:
    """Human summary of a load report in `lang`: counts, then each rejected record with its reason. In English the
    report's own reason; in another language the reason said by `reason(err)` (the CLI passes the API's
    messages.cast_error) of the record's error in `errors` ({(id, line): CastInputError}, load_file's stats["errors"]),
    the report's English reason where there is none."""
    n = sum(len(report[k]) for k in ("loaded", "skipped", "rejected"))
    rate = len(report["loaded"]) / seconds if seconds > 0 else 0.0
    lines = [say("head", lang, name=name, n=n, loaded=len(report["loaded"]), skipped=len(report["skipped"]),
                 rejected=len(report["rejected"]), seconds=seconds, rate=rate, jobs=jobs)]
    errors = errors or {}
    for r in report["rejected"]:
        err = errors.get((r["id"], r["line"]))
        if lang == "en" or err is None or reason is None:
            lines.append(f"  rejected: {r['reason']}" if lang == "en" else
                         "  " + say("record", lang, id=r["id"], line=r["line"], reason=r["reason"]))
        else:
            lines.append("  " + say("record", lang, id=r["id"], line=r["line"], reason=reason(err)))
    return "\n".join(lines) + "\n"
