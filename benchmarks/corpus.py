"""What the corpus layer costs: `corpus add` of each Wikisource edition, and the chart's extra query.

    python benchmarks/corpus.py [--corpora ../shared/corpora] [--casts 30]

In one process, on an in-memory store: the time to build and write each edition's graph (reading,
stripping, aligning, segmenting, proposing parallels: `add_edition`), then, for --casts casts derived in
the same store, the median per-cast time of the `judgment-editions` query (a judgment's passage in every
edition) against `cast-judgments` and the whole chart. Prints one JSON object; nothing is written to disk.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPECS = ["節之中孚", "大畜之蒙", "兌之節", "乾之姤", "坤之復", "屯之比", "蒙之損", "需之井", "訟之否", "師之坤"]


def _per_cast(fn, iris) -> float:
    times = []
    for iri in iris:
        t = time.perf_counter()
        fn(iri)
        times.append(time.perf_counter() - t)
    return round(statistics.median(times) * 1000, 1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpora", type=Path, default=ROOT.parent / "shared" / "corpora")
    ap.add_argument("--casts", type=int, default=30)
    args = ap.parse_args()

    import liuyao_kg
    from liuyao_kg import queries
    from liuyao_kg.chart import chart
    from liuyao_kg.corpus.add import add_edition
    from liuyao_kg.store.embedded import KnowledgeGraph

    kg = KnowledgeGraph()
    out: dict = {"add_seconds": {}}
    for file, work in (("huozhulin.wikisource.txt", "火珠林"), ("huangjince.wikisource.txt", "黃金策")):
        t = time.perf_counter()
        rep = add_edition(kg, args.corpora / file, work, "wikisource")
        out["add_seconds"][file] = round(time.perf_counter() - t, 2)
        out.setdefault("quads", {})[file] = rep.quads
    iris = []
    for i in range(args.casts):
        c = liuyao_kg.cast(SPECS[i % len(SPECS)], month="寅午戌子辰申"[i % 6], day=["辛亥", "甲子", "丙寅", "癸未"][i % 4],
                           topic=["求財", "疾病", "婚姻"][i % 3], kg=kg)
        iris.append(c["cast"])
    out["median_ms_per_cast"] = {
        "judgment-editions": _per_cast(lambda i: queries.run(kg, "judgment-editions", judged=i), iris),
        "cast-judgments": _per_cast(lambda i: queries.run(kg, "cast-judgments", cast=i), iris),
        "chart": _per_cast(lambda i: chart(kg, i), iris),
    }
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()
