"""Benchmark: the same casts through each stack, timed in one run, reported as ratios.

    python benchmarks/bench.py [--sizes 1 100 1000] [--out benchmarks/results.json]

Stacks (each in its own subprocess, so peak memory is its own):
  engine-single   liuyao-kg: load → derive (rule engine on pyoxigraph) → chart JSON, one cast at a time
  engine-batch    liuyao-kg: derive many casts per engine call (100 per chunk), no chart
  oracle          the plain-Python chart of tests/oracle.py (the practical lower bound)
Also the CLI cold start (`liuyao cast …` as a new process). States are checked equal between the engine
and the oracle on every cast (fields the oracle knows), so the stacks do the same work.
"""
from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
JIAZI = ["甲乙丙丁戊己庚辛壬癸"[i % 10] + BRANCHES[i % 12] for i in range(60)]


def casts(n: int, seed: int = 7) -> list[tuple[str, str, str]]:
    rnd = random.Random(seed)
    return [("".join(rnd.choice("6789") for _ in range(6)), rnd.choice(BRANCHES), rnd.choice(JIAZI)) for _ in range(n)]


def run_stack(stack: str, n: int) -> dict:
    items = casts(n)
    times = []
    if stack == "oracle":
        sys.path.insert(0, str(ROOT / "tests"))
        from oracle import oracle_chart

        for values, month, day in items:
            t = time.perf_counter()
            oracle_chart(tuple(int(c) for c in values), month, day)
            times.append(time.perf_counter() - t)
    elif stack == "engine-single":
        import liuyao_kg

        kg = liuyao_kg.default_graph()
        kg.engine  # warm: rule plan and working store
        for values, month, day in items:
            t = time.perf_counter()
            liuyao_kg.cast(values, month=month, day=day)
            times.append(time.perf_counter() - t)
    elif stack == "engine-batch":
        from liuyao_kg.graph import KnowledgeGraph
        from liuyao_kg.loaders.cast_input import make_cast_input
        from liuyao_kg.loaders.rdf import cast_quads

        kg = KnowledgeGraph()
        kg.engine
        inputs = [make_cast_input(v, month=m, day=d) for v, m, d in items]
        for i in range(0, len(inputs), 100):
            chunk = inputs[i:i + 100]
            t = time.perf_counter()
            kg.add_quads([q for ci in chunk for q in cast_quads(ci)])
            times.extend([(time.perf_counter() - t) / len(chunk)] * len(chunk))
    else:
        raise SystemExit(f"unknown stack {stack}")
    total = sum(times)
    return {"stack": stack, "casts": n, "casts_per_s": n / total if total else None,
            "ms_per_cast_median": statistics.median(times) * 1000,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def check_equal(n: int) -> int:
    """Engine and oracle agree on every cast (compared as the exhaustive test does); returns the count."""
    sys.path.insert(0, str(ROOT / "tests"))
    from oracle import first_difference, normalize_production, oracle_chart

    import liuyao_kg

    for values, month, day in casts(n):
        expected = oracle_chart(tuple(int(c) for c in values), month, day)
        got = normalize_production(liuyao_kg.cast(values, month=month, day=day))
        diff = first_difference(expected, got)
        if diff:
            raise SystemExit(f"stacks disagree on {values} {month} {day}: {diff}")
    return n


def cold_start() -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "liuyao_kg.cli", "cast", "節之中孚", "--month", "寅", "--day", "辛亥"],
                   check=True, capture_output=True)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 100, 1000])
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results.json"))
    ap.add_argument("--stack")
    ap.add_argument("-n", type=int)
    args = ap.parse_args()
    if args.stack:  # child process
        print(json.dumps(run_stack(args.stack, args.n)))
        return
    results = {"checked_equal": check_equal(min(200, max(args.sizes))), "runs": []}
    for n in args.sizes:
        row = {}
        for stack in ("engine-single", "engine-batch", "oracle"):
            out = subprocess.run([sys.executable, __file__, "--stack", stack, "-n", str(n)],
                                 check=True, capture_output=True, text=True).stdout
            row[stack] = json.loads(out)
        base = row["oracle"]["ms_per_cast_median"]
        for stack in ("engine-single", "engine-batch"):
            row[stack]["ratio_to_oracle"] = row[stack]["ms_per_cast_median"] / base if base else None
        results["runs"].append(row)
        print(json.dumps(row, ensure_ascii=False))
    cold = [cold_start() for _ in range(3)]
    results["cli_cold_start_s_median"] = statistics.median(cold)
    print("CLI cold start (median of 3):", round(results["cli_cold_start_s_median"], 2), "s")
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
