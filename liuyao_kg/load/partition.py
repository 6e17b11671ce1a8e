"""One partition of a load: its records checked against the SHACL shapes, derived, and written as what the load's
sinks take (liuyao_kg.load.pipeline): the N-Quads file a store bulk-loads, and the partition's three Parquet files.

No rule joins two casts, so partitions are independent: this runs wherever the load's workers are (this process, a
worker process, a Dask worker), builds its engine there (reasoner.engines.engine: once a process) and returns only
counts, ids and file names.

The Parquet files: `states-<part>.parquet` (cast, state, class, of, position, rule), `judgments-<part>.parquet` (cast,
judgment, rule, lines) and `casts-<part>.parquet` (cast, record, primary, changed, topic, reading_school, verdict,
favourable, timing: the record's id, the hexagrams' names, the question, the reading's verdict and its 應期
branches in rank order) — IRIs as plain strings, `rule` the IRI the result was derived from (prov:wasDerivedFrom),
`position`/`lines` the line numbers 1–6: rows a data user reads without a join.
"""
from __future__ import annotations

from pathlib import Path

from liuyao_kg.loaders.errors import BatchError
from liuyao_kg.reasoner.engines import DEFAULT_BACKEND, RuleSource, engine as engine_of

#: the reference engine's in-memory working store keeps removed quads as history until it is rebuilt (every
#: Engine.REBUILD_EVERY derivations: a worker's memory grew by hundreds of MB, benchmarks/load.py); a load
#: rebuilds it every few partitions instead
REBUILD_EVERY_PARTITIONS = 16


def derive_partition(records: list, part: int, *, rules: RuleSource | None = None, backend: str = DEFAULT_BACKEND,
                     engine=None, abort: bool = False, source: str = "the file", parquet: str | None = None,
                     nquads: str | None = None) -> dict:
    """Check one partition's records [(id, CastInput, line)] against the SHACL shapes and derive the good ones
    with `engine`, or (where it is not at hand: another process) the engine of `rules` (default: the package's) and
    `backend`.

    Writes the partition's Parquet files into the directory `parquet`, and into the directory `nquads` the file
    holding the good casts' asserted and inferred graphs (what a store bulk-loads); None: no such file. Returns the
    ids `loaded`, the `rejected` records as the load's report lists them, the shapes' `violations` (what a later
    duplicate of a record is rejected with), the good casts' IRIs (`casts`), and what `derive_asserted` returns.
    `abort`: a record the shapes reject raises BatchError before anything is written (the load's scan found none,
    so the file changed while loading)."""
    from liuyao_kg.load.records import shape_rejections
    from liuyao_kg.loaders.rdf import cast_quads

    quads = [cast_quads(ci) for _, ci, _ in records]  # built once: for the shapes and for the derivation
    bad = shape_rejections(records, quads)
    if bad and abort:
        raise BatchError(f"{source}: {len(bad)} record(s) rejected; the file changed while loading", list(bad.values()))
    good = [i for i, (rid, _, _) in enumerate(records) if rid not in bad]
    out = {"loaded": [records[i][0] for i in good], "casts": [records[i][1].iri for i in good],
           "rejected": [{"id": rid, "line": line, "reason": str(bad[rid])} for rid, _, line in records if rid in bad],
           "violations": [(ci.iri, bad[rid].message, bad[rid].field, bad[rid].value)
                          for rid, ci, _ in records if rid in bad]}
    if not good:
        return out | {"states": 0, "judgments": 0, "nquads": None, "inferred": 0}  # no file: nothing to write
    eng = engine or engine_of(rules or RuleSource(), backend)
    if hasattr(eng, "REBUILD_EVERY"):
        eng.REBUILD_EVERY = min(eng.REBUILD_EVERY, REBUILD_EVERY_PARTITIONS)
    return out | derive_asserted(eng, [quads[i] for i in good], part, parquet=parquet, nquads=nquads,
                                 ids=[records[i][0] for i in good])


def derive_asserted(engine, casts: list, part: int, *, parquet: str | None = None, nquads: str | None = None,
                    ids: list | None = None, asserted: bool = True) -> dict:
    """Derive a partition's casts (`casts`: the asserted quads of each; `ids`: their records' ids) with `engine` and
    write its Parquet files (into the directory `parquet`) and its N-Quads file (into the directory `nquads`: the
    inferred graphs, a cast's quads together, then, if `asserted`, the asserted ones: what a store loads; without,
    what an upgrade replaces). Returns the rows written (`states`,
    `judgments`), the N-Quads file (`nquads`) and the inferred quads in it (`inferred`).

    The native engine derives a cast at a time, into an index the rows and the compiled queries read; the reference
    engine derives the partition in one evaluation of each rule, and its quads are indexed a cast at a time for the
    rows."""
    import pyoxigraph as ox

    from liuyao_kg.namespaces import inferred_graph
    from liuyao_kg.reasoner.native.nquads import quads_text

    states: list[tuple] = []
    judgments: list[tuple] = []
    readings: list[tuple] = []
    native = hasattr(engine, "derive_index")
    if not native:
        by_graph: dict[str, list] = {}
        for q in engine.derive([q for qs in casts for q in qs]):
            by_graph.setdefault(q.graph_name.value, []).append(q)
    path = Path(nquads) / f"part-{part:06d}.nq" if nquads else None
    text = open(path, "w", encoding="utf-8") if path else None
    inferred = 0
    try:
        for k, quads in enumerate(casts):
            cast = quads[0].graph_name.value
            if native:
                index, start = engine.derive_index(quads)
                triples = index.added[start:]
                if text is not None:
                    text.write(quads_text(triples, inferred_graph(cast)))
                inferred += len(triples)
            else:
                mine = by_graph.get(inferred_graph(cast), [])
                if text is not None and mine:
                    text.write(ox.serialize(mine, format=ox.RdfFormat.N_QUADS).decode())
                inferred += len(mine)
                if parquet is None:
                    continue
                index, triples = _index_of(quads, mine)
            if parquet is not None:
                _rows(index, triples, states, judgments)
                readings.append(_reading_row(engine, index, cast, None if ids is None else ids[k], native))
        if text is not None and asserted:  # the asserted graphs after the inferred ones: one file to load
            for quads in casts:
                text.write(ox.serialize(quads, format=ox.RdfFormat.N_QUADS).decode())
    finally:
        if text is not None:
            text.close()
    out = {"nquads": str(path) if path else None, "inferred": inferred, "states": 0, "judgments": 0}
    if parquet is not None:
        out |= _write_rows(Path(parquet), part, states, judgments, readings)
    return out


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


