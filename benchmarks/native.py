"""The native engine against the reference engine (the rules' SPARQL on pyoxigraph): derivation per new cast.

    python benchmarks/native.py [--casts 300] [--out benchmarks/results-native.json]

Both engines derive the same seeded new casts (every question; dated by pillars, by an instant, or undated; some
with sex, whom it concerns, birth branch), each cast alone, interleaved cast by cast in one process so a busy
machine slows both alike. Reported per cast, for the whole rule base and for the state and reading rules alone:
the median and mean wall ms of `derive` (the reference's default two threads; the native engine's one), the
median process CPU ms (what a shared machine does not inflate), and the reference/native ratios; then a whole
new cast, parameters to inferred N-Quads text (`make_cast_input`, `cast_quads`, `derive`, serialise), and each
engine's construction. The two engines' outputs are compared on every cast (`equal`); times are never asserted.
(results-native.json's `others`, SQLite's and rdflib's engines on 20 of the casts, was measured by this script's
`--others` before those engines were retired, 2026-12-06: benchmarks/JOURNAL.md.)
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path


def seeded(n: int, seed: int = 39) -> list[dict]:
    """make_cast_input keyword arguments of `n` seeded casts, cycling through every question."""
    from liuyao_kg.ontology import tables

    rnd = random.Random(seed)
    branches = "子丑寅卯辰巳午未申酉戌亥"
    jiazi = ["甲乙丙丁戊己庚辛壬癸"[i % 10] + branches[i % 12] for i in range(60)]
    topics = [q[0] for q in tables.QUESTIONS]
    out = []
    for i in range(n):
        kw: dict = {"spec": "".join(rnd.choice("6789") for _ in range(6)), "topic": topics[i % len(topics)]}
        when = rnd.random()
        if when < 0.5:
            kw.update(month=rnd.choice(branches), day=rnd.choice(jiazi))
        elif when < 0.8:
            kw["date"] = f"{rnd.randint(1950, 2049)}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}T10:00:00+08:00"
        if rnd.random() < 0.3:
            kw["sex"] = rnd.choice("男女")
        if rnd.random() < 0.2:
            kw["birth"] = rnd.choice(branches)
        out.append(kw)
    return out


def _timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def compare(casts: list[dict], chapter_rules: bool) -> dict:
    import pyoxigraph as ox

    from liuyao_kg.reasoner.engines import build_engine
    from liuyao_kg.loaders.cast_input import make_cast_input
    from liuyao_kg.loaders.rdf import cast_quads

    reference, ref_start, _ = _timed(lambda: build_engine(chapter_rules=chapter_rules, backend="oxigraph"))
    native, nat_start, _ = _timed(lambda: build_engine(chapter_rules=chapter_rules, backend="native"))
    engines = {"pyoxigraph": reference, "native": native}
    inputs = [cast_quads(make_cast_input(**kw)) for kw in casts]
    for quads in inputs[:10]:  # warm both (first queries, first topics)
        for e in engines.values():
            e.derive(quads)
    wall: dict = {name: [] for name in engines}
    cpu: dict = {name: [] for name in engines}
    equal = 0
    for quads in inputs:
        outputs = {}
        for name, e in engines.items():
            outputs[name], w, c = _timed(lambda: e.derive(quads))
            wall[name].append(w)
            cpu[name].append(c)
        key = lambda qs: sorted(map(str, qs))  # noqa: E731
        equal += key(outputs["pyoxigraph"]) == key(outputs["native"])

    def whole(e) -> float:
        times = []
        for kw in casts:
            def run():
                q = cast_quads(make_cast_input(**kw))
                return ox.serialize(e.derive(q), format=ox.RdfFormat.N_QUADS)
            times.append(_timed(run)[1])
        return statistics.median(times) * 1000

    ms = lambda xs: round(statistics.median(xs) * 1000, 3)  # noqa: E731
    out = {
        "rules": len(native.rules),
        "casts": len(inputs),
        "equal": f"{equal}/{len(inputs)}",
        "median_ms": {n: ms(wall[n]) for n in engines},
        "mean_ms": {n: round(statistics.fmean(wall[n]) * 1000, 3) for n in engines},
        "median_cpu_ms": {n: ms(cpu[n]) for n in engines},
        "whole_cast_to_nquads_median_ms": {n: round(whole(e), 3) for n, e in engines.items()},
        "engine_start_ms": {"pyoxigraph": round(ref_start * 1000, 1), "native": round(nat_start * 1000, 1)},
        "reference_threads": reference.threads,
    }
    out["ratio_pyoxigraph_over_native"] = {
        "median": round(out["median_ms"]["pyoxigraph"] / out["median_ms"]["native"], 1),
        "mean": round(out["mean_ms"]["pyoxigraph"] / out["mean_ms"]["native"], 1),
        "median_cpu": round(out["median_cpu_ms"]["pyoxigraph"] / max(out["median_cpu_ms"]["native"], 1e-3), 1),
        "whole_cast": round(out["whole_cast_to_nquads_median_ms"]["pyoxigraph"]
                            / out["whole_cast_to_nquads_median_ms"]["native"], 1),
    }
    return out


def measure(casts: int = 300) -> dict:
    from liuyao_kg.reasoner.native import compiled

    sample = seeded(casts)
    return {
        "compiled": {"native": len(compiled.RULES), "on_pyoxigraph": len(compiled.FALLBACK)},
        "all_rules": compare(sample, chapter_rules=True),
        "state_and_reading_rules": compare(sample, chapter_rules=False),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--casts", type=int, default=300, help="new casts derived by each engine (default 300)")
    ap.add_argument("--out", type=Path, help="write the results as JSON here")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from results_file import emit

    emit(measure(args.casts), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
