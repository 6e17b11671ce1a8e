"""What a batch costs the columnar back end: a part fixed whatever its size, a part per cast, and later batches.

    python benchmarks/batch_cost.py --out benchmarks/results-batch-cost.json

Every figure is CPU seconds (`time.process_time`) of `ColumnarEngine.derive_triples` with every rule, one DuckDB
thread and a sink that reads nothing, on the benchmarks' seeded casts (`bench.casts`; their quads built beforehand).

Each part runs in a process of its own (a batch leaves the process slower for the next: see `successive`).

- `sizes`: for each of `--sizes`, a fresh engine as a job or a Dask worker builds it (`parquet_load.columnar_engine`),
  one batch. A least-squares line through them gives `fixed_s` + `per_cast_ms` × casts.
- `by_kind`: the largest size's batch split by `ColumnarEngine.timings`: the chapter rules compiled over the wide
  tables (`wide`), every other rule (`generic`), and the rest (the condition extensions, the pivots, the bookkeeping
  between levels).
- `successive`: `--repeat` batches of `--repeat-size` casts (each its own seed) through one engine, and in another
  process the same batches each through an engine built for it (its build timed apart, `build_s`): what a job's or a
  worker's later partitions cost against its first.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path


def _quads(n: int, seed: int) -> list:
    """The asserted quads of `n` seeded casts, as one batch."""
    from bench import _inputs, casts

    return [q for quads in _inputs(casts(n, seed=seed)) for q in quads]


def _derive(engine, quads: list) -> float:
    start = time.process_time()
    engine.derive_triples(quads, sink=lambda con: [])
    return time.process_time() - start


def _fit(points: list[tuple[int, float]]) -> tuple[float, float]:
    """(intercept, slope) of the least-squares line through (casts, seconds)."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    slope = sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0
    return my - slope * mx, slope


def _size(n: int) -> dict:
    """One batch of `n` casts through a fresh engine, split by kind (`ColumnarEngine.timings`)."""
    from liuyao_kg.parquet_load import columnar_engine

    quads = _quads(n, seed=n)
    engine = columnar_engine(threads=1)
    engine.timings = {}
    seconds = _derive(engine, quads)
    wide = sum(t for iri, t in engine.timings.items() if iri in engine.wide)
    generic = sum(t for iri, t in engine.timings.items() if iri not in engine.wide)
    engine.close()
    return {"casts": n, "cpu_s": round(seconds, 2), "wide_s": round(wide, 2), "generic_s": round(generic, 2),
            "rest_s": round(seconds - wide - generic, 2)}


def _successive(repeat: int, size: int, fresh: bool) -> dict:
    """`repeat` batches of `size` casts through one engine, or each through an engine built for it."""
    from liuyao_kg.parquet_load import columnar_engine

    batches = [_quads(size, seed=1000 + i) for i in range(repeat)]
    seconds, builds, engine = [], [], None
    for quads in batches:
        if engine is None or fresh:
            if engine is not None:
                engine.close()
            start = time.process_time()
            engine = columnar_engine(threads=1)
            builds.append(time.process_time() - start)
        seconds.append(round(_derive(engine, quads), 2))
    engine.close()
    return {"cpu_s": seconds, "build_s": round(sorted(builds)[len(builds) // 2], 2)}


def _in_process(part: list[str]) -> dict:
    """A part measured in a process of its own: what one batch leaves behind in a process slows the next
    (docs/benchmarks.md, fifteenth round), so no part inherits another's."""
    done = subprocess.run([sys.executable, __file__, "--part", *part], check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


def measure(sizes: list[int], repeat: int, repeat_size: int) -> dict:
    curve = [_in_process(["size", str(n)]) for n in sizes]
    fixed, slope = _fit([(p["casts"], p["cpu_s"]) for p in curve]) if len(curve) > 1 else (0.0, 0.0)
    one = _in_process(["successive", str(repeat), str(repeat_size), "one"])
    fresh = _in_process(["successive", str(repeat), str(repeat_size), "fresh"])
    return {
        "sizes": [{"casts": p["casts"], "cpu_s": p["cpu_s"]} for p in curve],
        "fixed_s": round(fixed, 2),
        "per_cast_ms": round(slope * 1000, 3),
        "by_kind": {k: v for k, v in curve[-1].items() if k != "cpu_s"} if curve else {},
        "successive": {"casts": repeat_size, "one_engine_cpu_s": one["cpu_s"], "fresh_engine_cpu_s": fresh["cpu_s"],
                       "build_s": fresh["build_s"]},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="50,200,1000,2500,5000", help="batch sizes, comma-separated")
    ap.add_argument("--repeat", type=int, default=6, help="successive batches (default 6)")
    ap.add_argument("--repeat-size", type=int, default=1000, help="casts in each successive batch (default 1000)")
    ap.add_argument("--out", type=Path, help="write the results as JSON here")
    ap.add_argument("--part", nargs="+", help=argparse.SUPPRESS)  # one part, in the process measure() starts
    args = ap.parse_args(argv)
    if args.part:
        kind, *rest = args.part
        part = _size(int(rest[0])) if kind == "size" else _successive(int(rest[0]), int(rest[1]), rest[2] == "fresh")
        print(json.dumps(part))
        return 0
    sizes = [int(x) for x in args.sizes.split(",") if x]
    from results_file import emit

    emit(measure(sizes, args.repeat, args.repeat_size), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
