"""The cold start of `liuyao cast` as a user meets it, and the warm cost of `liuyao_kg.cast` per cast.

    python benchmarks/cold_start.py [--runs 5] [--out benchmarks/results-cold-start.json]
    python benchmarks/bench.py --only cold-start        # the same, printed

Wall time of the README's command in a new process, median of `--runs`, in three conditions: a fresh clone's
first run (a new, empty HOME and XDG_CACHE_HOME every run: nothing cached anywhere), later runs (one cache
directory, filled by a first run before timing), and a cache directory that cannot be written (it stays empty:
each run is a first run). Then one process's phases (imports, store, input, SHACL check, engine, derivation,
chart, text), and `liuyao_kg.cast` warm: seeded new casts after a first one per topic (on the default engine, the
native one; the same with the chart's reads in one thread; and the reference engine, SPARQL on pyoxigraph), and one
cast repeated.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ARGS = ["cast", "節之中孚", "--month", "寅", "--day", "辛亥", "--topic", "求財"]  # the README's example


def _command() -> list[str]:
    exe = Path(sys.executable).parent / "liuyao"
    return ([str(exe)] if exe.exists() else [sys.executable, "-m", "liuyao_kg.cli"]) + ARGS


def _timed(env: dict) -> tuple[float, float]:
    """(wall, CPU) seconds of one run; the CPU time (user + system) is what a busy shared machine does not inflate."""
    cpu = _children_cpu()
    t = time.perf_counter()
    subprocess.run(_command(), check=True, capture_output=True, env=env)
    return time.perf_counter() - t, _children_cpu() - cpu


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _summary(times: list[tuple[float, float]]) -> dict:
    wall, cpu = [t for t, _ in times], [c for _, c in times]
    return {"median_s": round(statistics.median(wall), 3), "min_s": round(min(wall), 3), "runs_s": [round(t, 3) for t in wall],
            "cpu_median_s": round(statistics.median(cpu), 3)}


def wall_times(runs: int) -> dict:
    """The three conditions interleaved, one run of each per round, so a shared machine's changing load falls
    on all three alike."""
    times: dict[str, list] = {"fresh_first_run": [], "later_runs": [], "read_only_cache": []}
    with tempfile.TemporaryDirectory() as kept, tempfile.TemporaryDirectory() as locked:
        later = {**os.environ, "HOME": kept, "XDG_CACHE_HOME": os.path.join(kept, "cache")}
        _timed(later)  # the first run fills whatever it caches
        cache = Path(locked, "cache")
        cache.mkdir()
        cache.chmod(0o555)
        read_only = {**os.environ, "HOME": locked, "XDG_CACHE_HOME": str(cache)}
        try:
            for _ in range(runs):
                with tempfile.TemporaryDirectory() as home:
                    fresh = {**os.environ, "HOME": home, "XDG_CACHE_HOME": os.path.join(home, "cache")}
                    times["fresh_first_run"].append(_timed(fresh))
                times["later_runs"].append(_timed(later))
                times["read_only_cache"].append(_timed(read_only))
        finally:
            cache.chmod(0o755)
    return {k: _summary(v) for k, v in times.items()}


PHASES = r"""
import json, sys, time
t0 = time.perf_counter()
import liuyao_kg
from liuyao_kg.chart import render
from liuyao_kg.chart import chart
from liuyao_kg.chart.i18n import labels
from liuyao_kg.loaders.cast_input import make_cast_input
from liuyao_kg.loaders.rdf import cast_quads
from liuyao_kg.loaders.shapes import check_cast
from liuyao_kg.load import add_casts, engine_for
out, last = {"imports": time.perf_counter() - t0}, time.perf_counter()
def lap(name):
    global last
    out[name] = time.perf_counter() - last
    last = time.perf_counter()
kg = liuyao_kg.default_graph(); lap("store")
quads = cast_quads(make_cast_input("節之中孚", month="寅", day="辛亥", topic="求財")); lap("input")
check_cast(quads); lap("shacl_check")
engine_for(kg); lap("engine")
(iri,) = add_casts(kg, quads); lap("derive")
c = chart(kg, iri); lap("chart")
render.chart_text(c, "zh", labels(kg)); lap("text")
out["total"] = time.perf_counter() - t0
out = {k: round(v, 3) for k, v in out.items()}
out["imported"] = sorted(m for m in ("rdflib", "pyshacl", "owlready2", "pyarrow", "networkx", "yaml",
                                     "SPARQLWrapper", "urllib.request") if m in sys.modules)
print(json.dumps(out))
"""


def phases() -> dict:
    """Seconds per phase of one `liuyao cast` in a fresh process (interpreter start excluded)."""
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "HOME": home, "XDG_CACHE_HOME": os.path.join(home, "cache")}
        done = subprocess.run([sys.executable, "-c", PHASES], check=True, capture_output=True, text=True, env=env)
    return json.loads(done.stdout)


#: the topics of the warm casts: each cast once first (an engine's first cast of a topic prepares that topic's rules)
WARM_TOPICS = [None, "求財", "婚姻", "疾病", "功名", "晴"]


def new_casts(n: int, seed: int = 7) -> list[tuple[str, str, str, str | None]]:
    """(lines, month, day, topic) of `n` seeded new casts: what `warm` and benchmarks/single_cast.py cast."""
    rng = random.Random(seed)
    stems, branches = "甲乙丙丁戊己庚辛壬癸", "子丑寅卯辰巳午未申酉戌亥"
    out = []
    for _ in range(n):
        d = rng.randrange(60)
        spec, month, day = "".join(rng.choice("6789") for _ in range(6)), rng.choice(branches), stems[d % 10] + branches[d % 12]
        out.append((spec, month, day, rng.choice(WARM_TOPICS)))
    return out


def warm(casts: int = 40, repeats: int = 20) -> dict:
    """ms per `liuyao_kg.cast` in a process that has cast once per topic: new seeded casts, and one cast again;
    the same new casts, interleaved, into a store whose chart reads in one thread (`threads_1`; the native engine
    derives in one) and into one whose engine is the reference, the rules' SPARQL on pyoxigraph (`oxigraph`:
    `--backend oxigraph`, its default threads)."""
    import liuyao_kg
    from liuyao_kg.load import derive_with, engine_for
    from liuyao_kg.store.embedded import KnowledgeGraph

    serial = KnowledgeGraph()
    serial.parallel_reads = 1
    reference = derive_with(KnowledgeGraph(), backend="oxigraph")
    stores = {"default": None, "threads_1": serial, "oxigraph": reference}
    for kg in stores.values():
        for topic in WARM_TOPICS:
            liuyao_kg.cast("節之中孚", month="寅", day="辛亥", topic=topic, kg=kg)
    times: dict[str, list[float]] = {name: [] for name in stores}
    for spec, month, day, topic in new_casts(casts):
        for name, kg in stores.items():
            t = time.perf_counter()
            liuyao_kg.cast(spec, month=month, day=day, topic=topic, kg=kg)
            times[name].append(time.perf_counter() - t)
    again = []
    for _ in range(repeats):
        t = time.perf_counter()
        liuyao_kg.cast("節之中孚", month="寅", day="辛亥", topic="求財")
        again.append(time.perf_counter() - t)
    new, one, ref = (statistics.median(times[k]) for k in ("default", "threads_1", "oxigraph"))
    return {"new_cast_median_ms": round(new * 1000, 1),
            "new_cast_threads_1_median_ms": round(one * 1000, 1),
            "threads_1_over_default": round(one / new, 2),
            "new_cast_oxigraph_median_ms": round(ref * 1000, 1),
            "oxigraph_over_default": round(ref / new, 2),
            "repeated_cast_median_ms": round(statistics.median(again) * 1000, 1), "new_casts": casts,
            "engine": type(engine_for(liuyao_kg.default_graph())).__name__,
            "oxigraph_threads": engine_for(reference).threads, "chart_read_threads": liuyao_kg.default_graph().parallel_reads}


def bytecode() -> dict:
    """How many of the package's modules have cached bytecode (the editable install compiles them:
    build_backend/liuyao_build.py); without it, where PYTHONDONTWRITEBYTECODE is set, every run compiles them."""
    import importlib.util

    dirs = {Path(d) for name in ("", ".ontology", ".loaders", ".reasoner", ".queries")
            for d in importlib.import_module("liuyao_kg" + name).__path__}
    modules = {m for d in dirs for m in d.rglob("*.py")}
    cached = [m for m in modules if Path(importlib.util.cache_from_source(str(m))).exists()]
    return {"modules": len(modules), "with_bytecode": len(cached),
            "PYTHONDONTWRITEBYTECODE": os.environ.get("PYTHONDONTWRITEBYTECODE")}


def cold_start(runs: int = 5) -> dict:
    """Everything above, as benchmarks/bench.py records it under "cli_cold_start"."""
    return {"command": "liuyao " + " ".join(ARGS), "runs": runs, "loadavg_at_start": os.getloadavg(),
            "bytecode": bytecode(), **wall_times(runs), "phases_s": phases(), "warm_api": warm()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", help="also write the JSON here (e.g. benchmarks/results-cold-start.json)")
    args = ap.parse_args()
    text = json.dumps({"date": time.strftime("%Y-%m-%d"), "cpus": os.cpu_count(), **cold_start(args.runs)},
                      indent=2, ensure_ascii=False)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
