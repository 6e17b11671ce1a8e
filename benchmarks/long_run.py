"""A process that casts without end (an app calling `liuyao_kg.cast`, `liuyao serve` in memory): time and memory.

    python benchmarks/long_run.py [--casts 3000] [--every 500] [--keep 1000] [--out benchmarks/results-long-run.json]

Each mode runs in a fresh process: `liuyao_kg.cast` of `--casts` distinct seeded casts (`bench.casts`, every fourth
with a year) into an in-memory KnowledgeGraph that keeps every cast (`unbounded`) and into one that keeps the
`--keep` most recent (`kept`: `KnowledgeGraph(keep_casts=…)`, what the default graph does with
`liuyao_kg.KEEP_CASTS`). At every `--every` casts: the median ms of the last 40 casts (derivation, store and chart),
the process's resident memory (MB) and the casts the store holds. The first and last charts of the kept run are
checked equal to the unbounded run's (a store's bound changes what it holds, never a chart).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from liuyao_kg.namespaces import CAST


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def run(casts: int, every: int, keep: int | None) -> dict:
    sys.path.insert(0, str(Path(__file__).parent))
    import liuyao_kg
    from bench import casts as seeded
    from liuyao_kg.graph import KnowledgeGraph

    kg = KnowledgeGraph(keep_casts=keep)
    times, points, charts = [], [], []
    for i, (spec, month, day, topic) in enumerate(seeded(casts), 1):
        start = time.perf_counter()
        chart = liuyao_kg.cast(spec, month=month, day=day, year="甲子" if i % 4 == 0 else None, topic=topic, kg=kg)
        times.append(time.perf_counter() - start)
        if i in (1, casts):
            charts.append(chart)
        if i % every == 0 or i == casts:
            held = sum(1 for g in kg._ox.named_graphs() if g.value.startswith(CAST) and not g.value.endswith("/inferred"))
            points.append({"casts": i, "ms_median_last_40": round(statistics.median(times[-40:]) * 1000, 1),
                           "rss_mb": round(_rss_mb()), "casts_held": held})
    return {"points": points, "charts": charts}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--casts", type=int, default=3000)
    ap.add_argument("--every", type=int, default=500)
    ap.add_argument("--keep", type=int, default=1000)
    ap.add_argument("--out", help="also write the JSON here")
    ap.add_argument("--mode", choices=["unbounded", "kept"], help=argparse.SUPPRESS)  # one run, in a child process
    args = ap.parse_args()
    if args.mode:
        print(json.dumps(run(args.casts, args.every, args.keep if args.mode == "kept" else None), ensure_ascii=False))
        return
    modes = {}
    for mode in ("unbounded", "kept"):
        child = subprocess.run([sys.executable, __file__, "--mode", mode, "--casts", str(args.casts), "--every",
                                str(args.every), "--keep", str(args.keep)], check=True, capture_output=True, text=True)
        modes[mode] = json.loads(child.stdout)
    same = modes["kept"].pop("charts") == modes["unbounded"].pop("charts")
    if not same:
        raise AssertionError("a chart read otherwise from the store that keeps fewer casts")
    result = {"date": time.strftime("%Y-%m-%d %H:%M"), "cpus": os.cpu_count(), "loadavg_at_start": os.getloadavg(),
              "casts": args.casts, "keep": args.keep, "charts_equal": same,
              **{mode: r["points"] for mode, r in modes.items()}}
    text = json.dumps(result, indent=2, ensure_ascii=False)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
