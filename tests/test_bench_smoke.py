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

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench.py"


def test_bench_runs_at_size_one(tmp_path):
    stacks = ["oracle", "engine-states-batch", "engine-swrl-subset", "engine-derive", "engine-batch", "engine-batch-2proc",
              "columnar-batch", "columnar-states-batch", "sqlite-derive", "columnar-jobs-2", "columnar-cluster-1"]
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
    assert results["checks"]["engine_vs_oracle"]["equal"]
    assert results["checks"]["across_stacks"]["1"]["inferred_quads (states+judgments)"]["equal"]
    assert results["checks"]["across_stacks"]["1"]["swrl_covered_facts"]["equal"]
    assert results["checks"]["across_stacks"]["1"]["inferred_quads (states)"]["equal"]  # the same state rules
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


def test_batch_cost_splits_a_batch_into_a_fixed_part_and_a_part_per_cast(tmp_path):
    out = tmp_path / "batch.json"
    subprocess.run([sys.executable, str(BENCH.parent / "batch_cost.py"), "--sizes", "1,4", "--repeat", "2",
                    "--repeat-size", "2", "--out", str(out)], check=True, capture_output=True, text=True, timeout=900)
    results = json.loads(out.read_text(encoding="utf-8"))
    assert [p["casts"] for p in results["sizes"]] == [1, 4] and results["fixed_s"] > 0
    kinds, largest = results["by_kind"], results["sizes"][-1]["cpu_s"]
    assert kinds["casts"] == 4 and kinds["wide_s"] > 0 and kinds["generic_s"] > 0
    assert abs(kinds["wide_s"] + kinds["generic_s"] + kinds["rest_s"] - largest) <= 0.02  # the parts make the whole
    successive = results["successive"]
    assert len(successive["one_engine_cpu_s"]) == len(successive["fresh_engine_cpu_s"]) == 2 and successive["build_s"] > 0
