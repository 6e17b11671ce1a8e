"""benchmarks/bench.py runs end to end at size 1 for the fast stacks and writes its JSON.

The benchmark itself is not part of the test run; this only keeps it from rotting. najia is in the
optional `[bench]` extra, so its stack is left out when it is not installed.
"""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.exhaustive

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench.py"


def test_bench_runs_at_size_one(tmp_path):
    stacks = ["oracle", "engine-states-batch", "engine-swrl-subset", "engine-derive", "engine-batch", "engine-batch-2proc",
              "native-derive", "native-states-batch", "load-jobs-2", "load-cluster-1"]
    if importlib.util.find_spec("najia") is not None:
        stacks.append("najia")
    out = tmp_path / "results.json"
    subprocess.run([sys.executable, str(BENCH), "--sizes", "1", "--stacks", ",".join(stacks), "--chunk", "10",
                    "--check", "3", "--profile-n", "2", "--no-cold-start", "--out", str(out)],
                   check=True, capture_output=True, text=True, timeout=600)
    results = json.loads(out.read_text(encoding="utf-8"))
    row = results["runs"]["1"]
    assert set(stacks) <= set(row)
    for s in stacks:
        assert row[s]["casts"] == 1 and row[s]["ms_per_cast_median"] > 0 and row[s]["peak_rss_mb"] > 0
    # the engine-* stacks are the reference Engine (SPARQL on pyoxigraph), the native-* ones the rules compiled to Python
    assert {row[s]["engine"] for s in stacks if s.startswith("engine-") and "engine" in row[s]} == {"Engine"}
    assert {row[s]["engine"] for s in ("native-derive", "native-states-batch")} == {"NativeEngine"}
    checks = results["checks"]
    assert checks["engine_vs_oracle"]["equal"] and checks["engine_vs_oracle"]["engine"] == "Engine"
    assert checks["native_vs_oracle"]["equal"] and checks["native_vs_oracle"]["engine"] == "NativeEngine"
    across = checks["across_stacks"]["1"]
    assert across["inferred_quads (states+judgments)"] == {
        "stacks": ["engine-batch", "engine-batch-2proc", "engine-derive", "native-derive"], "equal": True}
    assert across["swrl_covered_facts"]["equal"]
    assert set(across["swrl_covered_facts"]["stacks"]) == {"engine-states-batch", "engine-swrl-subset", "native-states-batch"}
    # the same state rules, on both engines
    assert across["inferred_quads (states)"] == {"stacks": ["engine-states-batch", "native-states-batch"], "equal": True}
    for s in ("load-jobs-2", "load-cluster-1"):  # a Parquet load of the one cast: its states and judgments written
        assert row[s]["states"] > 0 and row[s]["judgments"] >= 0
    assert row["native-derive"]["ratio_to_engine-derive"] > 0 and row["oracle"]["ratio_to_native-states-batch"] > 0
    assert results["profile"]["rules_run"] > 0
    if "najia" in stacks:
        assert results["checks"]["najia"]["vs_engine"]["disagreements"] == 0


def test_chart_scaling_runs_and_checks_the_answers_do_not_depend_on_other_casts(tmp_path):
    out = tmp_path / "scaling.json"
    subprocess.run([sys.executable, str(BENCH.parent / "chart_scaling.py"), "--sizes", "1,3", "--sample", "1",
                    "--out", str(out)], check=True, capture_output=True, text=True, timeout=600)
    results = json.loads(out.read_text(encoding="utf-8"))
    from liuyao_kg.chart import CHART_QUERIES

    assert results["sizes"] == [1, 3] and set(CHART_QUERIES) <= set(results["ms_median"]["3"])
    assert all(v > 0 for v in results["ms_median"]["1"].values())


def test_single_cast_breakdown_counts_the_rule_evaluations_and_times_each_chart_query(tmp_path):
    out = tmp_path / "single.json"
    subprocess.run([sys.executable, str(BENCH.parent / "single_cast.py"), "--casts", "2", "--repeat", "1",
                    "--out", str(out)], check=True, capture_output=True, text=True, timeout=600)
    results = json.loads(out.read_text(encoding="utf-8"))
    from liuyao_kg.chart import CHART_QUERIES

    for part in ("levels", "recursive_strata"):
        assert 0 <= results["found_nothing_per_cast"][part] <= results["evaluations_per_cast"][part]
        assert 0 <= results["query_ms_per_cast_finding_nothing"][part] <= results["query_ms_per_cast"][part]
    assert results["evaluations_per_cast"]["levels"] > 0 and results["new_cast_median_ms"] > 0
    assert set(CHART_QUERIES) <= set(results["chart_queries_ms"]) and all(v > 0 for v in results["chart_queries_ms"].values())

