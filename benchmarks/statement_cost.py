"""What one rule evaluation costs on each engine, for one cast: the fixed cost that bounds single casts.

    python benchmarks/statement_cost.py --out benchmarks/results-statement-cost.json

The README cast (節之中孚, 寅 month, 辛亥 day, 求財) is derived, then every rule is evaluated once more on
the same, fully derived data, timed (best of 5, wall clock, one thread; DuckDB best of 3):

- **pyoxigraph**: the rule's CONSTRUCT on the Engine's working store holding the kept reference triples,
  the cast and what was inferred;
- **DuckDB**: the rule's generated SQL (its solutions and template, without the INSERT) on
  ColumnarEngine's tables;
- **SQLite**: the same SQL on SqliteEngine's tables (the statement it runs: for a rule too deep for
  SQLite's parser, the rewritten one); its rows are compared with DuckDB's, rule by rule.

A derivation evaluates only the rules whose topic and required keys the cast has (about 270 of 1,435), so
the totals over all rules bound a cast's rule cost; `derive_ms` is a whole derivation of the cast (median
of 9, after one to prepare), bookkeeping included.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path


def _best(fn, n: int = 5) -> float:
    best = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1e6


def _select(statement: str) -> str:
    """A rule's INSERT INTO new WITH … as the SELECT it inserts."""
    return "WITH " + statement.split(" WITH ", 1)[1]


def measure() -> dict:
    import pyoxigraph as ox

    from liuyao_kg.derivation import build_engine
    from liuyao_kg.loaders.cast_input import make_cast_input
    from liuyao_kg.loaders.rdf import cast_quads
    from liuyao_kg.parquet_load import columnar_engine

    asserted = list(cast_quads(make_cast_input("節之中孚", month="寅", day="辛亥", topic="求財")))
    engines = {"pyoxigraph": build_engine(), "duckdb": columnar_engine(threads=1),
               "sqlite": build_engine(backend="sqlite")}
    out: dict = {"derive_ms": {}}
    for name, engine in engines.items():
        engine.derive(asserted)
        times = []
        for _ in range(9):
            t0 = time.perf_counter()
            engine.derive(asserted)
            times.append(time.perf_counter() - t0)
        out["derive_ms"][name] = round(statistics.median(times) * 1000, 1)
    engine = engines["pyoxigraph"]
    inferred = engine.derive(asserted)
    work = engine._work  # the kept reference triples; the cast and its inferences are added back
    work.extend(ox.Quad(q.subject, q.predicate, q.object) for q in asserted + inferred)
    costs: dict[str, dict[str, float]] = {"pyoxigraph": {}, "duckdb": {}, "sqlite": {}}
    rows: dict[str, dict[str, list]] = {"duckdb": {}, "sqlite": {}}
    for iri, query in engine._queries.items():
        costs["pyoxigraph"][iri] = _best(lambda: list(work.query(query)))
    for name, runs in (("duckdb", 3), ("sqlite", 5)):
        col = engines[name]

        def sink(con, col=col, name=name, runs=runs):
            for iri, statement in col._queries.items():
                if statement:
                    select = _select(statement)
                    costs[name][iri] = _best(lambda: con.execute(select).fetchall(), runs)
                    rows[name][iri] = sorted(con.execute(select).fetchall(), key=repr)
            return []

        col.derive_triples(asserted, sink=sink)

    def stats(xs):
        xs = list(xs)
        return {"rules": len(xs), "median_us": round(statistics.median(xs), 1), "total_ms": round(sum(xs) / 1000, 1)}

    out.update({name: stats(c.values()) for name, c in costs.items()})
    out["sqlite_same_rows_as_duckdb"] = sum(rows["sqlite"][i] == rows["duckdb"].get(i) for i in rows["sqlite"])
    out["sqlite_rewritten_for_its_parser"] = len(engines["sqlite"].rewritten)
    out["meta"] = {"cast": "節之中孚 寅 辛亥 求財", "timer": "wall; rules best of 5 (DuckDB 3); derive_ms median of 9",
                   "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="write the JSON here (default: print it)")
    args = ap.parse_args(argv)
    result = measure()
    text = json.dumps(result, ensure_ascii=False, indent=2) + "\n"
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
