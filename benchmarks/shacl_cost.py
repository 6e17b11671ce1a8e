"""What SHACL validation of a cast's asserted graph costs, against deriving and storing the cast, in one run.

    python benchmarks/shacl_cost.py [N]

Casts N distinct casts (default 60: 節之中孚 on successive days) into a fresh in-memory store and times, per cast,
the SHACL check (liuyao_kg.loaders.shapes.check_cast) and the whole liuyao_kg.cast call, which includes it; then the
batch loader's check of the same casts, one pySHACL run per chunk of liuyao_kg.load.records.SHAPES_CHUNK casts
(liuyao_kg.loaders.shapes.cast_graph_violations), per cast.
"""
from __future__ import annotations

import statistics
import sys
import time

import liuyao_kg
from liuyao_kg.store.embedded import KnowledgeGraph
from liuyao_kg.loaders.cast_input import make_cast_input
from liuyao_kg.loaders.rdf import cast_quads
from liuyao_kg.load.records import SHAPES_CHUNK as CHUNK
from liuyao_kg.loaders.shapes import cast_graph_violations, check_cast


STEMS, BRANCHES = "甲乙丙丁戊己庚辛壬癸", "子丑寅卯辰巳午未申酉戌亥"
JIAZI = [STEMS[i % 10] + BRANCHES[i % 12] for i in range(60)]


def main(n: int = 60) -> None:
    kg = KnowledgeGraph()
    liuyao_kg.cast("節", month="寅", day="甲子", kg=kg)  # warm: engine, shapes parsed, pySHACL imported
    days = [JIAZI[i % 60] for i in range(1, n + 1)]
    shacl, whole = [], []
    for day in days:
        quads = cast_quads(make_cast_input("節之中孚", month="寅", day=day, topic="求財"))
        t0 = time.perf_counter()
        check_cast(quads)
        shacl.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        liuyao_kg.cast("節之中孚", month="寅", day=day, topic="求財", kg=kg)
        whole.append(time.perf_counter() - t0)
    s, w = statistics.median(shacl), statistics.median(whole)
    print(f"{n} casts: SHACL check median {s * 1000:.1f} ms, whole cast (derivation + check + store) median "
          f"{w * 1000:.1f} ms; the check is {s / w:.0%} of a cast")
    casts = [make_cast_input("節之中孚", month="寅", day=day, topic="求財") for day in days]
    t0 = time.perf_counter()
    for i in range(0, n, CHUNK):
        assert cast_graph_violations(q for ci in casts[i:i + CHUNK] for q in cast_quads(ci)) == {}
    c = (time.perf_counter() - t0) / n
    print(f"batch check, one pySHACL run per chunk of {CHUNK}: {c * 1000:.2f} ms per cast "
          f"({s / c:.1f}x cheaper than one run per cast)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 60)
