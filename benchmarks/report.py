"""Markdown tables from a bench.py results file (what the README shows).

    python benchmarks/report.py [benchmarks/results.json]
"""
from __future__ import annotations

import json
import sys
from pathlib import Path


def _num(x, digits=1):
    if x is None:
        return "–"
    if x >= 100:
        return f"{x:,.0f}"
    return f"{x:.{digits}f}" if x >= 1 else f"{x:.2g}"


def report(results: dict) -> str:
    sizes = [str(s) for s in results["meta"]["sizes"]]
    stacks = list(results["stacks"])
    out = ["| stack | work | " + " | ".join(f"{int(s):,} casts: ms/cast (median) · casts/s · peak MB" for s in sizes) + " |",
           "|---|---|" + "---|" * len(sizes)]
    for s in stacks:
        cells = []
        for n in sizes:
            r = results["runs"].get(n, {}).get(s, {})
            if "ms_per_cast_median" in r:
                mem = r["peak_rss_mb"]
                if r.get("peak_rss_children_mb") and s in ("swrl-pellet", "engine-batch-2proc"):
                    child = "JVM" if s == "swrl-pellet" else "worker"
                    mem_s = f"{_num(mem)} + {child} {_num(r['peak_rss_children_mb'])}"
                else:
                    mem_s = _num(mem)
                cells.append(f"{_num(r['ms_per_cast_median'], 2)} · {_num(r['casts_per_s'])} · {mem_s}")
            else:
                cells.append(r.get("skipped") or ("error" if "error" in r else "–"))
        out.append(f"| {s} | {results['stacks'][s]['work']} | " + " | ".join(cells) + " |")
    out.append("")
    out.append("| ratio (ms/cast, median) | " + " | ".join(f"{int(s):,}" for s in sizes) + " |")
    out.append("|---|" + "---|" * len(sizes))
    for s in stacks:
        bases = results["stacks"][s].get("ratio_base") or []
        for base in [bases] if isinstance(bases, str) else bases:  # older results files: one base
            faster = s in ("oracle", "najia")  # shown as how much slower the engine is
            cells = []
            for n in sizes:
                r = results["runs"].get(n, {}).get(s, {})
                v = r.get("ratio_to_" + base)
                if v is not None and faster:
                    v = 1 / v
                cells.append(f"{v:,.1f}×" if v is not None else "–")
            label = f"{base} / {s}" if faster else f"{s} / {base}"
            out.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(out)


if __name__ == "__main__":
    path = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent / "results.json")
    print(report(json.loads(path.read_text(encoding="utf-8"))))
