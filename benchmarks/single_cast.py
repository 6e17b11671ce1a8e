"""Where a new cast's time goes in `liuyao_kg.cast` (warm): the rules the engine evaluates, and the chart's queries.

    python benchmarks/single_cast.py --out benchmarks/results-single-cast.json

A store casts once per topic (as `cold_start.warm()` does), then `--casts` new seeded casts (the same, `cold_start.new_casts`),
the engine timing each rule evaluation (`Engine.timings`: pyoxigraph's query and reading its triples, wall clock).
Reported per cast: the evaluations in the plan's levels and in its recursive strata, how many of them found
nothing and what those cost, and the rules that cost most. Then the chart's named queries (`CHART_QUERIES`, the
reading's and `judgment-editions`) on the last cast, one by one, median of `--repeat` each: what a chart costs
beyond the derivation. Query times are summed over threads (a level's rules run on two), so they can exceed wall.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from liuyao_kg.load import derive_with, engine_for

def measure(casts: int = 40, repeat: int = 9, top: int = 10) -> dict:
    from cold_start import WARM_TOPICS, new_casts

    import liuyao_kg
    from liuyao_kg import queries
    from liuyao_kg.chart import CHART_QUERIES
    from liuyao_kg.store.embedded import KnowledgeGraph
    from liuyao_kg.chart.reading import READING_QUERIES

    kg = derive_with(KnowledgeGraph(), backend="oxigraph")  # the reference engine: its per-rule timings
    for topic in WARM_TOPICS:
        liuyao_kg.cast("節之中孚", month="寅", day="辛亥", topic=topic, kg=kg)
    engine = engine_for(kg)
    engine.timings = timings = {}
    walls, iri = [], None
    for spec, month, day, topic in new_casts(casts):
        start = time.perf_counter()
        iri = liuyao_kg.cast(spec, month=month, day=day, topic=topic, kg=kg)["cast"]
        walls.append(time.perf_counter() - start)
    engine.timings = None
    recursive = {r for members, rec in engine.plan.groups if rec for r in members}

    def per_cast(rules, field: int, scale: float = 1.0) -> float:
        return round(sum(timings[r][field] for r in rules) * scale / casts, 2)

    levels = [r for r in timings if r not in recursive]
    in_strata = [r for r in timings if r in recursive]
    chart: dict[str, float] = {}
    for name in [*CHART_QUERIES, *READING_QUERIES, "judgment-editions"]:
        params = {"judged": iri} if name == "judgment-editions" else {"cast": iri}
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            queries.run(kg, name, **params)
            times.append(time.perf_counter() - start)
        chart[name] = round(statistics.median(times) * 1000, 2)
    costly = sorted(timings.items(), key=lambda kv: -kv[1][2])[:top]
    return {
        "casts": casts,
        "new_cast_median_ms": round(statistics.median(walls) * 1000, 1),
        "threads": engine.threads,
        "evaluations_per_cast": {"levels": per_cast(levels, 0), "recursive_strata": per_cast(in_strata, 0)},
        "found_nothing_per_cast": {"levels": per_cast(levels, 1), "recursive_strata": per_cast(in_strata, 1)},
        "query_ms_per_cast": {"levels": per_cast(levels, 2, 1000), "recursive_strata": per_cast(in_strata, 2, 1000)},
        "query_ms_per_cast_finding_nothing": {"levels": per_cast(levels, 3, 1000),
                                              "recursive_strata": per_cast(in_strata, 3, 1000)},
        "costliest_rules": [{"rule": r, "ms_per_cast": round(t[2] * 1000 / casts, 3),
                             "evaluations_per_cast": round(t[0] / casts, 2), "found_nothing_per_cast": round(t[1] / casts, 2)}
                            for r, t in costly],
        "chart_queries_ms": chart,
        "chart_queries_total_ms": round(sum(chart.values()), 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--casts", type=int, default=40, help="new casts timed (default 40)")
    ap.add_argument("--repeat", type=int, default=9, help="runs of each chart query, the median kept (default 9)")
    ap.add_argument("--out", type=Path, help="write the results as JSON here")
    args = ap.parse_args(argv)
    from results_file import emit

    emit(measure(args.casts, args.repeat), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
