"""Peak memory and throughput of `liuyao load` for generated batches of different sizes.

    python benchmarks/load.py --sizes 1000 10000 --jobs 2 [--backend native oxigraph] [--partition N]
    python benchmarks/load.py --sizes 100000 --parquet [--cluster local:2] [--partition N]

Each size: a seeded random batch (JSON Lines) is written to a temporary directory (nothing is kept),
then `liuyao load FILE --store TMP --quiet --jobs J` runs in a fresh subprocess, which reports its own
peak RSS (resource.getrusage RUSAGE_SELF: the parent, reader and single writer) and the largest of its
children's (RUSAGE_CHILDREN: the derivation workers). Then, in the same store: the same load again (must
load nothing) and the named query "casts whose use-god is 月破 and 回頭克" (median of 5 runs). The subprocess's
whole process tree is also sampled every `--sample-s` seconds (below). `--backend native oxigraph` runs the load
once with each (`liuyao load --backend`) on the same file and reports the ratio of their casts/s: native, the rules
compiled to Python, oxigraph, the reference engine (the rules' SPARQL on pyoxigraph), each in partitions of its batch
(reasoner.engines.REGISTRY) or of `--partition`. Prints one JSON object per run.

With `--parquet`: `liuyao load FILE --parquet TMP --quiet [--cluster ADDRESS]` instead (partitions derived by the
native engine, every rule; docs/loading.md), and memory is sampled every `--sample-s` seconds as the summed RSS of
the command's whole process tree (its job worker processes, or a local Dask cluster's scheduler, nannies and workers,
are its descendants; a remote cluster's are not counted): its peak, and the samples over the run's tenths, show
whether memory is bounded as the load proceeds. Reported: casts/s end to end (the command's wall time from start to exit, start-up included), the rows
written, the Parquet bytes.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
JIAZI = ["甲乙丙丁戊己庚辛壬癸"[i % 10] + BRANCHES[i % 12] for i in range(60)]

_CHILD = r"""
import json, os, resource, sys, time
argv, states_only = json.loads(sys.argv[1]), sys.argv[2] == "1"
backend = argv[argv.index("--backend") + 1] if "--backend" in argv else "native"
t0 = time.perf_counter()
if states_only:  # the library, chart-state rules only (derive_with(KnowledgeGraph(), chapter_rules=False))
    from liuyao_kg.load import derive_with
    from liuyao_kg.load.pipeline import load_file
    from liuyao_kg.store.embedded import KnowledgeGraph
    partition = int(argv[argv.index("--partition") + 1]) if "--partition" in argv else None
    kg = derive_with(KnowledgeGraph(argv[3]), chapter_rules=False, backend=backend)
    load_file(argv[1], kg, workers=int(argv[6]), partition=partition)
    kg.close()
    code = 0
else:  # the command as a user runs it (every rule, chapter judgments included)
    from liuyao_kg.cli import main
    real = sys.stdout
    sys.stdout = open(os.devnull, "w")
    code = main(argv)
    sys.stdout = real
seconds = time.perf_counter() - t0
# a second run of the same load is a no-op; then the issue's example query over the whole store
from liuyao_kg import queries
from liuyao_kg.load.pipeline import load_file
from liuyao_kg.store.embedded import KnowledgeGraph
from liuyao_kg.load import derive_with
kg = derive_with(KnowledgeGraph(argv[3]), chapter_rules=states_only is False, backend=backend)
t1 = time.perf_counter()
again = load_file(argv[1], kg, workers=1)
rerun_s = time.perf_counter() - t1
times = []
for _ in range(5):
    t2 = time.perf_counter()
    rows = queries.run(kg, "casts-where-use-god", first="月破", second="回頭克")
    times.append(time.perf_counter() - t2)
kg.close()
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"code": code, "seconds": round(seconds, 1),
                  "cpu_s_parent": round(me.ru_utime + me.ru_stime, 1),
                  "cpu_s_workers": round(kids.ru_utime + kids.ru_stime, 1),
                  "rerun_loaded": len(again["loaded"]), "rerun_s": round(rerun_s, 2),
                  "query_use_god_broken_and_return_overcome_ms": round(1000 * sorted(times)[2], 1),
                  "query_rows": len(rows),
                  "parent_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                  "worker_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)}))
"""


def write_batch(path: Path, n: int, seed: int = 4) -> None:
    from liuyao_kg.ontology import tables as T

    rnd = random.Random(seed)
    topics = [q[0] for q in T.QUESTIONS]
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            rec = {"id": f"c{i}", "spec": "".join(rnd.choice("6789") for _ in range(6)),
                   "month": rnd.choice(BRANCHES), "day": rnd.choice(JIAZI), "topic": topics[i % len(topics)]}
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")


def _tree_rss_mb(root: int) -> float:
    """The summed resident set of `root` and all its descendants (/proc), in MB."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            fields = stat[stat.rindex(")") + 2:].split()
            children.setdefault(int(fields[1]), []).append(int(d.name))
            rss[int(d.name)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            continue  # the process ended while being read
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo += children.get(pid, [])
    return total / 2**20


def _sampled(cmd: list[str], tmp: Path, sample_s: float) -> tuple[float, list[tuple[float, float]], str]:
    """Run `cmd`, sampling the summed RSS of its process tree every `sample_s` seconds: (wall seconds, [(time, MB)],
    its stdout). SystemExit with its stderr's end if it fails."""
    samples: list[tuple[float, float]] = []
    t0 = time.perf_counter()
    # stdout (a load's report: every loaded id, ~1.4 MB at 100,000 casts) to a file: a pipe read only at the end would
    # fill and stop the command before it exits
    with open(tmp / "stdout.txt", "w+") as out, open(tmp / "stderr.txt", "w+") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, text=True)
        while proc.poll() is None:
            samples.append((time.perf_counter() - t0, _tree_rss_mb(proc.pid)))
            try:
                proc.wait(timeout=sample_s)  # returns as soon as the command exits: its time is not rounded up
            except subprocess.TimeoutExpired:
                pass
        seconds = time.perf_counter() - t0
        if proc.returncode:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd[:3])} failed ({proc.returncode}): {err.read()[-2000:]}")
        out.seek(0)
        return seconds, samples, out.read()


def _tenths(samples: list[tuple[float, float]], seconds: float) -> list[float | None]:
    """The peak sample of each tenth of the run: flat from the first to the last when memory is bounded."""
    return [max((round(m, 1) for t, m in samples if k * seconds / 10 <= t < (k + 1) * seconds / 10), default=None)
            for k in range(10)]


def parquet_run(n: int, seed: int, cluster: str | None, sample_s: float, partition: int | None = None) -> dict:
    """One `liuyao load --parquet` of a generated batch of `n` casts, its process tree's memory sampled."""
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory() as tmp:
        batch, out = Path(tmp) / "casts.jsonl", Path(tmp) / "corpus"
        write_batch(batch, n, seed)
        cmd = [str(Path(sys.executable).with_name("liuyao")), "load", str(batch), "--parquet", str(out), "--quiet"]
        cmd += ["--cluster", cluster] if cluster else []
        cmd += ["--partition", str(partition)] if partition else []
        seconds, samples, _ = _sampled(cmd, Path(tmp), sample_s)

        def count(kind: str) -> int:
            return sum(pq.read_metadata(f).num_rows for f in out.glob(f"{kind}*.parquet"))

        tenths = _tenths(samples, seconds)
        return {"casts": n, "cluster": cluster, "partition": partition or "default", "rules": "all",
                "seconds": round(seconds, 1),
                "casts_per_s": round(n / seconds, 1), "states": count("states"), "judgments": count("judgments"),
                "parquet_mb": round(sum(p.stat().st_size for p in out.rglob("*.parquet")) / 2**20, 1),
                "input_mb": round(batch.stat().st_size / 2**20, 2),
                "peak_tree_rss_mb": round(max((m for _, m in samples), default=0.0), 1),
                "tree_rss_mb_peak_by_tenth_of_run": [round(m, 1) if m is not None else None for m in tenths],
                "sample_s": sample_s}


def run_meta() -> dict:
    """When, on how many cores, at what load, and the command: what a results file records of its run."""
    return {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cpus": os.cpu_count(),
            "loadavg_at_start": list(os.getloadavg()), "command": " ".join(["python", *sys.argv])}


def write_runs(out: str, meta: dict, runs: list) -> None:
    Path(out).write_text(json.dumps({"meta": {**meta, "loadavg_at_end": list(os.getloadavg())}, "runs": runs},
                                    indent=2) + "\n", encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[2000, 20000])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--states-only", action="store_true",
                    help="derive the chart states only (no chapter judgments): about 5x cheaper per cast")
    ap.add_argument("--parquet", action="store_true",
                    help="load into Parquet (liuyao load --parquet: partitions derived natively, all rules)")
    ap.add_argument("--cluster", help="with --parquet: liuyao load's --cluster (local:N or a scheduler address)")
    ap.add_argument("--partition", type=int, help="liuyao load's --partition (casts a partition derives)")
    ap.add_argument("--backend", choices=["native", "oxigraph"], nargs="+",
                    help="into a store: liuyao load's --backend, each in turn on the same file (default: the "
                         "command's own choice by the file's size); with two, the ratio of their casts/s")
    ap.add_argument("--sample-s", type=float, default=2.0, help="seconds between memory samples of the load's process tree")
    ap.add_argument("--out", help="also write the runs as JSON here, with the date, cores and load average")
    args = ap.parse_args()
    runs = []
    meta = run_meta()
    if args.cluster and not args.parquet:
        ap.error("--cluster needs --parquet")
    if args.backend and args.parquet:
        ap.error("--backend is for loads into a store (--parquet always derives natively)")
    for n in args.sizes:
        if args.parquet:
            runs.append(parquet_run(n, args.seed, args.cluster, args.sample_s, args.partition))
            print(json.dumps(runs[-1]), flush=True)
            continue
        by_backend = {}
        for backend in args.backend or [None]:
            with tempfile.TemporaryDirectory() as tmp:
                batch = Path(tmp) / "casts.jsonl"
                write_batch(batch, n, args.seed)
                argv = ["load", str(batch), "--store", str(Path(tmp) / "kg"), "--quiet", "--jobs", str(args.jobs)]
                argv += ["--backend", backend] if backend else []
                argv += ["--partition", str(args.partition)] if args.partition else []
                wall, samples, stdout = _sampled([sys.executable, "-c", _CHILD, json.dumps(argv),
                                                  "1" if args.states_only else "0"], Path(tmp), args.sample_s)
                result = json.loads(stdout.strip().splitlines()[-1])
                # the child's whole run: the load, then the same load again and the query
                result.update(peak_tree_rss_mb=round(max((m for _, m in samples), default=0.0), 1),
                              tree_rss_mb_peak_by_tenth_of_run=_tenths(samples, wall), sample_s=args.sample_s)
                result.update(casts=n, jobs=args.jobs, backend=backend or "default (by the file's size)",
                              partition=args.partition or "default", rules="states only" if args.states_only else "all",
                              casts_per_s=round(n / result["seconds"], 1), input_mb=round(batch.stat().st_size / 2**20, 2),
                              store_mb=round(sum(p.stat().st_size for p in (Path(tmp) / "kg").rglob("*")
                                                 if p.is_file()) / 2**20, 1))
                runs.append(result)
                by_backend[backend] = result
                print(json.dumps(result), flush=True)
        if {"native", "oxigraph"} <= by_backend.keys():
            ratio = {"casts": n, "native_over_oxigraph_casts_per_s":
                     round(by_backend["native"]["casts_per_s"] / by_backend["oxigraph"]["casts_per_s"], 2)}
            runs.append(ratio)
            print(json.dumps(ratio), flush=True)
    if args.out:
        write_runs(args.out, meta, runs)


if __name__ == "__main__":
    main()
