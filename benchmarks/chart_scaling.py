"""How the queries of one cast's chart grow with the number of casts stored beside it.

    python benchmarks/chart_scaling.py [--sizes 5,205] [--sample 5] [--out benchmarks/results-chart-scaling.json]

A per-cast query reads only that cast's graphs and the layers (`KnowledgeGraph.select`), so its cost should not
depend on how many other casts the store holds (what `liuyao serve` over a loaded store pays for every chart). For
each size, seeded casts are derived into one in-memory store until it holds that many; then each of the chart's
named queries (`chart.CHART_QUERIES`, `reading.READING_QUERIES`) is timed on the first `--sample` casts (no more
than the smallest size holds), three times each, and the median reported in ms, with its ratio to the smallest size. Rows are checked to be the same at every
size for the casts sampled (a query's answer about one cast cannot depend on the others).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from liuyao_kg.load import add_casts

def seeded_casts(n: int):
    """(spec, month, day, year, topic): the benchmarks' seeded casts (`bench.casts`), every fourth with a year
    pillar so the year's relations are among those queried."""
    from bench import casts

    for i, (spec, month, day, topic) in enumerate(casts(n)):
        yield spec, month, day, "甲子" if i % 4 == 0 else None, topic


def measure(sizes: list[int], sample: int) -> dict:
    import pyoxigraph as ox

    from liuyao_kg import queries
    from liuyao_kg.chart import CHART_QUERIES
    from liuyao_kg.store.embedded import KnowledgeGraph
    from liuyao_kg.loaders.cast_input import make_cast_input
    from liuyao_kg.loaders.rdf import cast_quads
    from liuyao_kg.chart.reading import READING_QUERIES

    names = list(CHART_QUERIES) + list(READING_QUERIES)
    kg = KnowledgeGraph()
    kg.store  # the whole layers in, before any timing
    casts, made = [], seeded_casts(max(sizes))
    out, answers = {}, {}
    for size in sorted(sizes):
        for spec, month, day, year, topic in made:
            if len(casts) >= size:
                break
            casts += add_casts(kg, cast_quads(make_cast_input(spec, month=month, day=day, year=year, topic=topic)))
        row = {}
        for name in names:
            text, times = queries.get(name).text, []
            for cast in casts[:sample] * 3:
                start = time.perf_counter()
                rows = kg.select(text, {"cast": ox.NamedNode(cast)})
                times.append(time.perf_counter() - start)
                key = json.dumps(sorted(json.dumps(r, sort_keys=True, ensure_ascii=False, default=str) for r in rows))
                if answers.setdefault((name, cast), key) != key:
                    raise AssertionError(f"{name} answered otherwise about {cast} with {size} casts stored")
            row[name] = round(statistics.median(times) * 1000, 2)
        out[str(size)] = row
    first = out[str(min(sizes))]
    return {"sizes": sorted(sizes), "sample": sample, "ms_median": out,
            "ratio_to_smallest": {str(s): {n: round(v / first[n], 1) if first[n] else None for n, v in row.items()}
                                  for s, row in ((int(k), v) for k, v in out.items())}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="5,205", help="numbers of casts stored, comma-separated")
    ap.add_argument("--sample", type=int, default=5, help="casts whose queries are timed at each size")
    ap.add_argument("--out", help="also write the JSON here")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    result = {"date": time.strftime("%Y-%m-%d"), "cpus": os.cpu_count(), "loadavg_at_start": os.getloadavg(),
              **measure(sizes, max(1, min(args.sample, min(sizes))))}
    text = json.dumps(result, indent=2, ensure_ascii=False)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
