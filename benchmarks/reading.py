"""What the reading adds per cast: derivation with and without the reading rules, and the reading's assembly.

    python benchmarks/reading.py --casts 200 --chunk 50 --seed 11

One run, the same seeded casts (random lines, date, topic) through: (a) the engine with every rule but those of
rules/reading.ttl, (b) the engine with every rule, on one-topic chunks of --chunk casts as `liuyao load` derives
them (liuyao_kg.load.pipeline.chunks_by_topic), the two alternating chunk by chunk so a shared machine's load hits both;
(c) for the first --charts casts, the chart JSON read back without the reading and with it (liuyao_kg.chart.reading:
the named reading queries and the calendar dates). Prints JSON: ms per cast of each and the ratio b/a.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from liuyao_kg.load import add_casts

BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
TOPICS = "求財 婚姻 疾病 身命 產育 田蠶 天時 國家 征戰 官事 文書 葬地 出行 自身".split()


def casts(n: int, seed: int) -> list[dict]:
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        day = rnd.randrange(0, 3650)
        y, rest = 2020 + day // 365, day % 365
        out.append({"lines": "".join(rnd.choice("6789") for _ in range(6)), "topic": rnd.choice(TOPICS),
                    "date": f"{y}-{1 + rest // 31 % 12:02d}-{1 + rest % 28:02d}T{rnd.randrange(24):02d}:30:00+08:00"})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--casts", type=int, default=200)
    ap.add_argument("--chunk", type=int, default=50)
    ap.add_argument("--charts", type=int, default=40)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()

    from liuyao_kg.load.pipeline import chunks_by_topic
    from liuyao_kg.chart import chart
    from liuyao_kg.store.embedded import KnowledgeGraph
    from liuyao_kg.loaders.cast_input import make_cast_input
    from liuyao_kg.loaders.rdf import cast_quads
    from liuyao_kg.reasoner.engine import Engine, load_rules

    specs = casts(args.casts, args.seed)
    inputs = [make_cast_input(s["lines"], date=s["date"], topic=s["topic"]) for s in specs]
    kg = KnowledgeGraph()
    rules = load_rules(kg.store, "https://w3id.org/liuyao-kg/graph/rules")
    reading = {r.iri for r in rules if "/rule/" in r.iri and _is_reading(kg, r.iri)}
    reference = [q for g in ("https://w3id.org/liuyao-kg/graph/ontology", "https://w3id.org/liuyao-kg/graph/reference")
                 for q in kg.store.quads_for_pattern(None, None, None, __import__("pyoxigraph").NamedNode(g))]
    engines = {"without_reading": Engine([r for r in rules if r.iri not in reading], reference),
               "with_reading": Engine(rules, reference)}
    chunks = list(chunks_by_topic(inputs, args.chunk, topic=lambda ci: ci.topic))
    result = {"casts": args.casts, "chunk": args.chunk, "reading_rules": len(reading), "rules": len(rules)}
    spent = dict.fromkeys(engines, 0.0)
    for engine in engines.values():
        engine.derive(cast_quads(inputs[0]))  # warm-up
    for i, chunk in enumerate(chunks):  # the two engines alternate chunk by chunk: a shared machine's load hits both
        quads = [q for ci in chunk for q in cast_quads(ci)]
        for name in (list(engines) if i % 2 == 0 else list(engines)[::-1]):
            t = time.perf_counter()
            engines[name].derive(quads)
            spent[name] += time.perf_counter() - t
    for name in engines:
        result[f"derive_{name}_ms_per_cast"] = round(1000 * spent[name] / args.casts, 2)
    result["derive_ratio"] = round(result["derive_with_reading_ms_per_cast"]
                                   / result["derive_without_reading_ms_per_cast"], 3)
    base, full = [], []
    for ci in inputs[:args.charts]:
        (iri,) = add_casts(kg, cast_quads(ci))
        t = time.perf_counter()
        chart(kg, iri, reading=False)
        base.append(time.perf_counter() - t)
        t = time.perf_counter()
        chart(kg, iri)
        full.append(time.perf_counter() - t)
    result["chart_without_reading_ms_median"] = round(1000 * statistics.median(base), 1)
    result["chart_with_reading_ms_median"] = round(1000 * statistics.median(full), 1)
    print(json.dumps(result, ensure_ascii=False, indent=2))


def _is_reading(kg, iri: str) -> bool:
    q = f"ASK {{ GRAPH ?g {{ {{ <{iri}> a <https://w3id.org/liuyao-kg/ontology#ReadingRule> }} UNION " \
        f"{{ <{iri}> a <https://w3id.org/liuyao-kg/ontology#TimingRule> }} }} }}"
    return bool(kg.store.query(q))


if __name__ == "__main__":
    main()
