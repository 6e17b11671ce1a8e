"""Benchmark: the same seeded casts through every stack in one run, checked equal, timed, compared.

    python benchmarks/bench.py --sizes 1,100,1000,10000 --out benchmarks/results.json --budget-seconds 180

Stacks (each size of each stack runs in its own subprocess, so its peak memory is its own). The engine-* stacks are
the reference Engine (SPARQL on pyoxigraph), asked for by name (`backend="oxigraph"`): the package derives with
the native engine (the rules compiled to Python) unless told otherwise, and the native-* stacks measure that one.

  engine-cast          liuyao_kg.cast on a store deriving with the reference Engine (SPARQL on pyoxigraph): load →
                       derive (state + chapter rules) → chart JSON, one cast at a time
  engine-derive        the reference Engine's derive, state + chapter rules (states and judgments), one cast per call
  engine-batch         the reference Engine's derive, state + chapter rules, CHUNK casts per call (best chunk from
                       the sweep)
  engine-states-batch  the reference Engine's derive, state rules only (states, no judgments), CHUNK casts per call
  engine-swrl-subset   the reference Engine's derive with only the rules the SWRL-covered facts need (those rules and
                       every rule they depend on): the same work as swrl-pellet, CHUNK casts per call
  engine-batch-2proc   engine-batch in two worker processes (2 cores): casts/s over the wall time
  native-derive        NativeEngine.derive (reasoner/native: the rules compiled to Python, the package's default),
                       state + chapter rules, one cast per call
  native-states-batch  NativeEngine.derive, the state rules only (the same rule selection as engine-states-batch),
                       CHUNK casts per call
  swrl-pellet          benchmarks/swrl_stack.py: the SWRL-expressible states, owlready2 + Pellet, 10 casts per run
  najia                benchmarks/najia_stack.py: najia's chart layer (palace, 納甲, 六親, 六神, 世應, 伏神)
  oracle               tests/oracles/oracle.py: the plain-Python chart and states (no judgments), one cast at a time
  load-jobs-N          liuyao_kg.load.pipeline.load_file (liuyao load --parquet --jobs N): JSON Lines in, Parquet
                       out, partitions of the native engine's batch derived in N worker processes
                       (spawned by the load: their start and engine builds are in its time; a file of one partition
                       derives in this process, whose engine is built and warm first); casts/s over the wall time
  load-cluster-N       the same load on a local Dask cluster of N workers (N = 1, 2; --cluster local:N), workers warm
                       first; casts/s over the wall time, cluster start excluded

Equality, recorded under "checks" and per run under "digest": the states of the reference Engine and of the native
engine equal the oracle's (first `--check` casts); the inferred quads of engine-derive, engine-batch, engine-cast,
engine-batch-2proc and native-derive are hashed per cast (sorted N-Quads) and must agree wherever two of them ran on
the same casts, as must engine-states-batch's and native-states-batch's (the states alone); swrl-pellet,
engine-swrl-subset, engine-states-batch and native-states-batch hash the SWRL-covered facts; najia is compared field
by field with the reference Engine and, over all 64×64 pairs, with the oracle.

A stack is skipped at a size when its time projected from the previous size exceeds --budget-seconds:
fixed cost per call (measured, e.g. a Pellet run on the reference data alone) × calls + per-cast cost × casts.
Peak memory is the peak RSS (VmHWM) of the stack's subprocess, and RUSAGE_CHILDREN's ru_maxrss for Pellet's JVM.
"""
from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import json
import math
import os
import platform
import pstats
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from liuyao_kg.load import derive_with, engine_for

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "oracles"), str(ROOT / "benchmarks")]

BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
JIAZI = ["甲乙丙丁戊己庚辛壬癸"[i % 10] + BRANCHES[i % 12] for i in range(60)]
TOPICS = ["求財", "婚姻", "疾病", "身命", "產育", "田蠶", "天時", "國家", "征戰", "官事", "文書", "葬地", "出行", "自身"]

STACKS = {
    "engine-cast": "liuyao_kg.cast on a store deriving with the reference Engine (SPARQL on pyoxigraph): load, derive "
                   "states + judgments, chart JSON, one cast at a time",
    "engine-derive": "the reference Engine (SPARQL on pyoxigraph): Engine.derive, state + chapter rules, one cast per call",
    "engine-batch": "the reference Engine (SPARQL on pyoxigraph): Engine.derive, state + chapter rules, CHUNK casts per call",
    "engine-states-batch": "the reference Engine (SPARQL on pyoxigraph): Engine.derive, the state rules (lyo:StateRule, "
                           "and what they read) only, CHUNK casts per call",
    "engine-swrl-subset": "the reference Engine (SPARQL on pyoxigraph): Engine.derive, only the rules the SWRL-covered "
                          "facts depend on, CHUNK casts per call",
    "engine-batch-2proc": "the reference Engine (SPARQL on pyoxigraph): Engine.derive, state + chapter rules, CHUNK casts "
                          "per call, in 2 worker processes",
    "native-derive": "NativeEngine.derive (the rules compiled to Python), state + chapter rules, one cast per call",
    "native-states-batch": "NativeEngine.derive (the rules compiled to Python), the state rules (lyo:StateRule, and what "
                           "they read) only, CHUNK casts per call",
    "swrl-pellet": "owlready2 + Pellet, SWRL rules for the SWRL-expressible states, 10 casts per reasoner run",
    "najia": "najia 2.0.1 chart layer (palace, 納甲, 六親, 六神, 世應, 伏神), one cast at a time",
    "oracle": "tests/oracles/oracle.py plain-Python chart and states (no judgments), one cast at a time",
    "load-cluster-1": "liuyao load --parquet --cluster local:1 (Dask, 1 worker), JSON Lines to Parquet, native engine",
    "load-cluster-2": "liuyao load --parquet --cluster local:2 (Dask, 2 workers), JSON Lines to Parquet, native engine",
    "load-jobs-1": "liuyao load --parquet --jobs 1 (one process), JSON Lines to Parquet, native engine",
    "load-jobs-2": "liuyao load --parquet --jobs 2 (two worker processes), JSON Lines to Parquet, native engine",
}
WORK = {"engine-cast": "states+judgments+chart", "engine-derive": "states+judgments", "engine-batch": "states+judgments",
        "engine-states-batch": "states", "engine-swrl-subset": "SWRL subset of states",
        "engine-batch-2proc": "states+judgments", "native-derive": "states+judgments", "native-states-batch": "states",
        "swrl-pellet": "SWRL subset of states", "najia": "chart layer", "oracle": "chart+states",
        "load-cluster-1": "states+judgments (Parquet)", "load-cluster-2": "states+judgments (Parquet)",
        "load-jobs-1": "states+judgments (Parquet)", "load-jobs-2": "states+judgments (Parquet)"}
#: (stack, base) pairs: the ratio of a stack to an engine stack doing the same work (or more)
RATIO_BASE = {"swrl-pellet": ("engine-swrl-subset", "engine-states-batch"),
              "oracle": ("engine-states-batch", "native-states-batch"), "najia": ("engine-states-batch",),
              "engine-cast": ("engine-batch",), "engine-derive": ("engine-batch",),
              "native-derive": ("engine-derive",), "native-states-batch": ("engine-states-batch",)}
#: the stacks deriving one cast per call
ONE_PER_CALL = ("engine-cast", "engine-derive", "native-derive", "oracle", "najia")
#: the stacks deriving the state rules only (states stacks) or a subset of them: no chapter rules, no topics
STATE_STACKS = ("engine-states-batch", "native-states-batch", "engine-swrl-subset")
SWRL_CHUNK = 10


#: the rule class the states stacks run (with the rules they read): the oracle computes the chart and
#: states, no reading (use-god factors, verdicts, timing: lyo:ReadingRule, lyo:TimingRule)
LYO_STATE_RULE = "https://w3id.org/liuyao-kg/ontology#StateRule"


def state_rules(rules):
    """The state rules among `rules` and what they read (`of_class` over the package's rules layer)."""
    from liuyao_kg import namespaces as ns
    from liuyao_kg.ontology import layer_quads
    from liuyao_kg.reasoner.engine import of_class

    return of_class(rules, layer_quads((ns.GRAPH_RULES,))[ns.GRAPH_RULES], LYO_STATE_RULE)


def casts(n: int, seed: int = 7) -> list[tuple[str, str, str, str]]:
    """(values, month branch, day stem-branch, topic): the same seeded casts for every stack."""
    rnd = random.Random(seed)
    return [("".join(rnd.choice("6789") for _ in range(6)), rnd.choice(BRANCHES), rnd.choice(JIAZI), TOPICS[i % len(TOPICS)])
            for i in range(n)]


# ------------------------------------------------------------------------------------------------
# digests: order-free, per cast


def quad_digest(quads) -> dict[str, str]:
    """{cast IRI: sha256 of its sorted inferred N-Quads}."""
    from liuyao_kg.reasoner.engine import cast_of

    by_cast: dict[str, list[str]] = {}
    for q in quads:
        by_cast.setdefault(cast_of(q.subject.value) or "?", []).append(str(q))
    return {c: hashlib.sha256("\n".join(sorted(v)).encode()).hexdigest() for c, v in by_cast.items()}


def combine(per_cast: dict[str, str]) -> str:
    return hashlib.sha256("\n".join(sorted(per_cast.values())).encode()).hexdigest()


def facts_digest(facts) -> str:
    return hashlib.sha256("\n".join(sorted(map(repr, facts))).encode()).hexdigest()


# ------------------------------------------------------------------------------------------------
# one stack, one size (child process)


def _inputs(items):
    from liuyao_kg.loaders.cast_input import make_cast_input
    from liuyao_kg.loaders.rdf import cast_quads

    return [cast_quads(make_cast_input(v, month=m, day=d, topic=t)) for v, m, d, t in items]


def run_stack(stack: str, n: int, chunk: int) -> dict:
    items = casts(n)
    times: list[float] = []   # per-cast seconds (a batch's time shared equally by its casts)
    calls: list[float] = []   # seconds per call
    extra: dict = {}
    digest = None
    fixed = 0.0
    warm_item = casts(1, seed=99)  # a different cast, so warming never pre-derives a measured one

    def timed(fn, k):
        t = time.perf_counter()
        r = fn()
        dt = time.perf_counter() - t
        calls.append(dt)
        times.extend([dt / k] * k)
        return r

    if stack == "oracle":
        from oracle import oracle_chart

        oracle_chart(tuple(int(c) for c in warm_item[0][0]), warm_item[0][1], warm_item[0][2])
        for v, m, d, _ in items:
            timed(lambda: oracle_chart(tuple(int(c) for c in v), m, d), 1)
    elif stack == "najia":
        import najia_stack

        najia_stack.chart(warm_item[0][0], warm_item[0][2])
        for v, m, d, _ in items:
            timed(lambda: najia_stack.chart(v, d), 1)
    elif stack == "engine-cast":
        import liuyao_kg
        from liuyao_kg.store.embedded import KnowledgeGraph

        # the reference Engine by name: a store's default engine is the native one
        kg = derive_with(KnowledgeGraph(), backend="oxigraph")
        v, m, d, t = warm_item[0]
        liuyao_kg.cast(v, month=m, day=d, topic=t, kg=kg)  # warm: rule plan, working store, queries
        iris = []
        for v, m, d, t in items:
            iris.append(timed(lambda: liuyao_kg.cast(v, month=m, day=d, topic=t, kg=kg), 1)["cast"])
        from liuyao_kg.namespaces import inferred_graph
        import pyoxigraph as ox

        per = {}
        for iri in dict.fromkeys(iris):
            per.update(quad_digest(kg.store.quads_for_pattern(None, None, None, ox.NamedNode(inferred_graph(iri)))))
        digest = combine(per)
    elif stack in ("engine-derive", "engine-batch", "engine-states-batch", "engine-swrl-subset", "native-derive",
                   "native-states-batch"):
        from liuyao_kg.load.pipeline import chunks_by_topic
        from liuyao_kg.store.embedded import KnowledgeGraph

        native = stack.startswith("native-")
        # the reference Engine (SPARQL on pyoxigraph) by name: without it a store derives with the native engine
        kg = derive_with(KnowledgeGraph(), chapter_rules=stack not in STATE_STACKS, backend="native" if native else "oxigraph")
        engine = engine_for(kg)
        if native:
            from liuyao_kg.reasoner.native.engine import NativeEngine

            if not isinstance(engine, NativeEngine):  # the compiled rules are not the package's rules as they are now
                raise SystemExit(f"{stack}: the store derives with {type(engine).__name__}, not the native engine "
                                 "(python -m liuyao_kg.build native)")
        extra["engine"] = type(engine).__name__
        if stack in ("engine-states-batch", "native-states-batch"):
            subset = state_rules(list(engine.rules.values()))
            extra["rules"] = f"{len(subset)} of {len(engine.rules)} state and reading rules"
            engine = type(engine)(subset, engine._reference)  # Engine or NativeEngine, on the same rules
        elif stack == "engine-swrl-subset":
            from liuyao_kg.reasoner.engine import Engine
            from swrl_stack import engine_rules_for_swrl_facts

            subset = engine_rules_for_swrl_facts(engine)
            extra["rules"] = f"{len(subset)} of {len(engine.rules)} state rules"
            engine = Engine(subset, engine._reference)
        inputs = _inputs(items)
        engine.derive(_inputs(warm_item)[0])  # warm
        size = 1 if stack in ONE_PER_CALL else chunk
        # chunked as `liuyao load` chunks (liuyao_kg.load.pipeline.chunks_by_topic): one topic per chunk where chapter
        # rules run; the state rules ignore topics
        by_topic = stack not in STATE_STACKS
        groups = list(chunks_by_topic(enumerate(inputs), size, topic=lambda item: items[item[0]][3] if by_topic else None))
        per: dict[str, str] = {}
        swrl_facts = set()
        for group in groups:
            quads = [q for _, c in group for q in c]
            out = timed(lambda: engine.derive(quads), len(group))
            per.update(quad_digest(out))
            if stack in STATE_STACKS:
                from swrl_stack import engine_facts

                # the SWRL-covered facts, numbered by position in the whole run as swrl-pellet numbers them
                facts = engine_facts([c for _, c in group], out)
                swrl_facts |= {((group[k][0], node), kind, val) for ((k, node), kind, val) in facts}
        digest = combine(per)
        if stack in STATE_STACKS:
            extra["swrl_facts_digest"] = facts_digest(swrl_facts)
            extra["swrl_facts"] = len(swrl_facts)
        extra["chunk"] = size
    elif stack.startswith("load-jobs-"):
        import tempfile

        from liuyao_kg.load.pipeline import load_file
        from liuyao_kg.load.sinks import Parquet
        from liuyao_kg.reasoner.engines import REGISTRY

        jobs = int(stack.rsplit("-", 1)[1])
        with tempfile.TemporaryDirectory() as tmp:
            src = _write_jsonl(Path(tmp), items)
            # this process's engine built and warm first (a file of one partition derives here); then the start-up a
            # load with `jobs` worker processes pays (their spawn and engine builds: `jobs` one-cast partitions), not
            # taken off the time below, which includes its own
            load_file(_write_jsonl(Path(tmp) / "warm", warm_item), Parquet(Path(tmp) / "warm-out"))
            t = time.perf_counter()
            load_file(_write_jsonl(Path(tmp) / "start", casts(jobs, seed=99)), Parquet(Path(tmp) / "start-out"), jobs,
                      partition=1)
            fixed = time.perf_counter() - t
            stats: dict = {}
            t = time.perf_counter()
            report = load_file(src, Parquet(Path(tmp) / "out"), jobs, stats=stats)
            dt = time.perf_counter() - t
        calls.append(dt)
        times.extend([dt / n] * n)
        extra.update(jobs=stats["jobs"], partition=REGISTRY["native"].batch, states=report["states"],
                     judgments=report["judgments"])
    elif stack.startswith("load-cluster-"):
        import tempfile

        from liuyao_kg.load.pipeline import load_file
        from liuyao_kg.load.sinks import Parquet
        from liuyao_kg.load.workers import Cluster
        from liuyao_kg.reasoner.engines import REGISTRY

        workers = int(stack.rsplit("-", 1)[1])
        with tempfile.TemporaryDirectory() as tmp:
            src = _write_jsonl(Path(tmp), items)
            cluster = Cluster(f"local:{workers}").open(workers)
            client = cluster.client
            try:  # workers built and warm before the clock starts (a one-cast partition on each)
                from liuyao_kg.load.partition import derive_partition
                from liuyao_kg.loaders.cast_input import make_cast_input

                warm = [("warm", make_cast_input(warm_item[0][0], month=warm_item[0][1], day=warm_item[0][2],
                                                 topic=warm_item[0][3]), 1)]  # a record: (id, CastInput, line)
                t = time.perf_counter()
                # one cast per worker, each into its own directory (client.run calls every worker with the same
                # arguments: two writing one file would conflict): a partition's fixed cost
                client.run(_warm_partition, derive_partition, warm, tmp)
                fixed = time.perf_counter() - t
                address = client.scheduler.address
                t = time.perf_counter()
                report = load_file(src, Parquet(Path(tmp) / "out"), Cluster(address))
                dt = time.perf_counter() - t
            finally:
                cluster.close()
        calls.append(dt)
        times.extend([dt / n] * n)
        extra.update(workers=workers, partition=REGISTRY["native"].batch, states=report["states"],
                     judgments=report["judgments"])
    elif stack == "engine-batch-2proc":
        from multiprocessing import get_context

        from liuyao_kg.load.pipeline import chunks_by_topic

        groups = list(chunks_by_topic(items, chunk, topic=lambda item: item[3]))
        ctx = get_context("spawn")
        with ctx.Pool(2, initializer=_worker_init) as pool:
            pool.map(_worker_ready, range(2))  # engines built and warm in both workers before the clock starts
            t = time.perf_counter()
            digests = pool.map(_worker_derive, groups, chunksize=1)
            dt = time.perf_counter() - t
        per = {}
        for d in digests:
            per.update(d)
        digest = combine(per)
        calls.append(dt)
        times.extend([dt / n] * n)  # wall time over both processes, shared by every cast
        extra["chunk"] = chunk
        extra["processes"] = 2
    elif stack == "swrl-pellet":
        from liuyao_kg.store.embedded import KnowledgeGraph
        from swrl_stack import SwrlStack

        kg = derive_with(KnowledgeGraph(), chapter_rules=False)
        swrl = SwrlStack(kg.store)
        inputs = _inputs(items)
        t = time.perf_counter()
        swrl.derive([])  # fixed cost: JVM start, ontology and reference data, no cast
        fixed = time.perf_counter() - t
        facts = set()
        phases: dict[str, float] = {}
        for i in range(0, len(inputs), SWRL_CHUNK):
            group = inputs[i:i + SWRL_CHUNK]
            got, ph = timed(lambda: swrl.derive(group), len(group))
            facts |= {((i + k, node), kind, val) for ((k, node), kind, val) in got}
            for k, v in ph.items():
                phases[k] = phases.get(k, 0.0) + v
        extra["swrl_facts_digest"] = facts_digest(facts)
        extra["swrl_facts"] = len(facts)
        extra["phases_s"] = phases
        extra["chunk"] = SWRL_CHUNK
    else:
        raise SystemExit(f"unknown stack {stack}")
    total = sum(times)
    self_kb = peak_rss_kb()
    child_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"stack": stack, "casts": n, "total_s": total, "calls": len(calls), "fixed_s_per_call": fixed,
            "casts_per_s": n / total if total else None, "ms_per_cast_median": statistics.median(times) * 1000,
            "peak_rss_mb": self_kb / 1024, "peak_rss_children_mb": child_kb / 1024 if child_kb else None,
            "digest": digest, **extra}


_WORKER_ENGINE = None


def _worker_init() -> None:
    global _WORKER_ENGINE
    from liuyao_kg.store.embedded import KnowledgeGraph

    _WORKER_ENGINE = engine_for(derive_with(KnowledgeGraph(), backend="oxigraph"))  # the reference Engine, as engine-batch
    _WORKER_ENGINE.derive(_inputs(casts(1, seed=99))[0])


def _worker_ready(_) -> bool:
    return _WORKER_ENGINE is not None


def _worker_derive(group) -> dict[str, str]:
    inputs = _inputs(group)
    return quad_digest(_WORKER_ENGINE.derive([q for c in inputs for q in c]))


def peak_rss_kb() -> int:
    """Peak RSS of this process's own address space (VmHWM). `ru_maxrss` would do on a fresh
    process, but Linux carries it across fork+exec, so a child would report at least its parent's RSS."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


# ------------------------------------------------------------------------------------------------
# checks (parent)


def check_oracle(n: int, backend: str = "oxigraph") -> dict:
    """The chart and states of a store deriving with `backend` (the reference Engine, or "native") equal the
    oracle's on the first n casts."""
    from oracle import first_difference, normalize_production, oracle_chart

    import liuyao_kg
    from liuyao_kg.store.embedded import KnowledgeGraph

    kg = derive_with(KnowledgeGraph(), chapter_rules=False, backend=backend)
    bad = []
    for v, m, d, _ in casts(n):
        diff = first_difference(oracle_chart(tuple(int(c) for c in v), m, d),
                                normalize_production(liuyao_kg.cast(v, month=m, day=d, kg=kg)))
        if diff:
            bad.append(f"{v} {m} {d}: {diff}")
    return {"casts": n, "engine": type(engine_for(kg)).__name__, "equal": not bad, "differences": bad[:20]}


def check_najia(n: int) -> dict:
    """najia's chart layer against the reference Engine (first n casts) and the oracle (all 64×64 pairs)."""
    import najia_stack
    from oracle import BRANCHES as OB, JIAZI as OJ, KING_WEN, oracle_chart, values_for_pair

    import liuyao_kg
    from liuyao_kg.store.embedded import KnowledgeGraph

    kg = derive_with(KnowledgeGraph(), chapter_rules=False, backend="oxigraph")
    vs_engine = []
    for v, m, d, _ in casts(n):
        diff = najia_stack.differences(najia_stack.chart(v, d), najia_stack.ours(liuyao_kg.cast(v, month=m, day=d, kg=kg)))
        if diff:
            vs_engine.append({"cast": [v, m, d], "differences": diff})
    vs_oracle = []
    total = 0
    for pi, p in enumerate(KING_WEN):
        for ci, c in enumerate(KING_WEN):
            i = pi * 64 + ci
            values = "".join(map(str, values_for_pair(p, c)))
            m, d = OB[i % 12], OJ[(i * 7) % 60]
            total += 1
            diff = najia_stack.differences(najia_stack.chart(values, d), najia_stack.ours(oracle_chart(values, m, d)))
            if diff:
                vs_oracle.append({"cast": [values, m, d], "differences": diff})
    from najia.utils import get_type, xkong
    from oracle import hexagram_info, name_to_bits, void_of

    void_bad = [[gz, xkong(gz), "".join(void_of(gz))] for gz in OJ if xkong(gz) != "".join(void_of(gz))]
    tr = str.maketrans({"冲": "沖", "归": "歸", "游": "遊"})
    kind_bad = []
    for name in KING_WEN:  # najia names one kind (遊魂/歸魂 before 六沖 before 六合); it must be among ours
        kind = get_type("".join(map(str, name_to_bits(name)))).translate(tr)
        ours = hexagram_info(name)["kind"]
        if (kind and kind not in ours) or (not kind and ours):
            kind_bad.append([name, kind, ours])
    return {"fields": "palace, 世, 應, per line 納甲 stem-branch, 六親, 六神, 伏神 (stem-branch, 六親), changed-line 六親",
            "void_all_60_days": {"disagreements": len(void_bad), "examples": void_bad[:10]},
            "hexagram_kind_all_64": {"disagreements": len(kind_bad), "examples": kind_bad[:10]},
            "vs_engine": {"casts": n, "disagreements": len(vs_engine), "examples": vs_engine[:20]},
            "vs_oracle_all_pairs": {"casts": total, "disagreements": len(vs_oracle), "examples": vs_oracle[:20]}}


def cross_checks(runs: dict) -> dict:
    """Digest agreement between stacks that ran on the same casts."""
    out = {}
    for size, row in runs.items():
        got = {s: r for s, r in row.items() if isinstance(r, dict) and "digest" in r}
        quads = {s: r["digest"] for s, r in got.items()
                 if s in ("engine-cast", "engine-derive", "engine-batch", "engine-batch-2proc", "native-derive")
                 and r.get("digest")}
        states = {s: got[s]["digest"] for s in ("engine-states-batch", "native-states-batch")
                  if s in got and got[s].get("digest")}
        swrl = {s: r["swrl_facts_digest"] for s, r in got.items() if r.get("swrl_facts_digest")}
        out[size] = {
            "inferred_quads (states+judgments)": {"stacks": sorted(quads), "equal": len(set(quads.values())) <= 1}
            if len(quads) > 1 else None,
            "inferred_quads (states)": {"stacks": sorted(states), "equal": len(set(states.values())) <= 1}
            if len(states) > 1 else None,
            "swrl_covered_facts": {"stacks": sorted(swrl), "equal": len(set(swrl.values())) <= 1,
                                   "facts": {s: got[s].get("swrl_facts") for s in swrl}} if len(swrl) > 1 else None,
        }
    return out


# ------------------------------------------------------------------------------------------------
# chunk sweep, profile, cold start


def profile(n: int, chunk: int) -> dict:
    """Where engine-batch's time goes (the reference Engine): cProfile top functions and time per rule / stratum /
    rule file."""
    from importlib import resources

    import pyoxigraph as ox

    from liuyao_kg.store.embedded import KnowledgeGraph
    from liuyao_kg.reasoner import engine as eng

    kg = derive_with(KnowledgeGraph(), backend="oxigraph")
    engine = engine_for(kg)
    inputs = _inputs(casts(n))
    per_rule: dict[str, float] = {}
    calls: dict[str, int] = {}
    original = eng.Engine._apply

    def timed_apply(self, iri, *args):
        t = time.perf_counter()
        try:
            return original(self, iri, *args)
        finally:
            per_rule[iri] = per_rule.get(iri, 0.0) + time.perf_counter() - t
            calls[iri] = calls.get(iri, 0) + 1

    engine._apply = timed_apply.__get__(engine)
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    for i in range(0, len(inputs), chunk):
        engine.derive([q for c in inputs[i:i + chunk] for q in c])
    prof.disable()
    wall = time.perf_counter() - t0
    small_calls = dict(calls)
    s = io.StringIO()
    st = pstats.Stats(prof, stream=s)
    top = sorted(st.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:12]
    functions = [{"function": f"{Path(k[0]).name}:{k[1]}({k[2]})", "tottime_s": round(v[2], 3), "cumtime_s": round(v[3], 3),
                  "calls": v[1]} for k, v in top]
    # which file each rule comes from
    base = resources.files("liuyao_kg.ontology")
    file_of = {}
    for name in ("chart", "relations", "line-states", "cast-states", "chapters"):
        for t in ox.parse(base.joinpath(f"rules/{name}.ttl").read_bytes(), format=ox.RdfFormat.TURTLE):
            file_of.setdefault(t.subject.value, name)
    by_file: dict[str, float] = {}
    for iri, sec in per_rule.items():
        by_file[file_of.get(iri, "?")] = by_file.get(file_of.get(iri, "?"), 0.0) + sec
    strata = []
    for k, stratum in enumerate(engine.plan.strata):
        sec = sum(per_rule.get(i, 0.0) for i in stratum)
        if sec:
            strata.append({"stratum": k, "rules": len(stratum), "recursive": engine.plan.recursive[k], "s": round(sec, 3)})
    # the same casts in chunks four times larger: which rules' cost per cast grows with the chunk
    big = 4 * chunk
    small_rules = dict(per_rule)
    per_rule.clear()
    calls.clear()
    t1 = time.perf_counter()
    for i in range(0, len(inputs), big):
        engine.derive([q for c in inputs[i:i + big] for q in c])
    wall_big = time.perf_counter() - t1
    big_rules = dict(per_rule)
    growth = sorted(((iri, big_rules.get(iri, 0.0), small_rules[iri]) for iri in small_rules),
                    key=lambda r: -(r[1] - r[2]))[:10]
    per_rule.clear()
    per_rule.update(small_rules)
    calls.clear()
    calls.update(small_calls)
    rules_total = sum(per_rule.values())
    derive_calls = math.ceil(n / chunk)
    evaluations = sum(calls.values())
    return {
        "casts": n, "chunk": chunk, "wall_s": round(wall, 3), "rule_evaluation_s": round(rules_total, 3),
        "rules_run": len(per_rule), "rules_in_plan": len(engine.rules), "derive_calls": derive_calls,
        "rule_evaluations_per_derive_call": evaluations / derive_calls,
        "mean_ms_per_rule_evaluation": 1000 * rules_total / evaluations if evaluations else None,
        "by_rule_file_s": {k: round(v, 3) for k, v in sorted(by_file.items(), key=lambda kv: -kv[1])},
        "top_rules": [{"rule": iri.rsplit("/rule/", 1)[-1], "s": round(sec, 3), "calls": calls[iri]}
                      for iri, sec in sorted(per_rule.items(), key=lambda kv: -kv[1])[:15]],
        "top_strata": sorted(strata, key=lambda r: -r["s"])[:8],
        "top_functions_tottime": functions,
        "chunk_x4": {"chunk": big, "wall_s": round(wall_big, 3),
                     "rules_growing_most": [{"rule": iri.rsplit("/rule/", 1)[-1], "s_at_chunk": round(a, 3),
                                             f"s_at_chunk_x4": round(b, 3)} for iri, b, a in
                                            [(i, bb, aa) for i, bb, aa in growth]]},
    }


def cold_start(runs: int = 5) -> dict:
    """The CLI's cold start (fresh clone's first run, later runs, unwritable cache) and the warm API: cold_start.py."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from cold_start import cold_start as measure

    return measure(runs)


def child(args: list[str], timeout: float) -> dict:
    try:
        out = subprocess.run([sys.executable, __file__, *args], check=True, capture_output=True, text=True,
                             timeout=timeout).stdout
    except subprocess.TimeoutExpired:
        return {"skipped": f"aborted after {timeout:.0f} s"}
    except subprocess.CalledProcessError as exc:
        return {"error": exc.stderr[-2000:]}
    return json.loads(out.strip().splitlines()[-1])


def project(prev: dict, n: int, chunk: int) -> float:
    """Seconds a stack would take for n casts, from its run at a smaller size."""
    fixed = prev.get("fixed_s_per_call", 0.0)
    calls_prev = prev["calls"]
    per_cast = max(prev["total_s"] - fixed * calls_prev, 0.0) / prev["casts"]
    return fixed * math.ceil(n / chunk) + per_cast * n


def _write_jsonl(directory: Path, items) -> Path:
    """The casts as the JSON Lines file a load reads."""
    directory.mkdir(parents=True, exist_ok=True)
    src = directory / "casts.jsonl"
    src.write_text("".join(json.dumps({"id": f"c{i}", "lines": v, "month": m, "day": d, "topic": t},
                                      ensure_ascii=False) + "\n" for i, (v, m, d, t) in enumerate(items)),
                   encoding="utf-8")
    return src


def _warm_partition(derive_partition, records, out_dir: str) -> dict:
    """A cluster worker's first partition, written to a directory of its own."""
    import tempfile

    return derive_partition(records, 999_999, parquet=tempfile.mkdtemp(dir=out_dir))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1,100,1000,10000")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results.json"))
    ap.add_argument("--budget-seconds", type=float, default=180.0)
    ap.add_argument("--stacks", default=",".join(STACKS))
    ap.add_argument("--chunks", default="10,50,100,200,500", help="chunk sizes for the engine-batch sweep")
    ap.add_argument("--sweep-n", type=int, default=500)
    ap.add_argument("--chunk", type=int, help="skip the sweep and use this chunk size")
    ap.add_argument("--check", type=int, default=200, help="casts checked engine = oracle and engine = najia")
    ap.add_argument("--profile-n", type=int, default=200)
    ap.add_argument("--no-cold-start", action="store_true")
    ap.add_argument("--only", choices=["cold-start"], help="run only this part and print its JSON (writes no --out)")
    ap.add_argument("--stack", help=argparse.SUPPRESS)  # child process
    ap.add_argument("-n", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--profile", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.stack:
        print(json.dumps(run_stack(args.stack, args.n, args.chunk or 100)))
        return
    if args.profile:
        print(json.dumps(profile(args.n, args.chunk or 100)))
        return
    if args.only == "cold-start":
        print(json.dumps(cold_start(), indent=2, ensure_ascii=False))
        return

    sizes = [int(s) for s in str(args.sizes).replace(" ", ",").split(",") if s]
    stacks = [s for s in args.stacks.split(",") if s]
    started = time.time()
    results: dict = {
        "meta": {"started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)), "python": sys.version.split()[0],
                 "platform": platform.platform(), "cpus": os.cpu_count(), "loadavg_at_start": os.getloadavg(),
                 "sizes": sizes, "budget_seconds": args.budget_seconds, "seed": 7,
                 "memory": "peak_rss_mb: VmHWM of each stack's own subprocess (its peak RSS); peak_rss_children_mb: "
                           "ru_maxrss of RUSAGE_CHILDREN, i.e. Pellet's JVM (an upper bound: Linux counts the RSS the "
                           "child inherited at fork)",
                 "ms_per_cast": "median over casts; a batch's time is shared equally by its casts"},
        "stacks": {s: {"what": STACKS[s], "work": WORK[s], "ratio_base": list(RATIO_BASE.get(s, ()))} for s in stacks},
    }
    print("checks …", file=sys.stderr)
    results["checks"] = {"engine_vs_oracle": check_oracle(args.check),
                         "native_vs_oracle": check_oracle(args.check, backend="native")}
    if "najia" in stacks:
        results["checks"]["najia"] = check_najia(args.check)
    print(json.dumps(results["checks"], ensure_ascii=False)[:600], file=sys.stderr)

    if args.chunk:
        chunk = args.chunk
    else:
        sweep = {}
        for c in [int(x) for x in args.chunks.split(",")]:
            r = child(["--stack", "engine-batch", "-n", str(args.sweep_n), "--chunk", str(c)], 6 * args.budget_seconds)
            sweep[c] = {k: r.get(k) for k in ("casts_per_s", "ms_per_cast_median", "peak_rss_mb", "skipped", "error")}
            print("chunk", c, sweep[c], file=sys.stderr)
        chunk = max((c for c in sweep if sweep[c].get("casts_per_s")), key=lambda c: sweep[c]["casts_per_s"])
        results["chunk_sweep"] = {"casts": args.sweep_n, "stack": "engine-batch", "by_chunk": sweep, "best": chunk}

    runs: dict = {}
    last: dict[str, dict] = {}
    for n in sizes:
        row = {}
        for s in stacks:
            c = SWRL_CHUNK if s == "swrl-pellet" else (1 if s in ONE_PER_CALL else chunk)
            if s.startswith("load-"):  # one load a call, its fixed cost (start-up) paid once
                c = n
            prev = last.get(s)
            if prev is not None and "total_s" in prev:
                proj = project(prev, n, c)
                if proj > args.budget_seconds:
                    row[s] = {"skipped": f"projected {proj:.0f} s"}
                    print(n, s, row[s], file=sys.stderr)
                    continue
            elif prev is not None:  # skipped or failed at a smaller size
                row[s] = {"skipped": f"skipped at a smaller size ({prev.get('skipped') or 'error'})"}
                continue
            r = child(["--stack", s, "-n", str(n), "--chunk", str(chunk)], 3 * args.budget_seconds + 120)
            row[s] = r
            last[s] = r
            print(n, s, {k: r.get(k) for k in ("casts_per_s", "ms_per_cast_median", "peak_rss_mb", "skipped", "error")},
                  file=sys.stderr)
        for s, bases in RATIO_BASE.items():
            for base in bases:
                a, b = row.get(s, {}), row.get(base, {})
                if a.get("ms_per_cast_median") and b.get("ms_per_cast_median"):
                    a["ratio_to_" + base] = a["ms_per_cast_median"] / b["ms_per_cast_median"]
                    a["throughput_ratio_" + base] = b["casts_per_s"] / a["casts_per_s"]
        runs[str(n)] = row
        results["runs"] = runs
        Path(args.out).write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    results["checks"]["across_stacks"] = cross_checks(runs)

    print("profile …", file=sys.stderr)
    results["profile"] = child(["--profile", "-n", str(args.profile_n), "--chunk", str(chunk)], 10 * args.budget_seconds)
    if not args.no_cold_start:
        results["cli_cold_start"] = cold_start()
    results["targets"] = targets(runs)
    results["meta"]["loadavg_at_end"] = os.getloadavg()
    results["meta"]["wall_s"] = time.time() - started
    Path(args.out).write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(results["targets"], indent=2, ensure_ascii=False))


def targets(runs: dict) -> dict:
    """The issue's targets, each at the largest size where both sides ran."""
    def best(stack_a, stack_b, key):
        for size in sorted(runs, key=int, reverse=True):
            a = runs[size].get(stack_a, {})
            if key in a:
                return int(size), a[key]
        return None, None

    out = {}
    for name, stack, base, goal in (("owlready2+Pellet slower than engine on the same facts (>= 100x)", "swrl-pellet",
                                     "engine-swrl-subset", 100),
                                    ("owlready2+Pellet slower than engine deriving every state (>= 100x)", "swrl-pellet",
                                     "engine-states-batch", 100)):
        size, ratio = best(stack, base, "ratio_to_" + base)
        out[name] = {"size": size, "ratio": ratio, "met": ratio is not None and ratio >= goal}
    for name, base in (("engine", "engine-states-batch"), ("native", "native-states-batch")):
        size, ratio = best("oracle", base, "ratio_to_" + base)
        out[f"{name} within 10x of plain Python (states)"] = {"size": size, f"{name}_over_oracle": 1 / ratio if ratio else None,
                                                              "met": ratio is not None and 1 / ratio <= 10}
    for name, stack, base in (("native faster than engine (states+judgments, one cast per call)", "native-derive",
                               "engine-derive"),
                              ("native faster than engine (states)", "native-states-batch", "engine-states-batch")):
        size, ratio = best(stack, base, "ratio_to_" + base)
        out[name] = {"size": size, "engine_over_native": 1 / ratio if ratio else None,
                     "met": ratio is not None and ratio < 1}
    for stack in ("engine-batch-2proc", "engine-batch", "engine-states-batch", "native-derive", "native-states-batch",
                  "load-jobs-2", "load-cluster-2"):
        size, cps = best(stack, stack, "casts_per_s")
        out[f">= 1000 casts/s ({stack})"] = {"size": size, "casts_per_s": cps, "met": cps is not None and cps >= 1000}
    return out

if __name__ == "__main__":
    main()
