"""`liuyao load FILE --store DIR`: partitions derived by the native engine in worker processes, into a store.

The store must end up holding, quad for quad, what the reference engine's load (in this process) writes for the same file:
every cast's asserted and inferred graph, with the same report (loaded in file order, duplicates skipped, bad
records rejected with their reasons). A partition is written whole or not at all; `--parquet DIR` beside the store
writes the rows a Parquet-only load writes for the same casts.
"""
from __future__ import annotations

import json

import pytest

from liuyao_kg import namespaces as ns
from liuyao_kg.load.pipeline import load_file
from liuyao_kg.store.embedded import KnowledgeGraph
from liuyao_kg.loaders.errors import BatchError
from liuyao_kg.load.sinks import Parquet
from liuyao_kg.load import derive_with

BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
STEMS = "甲乙丙丁戊己庚辛壬癸"
TOPICS = ["求財", "婚姻", "疾病", "身命", "產育", "天時", "官事", "出行"]


def records() -> list[dict]:
    """Casts of every kind a batch file holds: dated (a zone offset) or by pillars, with a year, the asker's birth
    and sex, whom a 疾病 question is about; then a bad line value, a stem-branch that is no jiazi, and a repeat."""
    import random

    rng = random.Random(12)
    out = []
    for i in range(36):
        rec = {"id": f"r{i}", "lines": "".join(rng.choice("6789") for _ in range(6)), "topic": TOPICS[i % len(TOPICS)]}
        if i % 3 == 0:
            rec["date"] = f"2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T1{rng.randint(0, 9)}:28:00+08:00"
        else:
            d = rng.randrange(60)
            rec |= {"month": rng.choice(BRANCHES), "day": STEMS[d % 10] + BRANCHES[d % 12]}
        if i % 4 == 1:
            rec |= {"birth": rng.choice(BRANCHES), "sex": rng.choice("男女")}
        if rec["topic"] == "疾病" and i % 2:
            rec["about"] = "父母"
        out.append(rec)
    out.insert(7, {"id": "bad-line", "lines": "787985", "month": "寅", "day": "辛亥"})
    out.insert(20, {"id": "bad-day", "lines": "787986", "month": "寅", "day": "甲丑"})
    out.append(dict(out[3], id="again"))
    return out


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    path = tmp_path_factory.mktemp("batch") / "casts.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records()), encoding="utf-8")
    return path


def cast_quads(kg) -> list[str]:
    """Every quad of every cast graph (asserted and inferred) the store holds, sorted."""
    return sorted(str(q) for q in kg._ox.quads_for_pattern(None, None, None) if q.graph_name.value.startswith(ns.CAST))


def cast_graphs(kg) -> set[str]:
    """The cast graphs the store holds, asserted and inferred."""
    return {q.graph_name.value for q in kg._ox.quads_for_pattern(None, None, None) if q.graph_name.value.startswith(ns.CAST)}


@pytest.fixture(scope="module")
def reference(batch, tmp_path_factory):
    """The file loaded by the reference engine, SPARQL on pyoxigraph (partitions of 50 in this process): the store and
    report to match."""
    kg = derive_with(KnowledgeGraph(tmp_path_factory.mktemp("reference") / "kg"), backend="oxigraph")
    report = load_file(batch, kg)
    quads = cast_quads(kg)
    kg.close()
    return report, quads


@pytest.fixture(scope="module")
def partitioned(batch, tmp_path_factory):
    """The same file in partitions of 10 derived by two worker processes, into a store on disk."""
    path = tmp_path_factory.mktemp("partitioned") / "kg"
    stats: dict = {}
    kg = KnowledgeGraph(path)
    report = load_file(batch, kg, workers=2, partition=10, stats=stats)
    return kg, report, stats, path


def test_the_partitioned_load_stores_the_quads_the_reference_stores(partitioned, reference):
    kg, _, _, _ = partitioned
    assert cast_quads(kg) == reference[1]


def test_the_partitioned_load_reports_what_the_reference_load_reports(partitioned, reference):
    _, report, stats, _ = partitioned
    assert report == reference[0]
    assert report["skipped"] == ["again"] and [r["id"] for r in report["rejected"]] == ["bad-line", "bad-day"]
    assert "甲丑" in report["rejected"][1]["reason"]
    assert (stats["records"], stats["jobs"]) == (39, 2) and len(stats["errors"]) == 2  # the rejections, for the CLI to word


def test_loading_the_file_again_loads_nothing_and_derives_nothing(partitioned, batch, monkeypatch):
    from liuyao_kg.load import pipeline

    kg, _, _, _ = partitioned
    monkeypatch.setattr(pipeline, "derive_partition", None)  # any partition derived would fail
    again = load_file(batch, kg, partition=10)
    assert again["loaded"] == [] and len(again["skipped"]) == 37


def test_the_in_memory_store_takes_the_same_quads(batch, reference):
    kg = KnowledgeGraph()
    load_file(batch, kg, partition=40)
    assert cast_quads(kg) == reference[1]


def test_a_partition_that_fails_to_be_written_leaves_the_ones_before_it_and_none_of_itself(batch, tmp_path,
                                                                                          monkeypatch, reference):
    """Partitions are written whole, in file order: the second failing (a full disk, say) leaves the first's casts in
    the store complete and none of the second's; the N-Quads files are removed; loading the file again completes it."""
    kg = KnowledgeGraph(tmp_path / "kg")
    real, writes = KnowledgeGraph.write_derived, []

    def failing(self, nquads, casts=None):
        writes.append(nquads)
        if len(writes) == 2:
            raise OSError(28, "No space left on device")
        return real(self, nquads, casts)

    monkeypatch.setattr(KnowledgeGraph, "write_derived", failing)
    with pytest.raises(OSError, match="No space left"):
        load_file(batch, kg, partition=20)
    first = cast_graphs(kg)
    assert len(first) == 2 * 20  # the first partition's 20 casts (bad records never enter one), two graphs each
    assert not any(p.exists() for p in writes)  # each partition's N-Quads file removed, loaded or not
    monkeypatch.setattr(KnowledgeGraph, "write_derived", real)
    again = load_file(batch, kg, partition=20)
    assert len(again["loaded"]) == 36 - 20
    assert cast_quads(kg) == reference[1]


def test_parquet_beside_the_store_holds_the_rows_a_parquet_load_writes(batch, tmp_path):
    from test_parquet_load import rows

    kg = KnowledgeGraph(tmp_path / "kg")
    both = load_file(batch, [Parquet(tmp_path / "beside"), kg], partition=20)
    alone = load_file(batch, Parquet(tmp_path / "alone"), partition=20)
    assert both == alone  # the report, states and judgments counted alike
    for name in ("states", "judgments"):
        assert rows(tmp_path / "beside", name) == rows(tmp_path / "alone", name)
    assert len(cast_graphs(kg)) == 2 * len(both["loaded"])


def test_abort_with_a_bad_record_loads_nothing(batch, tmp_path):
    kg = KnowledgeGraph(tmp_path / "kg")
    with pytest.raises(BatchError, match="2 of 39 record"):
        load_file(batch, kg, on_error="abort")
    assert cast_quads(kg) == []


def test_an_outdated_store_is_refused_before_anything_is_derived(batch, tmp_path, monkeypatch):
    from liuyao_kg.load import pipeline
    from liuyao_kg.store.versioning import OutdatedStoreError

    kg = KnowledgeGraph(tmp_path / "kg")
    kg.outdated = {ns.GRAPH_RULES: ("sha256:old", "sha256:new")}
    monkeypatch.setattr(pipeline, "derive_partition", None)
    with pytest.raises(OutdatedStoreError, match="liuyao upgrade"):
        load_file(batch, kg)


@pytest.mark.parametrize("argv, message", [
    (["--store", "S", "--cluster", "local:2", "--parquet", "P"], "--cluster needs --parquet DIR and writes Parquet only"),
    (["--store", "S", "--partition", "0"], "--partition 0"),
    (["--parquet", "P", "--cluster", "local:2", "--jobs", "2"], "--jobs with --cluster"),
    (["--store", "S", "--jobs", "0"], "--jobs 0"),
])
def test_load_options_that_do_not_go_together_are_refused_by_name(batch, tmp_path, monkeypatch, capsys, argv, message):
    from liuyao_kg.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["load", str(batch), "--quiet", *argv, "--lang", "en"]) == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # nothing opened or created


def test_the_command_loads_a_store_and_parquet_together(batch, tmp_path, reference):
    from liuyao_kg.cli import main

    assert main(["load", str(batch), "--store", str(tmp_path / "kg"), "--parquet", str(tmp_path / "pq"),
                 "--partition", "20", "--quiet"]) == 0
    kg = KnowledgeGraph(tmp_path / "kg")
    assert cast_quads(kg) == reference[1]
    assert len(list((tmp_path / "pq").glob("judgments-*.parquet"))) == 2
