"""Time of `liuyao upgrade` each way it can derive, on the same stores, checked equal.

    python benchmarks/upgrade.py --sizes 2000 --out benchmarks/results-upgrade.json

Each size: a seeded batch (benchmarks/load.py's) is loaded into a store on disk, which is then made *old*: its rules
layer loses MonthBroken, every cast is derived again with what is left, and the layer is recorded as version
`sha256:old` — a store as an earlier rule base left it. Two copies of it are upgraded (each in a fresh subprocess,
its process tree's memory sampled), then each again with `--force`, when nothing changes. Both derive a partition
at a time (liuyao_kg/load/upgrade.py), each cast's graph changed only where it differs:

  native       `liuyao upgrade --store DIR`: the native engine, partitions of its batch (or `--partition N`)
  oxigraph     the library's `upgrade_graph` on a store opened with `backend="oxigraph"`: the reference engine (the
               rules' SPARQL on pyoxigraph), partitions of its batch (or `--partition N`)

The two upgraded stores must hold the same quads (the layers' version records aside): `equal` in the output.
Prints one JSON object per size.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import _sampled, run_meta, write_batch, write_runs  # noqa: E402  (benchmarks/load.py's)

RULE = "https://w3id.org/liuyao-kg/rule/MonthBroken"
MODES = ("native", "oxigraph")

#: an upgrade by the library, on a store opened for a backend (`liuyao upgrade` derives natively), its report printed
_LIBRARY = r"""
import json, sys, warnings
from liuyao_kg.store import versioning
from liuyao_kg.store.embedded import KnowledgeGraph
from liuyao_kg.load.upgrade import upgrade_graph
from liuyao_kg.load import derive_with
store, backend, partition, force = sys.argv[1], sys.argv[2], int(sys.argv[3]) or None, sys.argv[4] == "1"
with warnings.catch_warnings():
    warnings.simplefilter("ignore", versioning.OutdatedStoreWarning)
    kg = derive_with(KnowledgeGraph(store), backend=backend)
try:
    print(json.dumps(upgrade_graph(kg, force=force, partition=partition), ensure_ascii=False))
finally:
    kg.close()
"""


def make_old(path: Path) -> None:
    """The store as a rule base without RULE would have left it (liuyao_kg/load/upgrade.py reads it as outdated)."""
    from liuyao_kg import namespaces as ns
    from liuyao_kg.store.embedded import KnowledgeGraph
    from liuyao_kg.load.upgrade import upgrade_graph
    from liuyao_kg.store.versioning import record

    kg = KnowledgeGraph(path)
    try:
        kg.store.update(f"DELETE WHERE {{ GRAPH <{ns.GRAPH_RULES}> {{ <{RULE}> ?p ?o }} }}")
        kg.__dict__.pop("engine", None)
        upgrade_graph(kg, force=True)  # every cast derived with the rules as they now stand
        record(kg.store, ns.GRAPH_RULES, "sha256:old")
    finally:
        kg.close()


def quads(path: Path) -> set:
    import pyoxigraph as ox

    from liuyao_kg.store.versioning import GRAPH_META

    store = ox.Store.read_only(str(path))
    return {q for q in store.quads_for_pattern(None, None, None, None) if q.graph_name.value != GRAPH_META}


def upgrade_run(store: Path, mode: str, force: bool, tmp: Path, sample_s: float, partition: int | None = None) -> dict:
    """One upgrade of `store` (`mode`: one of MODES), in a fresh subprocess, its process tree's memory sampled."""
    if mode == "native":
        cmd = [str(Path(sys.executable).with_name("liuyao")), "upgrade", "--store", str(store), "--quiet"]
        cmd += (["--partition", str(partition)] if partition else []) + (["--force"] if force else [])
    else:
        cmd = [sys.executable, "-c", _LIBRARY, str(store), mode, str(partition or 0), "1" if force else "0"]
    seconds, samples, stdout = _sampled(cmd, tmp, sample_s)
    report = json.loads(stdout)
    return {"seconds": round(seconds, 1), "casts_per_s": round(report["casts"] / seconds, 1),
            "casts": report["casts"], "changed": report.get("changed"), "inferred_quads": report["inferred_quads"],
            "peak_tree_rss_mb": round(max((m for _, m in samples), default=0.0), 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[2000])
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--sample-s", type=float, default=2.0)
    ap.add_argument("--partition", type=int, help="casts an upgrade derives together (default: the engine's batch)")
    ap.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES), help="the upgrades compared (default all)")
    ap.add_argument("--out", help="also write the runs as JSON here, with the date, cores and load average")
    args = ap.parse_args()
    meta = run_meta()
    runs = []
    for n in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            write_batch(tmp / "casts.jsonl", n, args.seed)
            _sampled([str(Path(sys.executable).with_name("liuyao")), "load", str(tmp / "casts.jsonl"), "--store",
                      str(tmp / "old"), "--quiet"], tmp, args.sample_s)
            make_old(tmp / "old")
            run = {"casts": n, "rules": "all", "old": f"the rules without {RULE.rsplit('/', 1)[1]}"}
            for mode in args.modes:
                store = tmp / mode
                shutil.copytree(tmp / "old", store)
                run[mode] = upgrade_run(store, mode, False, tmp, args.sample_s, args.partition)
                run[mode + "_force"] = upgrade_run(store, mode, True, tmp, args.sample_s, args.partition)
            first = quads(tmp / args.modes[0])
            run["equal"] = all(quads(tmp / mode) == first for mode in args.modes[1:])
            for fast, slow in (("native", "oxigraph"),):
                if fast in args.modes and slow in args.modes:
                    for case in ("", "_force"):  # how many times faster `fast` was
                        run[f"{fast}_over_{slow}{case}"] = round(run[slow + case]["seconds"] / run[fast + case]["seconds"], 2)
        runs.append(run)
        print(json.dumps(run), flush=True)
    if args.out:
        write_runs(args.out, meta, runs)


if __name__ == "__main__":
    main()
