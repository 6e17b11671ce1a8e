"""`liuyao load --parquet DIR`: the states and judgments of a batch as Parquet, equal to the store's.

The judgments (rule, lines) and states (class, rule, line) read back from the Parquet files must be the
ones the pyoxigraph engine puts in the RDF store for the same file; bad records are rejected with their
reason and a directory holding an earlier load is refused. Two worker processes and the Dask run (`--cluster
local:2`) must write the same rows as the single-process run (marker `cluster`: it starts a local cluster).
"""
from __future__ import annotations

import json
import sys

import pyarrow.parquet as pq
import pytest

from liuyao_kg.load.pipeline import load_file
from liuyao_kg.store.embedded import KnowledgeGraph
from liuyao_kg.loaders.errors import BatchError
from liuyao_kg.load.sinks import Parquet
from liuyao_kg.load.workers import Cluster, workers_of
from liuyao_kg.load import add_casts, derive_with
from samples import sample_casts

JUDGMENTS = """PREFIX lyo: <https://w3id.org/liuyao-kg/ontology#>
PREFIX prov: <http://www.w3.org/ns/prov#>
SELECT ?cast ?rule (GROUP_CONCAT(STRAFTER(STR(?l), "/line/"); separator=",") AS ?lines) WHERE {
  ?j a lyo:Judgment ; lyo:judgmentOf ?cast ; prov:wasDerivedFrom ?rule .
  OPTIONAL { ?j lyo:matchedLine ?l } } GROUP BY ?cast ?j ?rule"""
STATES = """PREFIX lyo: <https://w3id.org/liuyao-kg/ontology#>
PREFIX prov: <http://www.w3.org/ns/prov#>
SELECT ?cast ?state ?class ?rule WHERE {
  ?state lyo:stateOf ?of ; lyo:inCast ?cast ; prov:wasDerivedFrom ?rule ; a ?class .
  FILTER(STRSTARTS(STR(?class), STR(lyo:))) }"""


@pytest.fixture
def batch(tmp_path):
    path = tmp_path / "casts.jsonl"
    rows = [{"id": f"r{i}", "lines": v, "month": m, "day": d, "topic": t} for i, (v, m, d, t) in enumerate(sample_casts(30, seed=8))]
    rows.append({"id": "bad", "lines": "787985", "month": "寅", "day": "辛亥"})
    rows.append(dict(rows[0], id="again"))
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def rows(directory, name: str) -> list[tuple]:
    """The rows of every `name` file of a directory: (cast, rule, "lines,joined") or (cast, state, class, rule)."""
    out = []
    for path in sorted(directory.glob(f"{name}*.parquet")):
        for r in pq.read_table(path).to_pylist():
            out.append((r["cast"], r["rule"], None if r["lines"] is None else ",".join(map(str, r["lines"])))
                       if name == "judgments" else (r["cast"], r["state"], r["class"], r["rule"]))
    return sorted(out, key=lambda r: tuple("" if x is None else str(x) for x in r))


def test_parquet_holds_the_judgments_and_states_the_store_holds(batch, tmp_path):
    report = load_file(batch, Parquet(tmp_path / "pq"), partition=12)
    assert report["skipped"] == ["again"] and [r["id"] for r in report["rejected"]] == ["bad"]
    assert len(report["loaded"]) == 30
    kg = KnowledgeGraph()
    load_file(batch, kg, workers=1)
    store_judgments = sorted((r["cast"], r["rule"], ",".join(sorted(r["lines"].split(","), key=int)) if r["lines"] else "")
                             for r in kg.select(JUDGMENTS))
    got = [(c, r, lines or "") for c, r, lines in rows(tmp_path / "pq", "judgments")]
    assert got == store_judgments
    store_states = sorted((r["cast"], r["state"], r["class"], r["rule"]) for r in kg.select(STATES))
    assert rows(tmp_path / "pq", "states") == store_states
    assert report["judgments"] == len(got) and len(list((tmp_path / "pq").glob("states-*.parquet"))) == 3


def test_a_directory_holding_an_earlier_load_is_refused(batch, tmp_path):
    load_file(batch, Parquet(tmp_path / "pq"))
    with pytest.raises(BatchError, match="already holds"):
        load_file(batch, Parquet(tmp_path / "pq"))


def test_a_bad_cluster_address_is_a_clear_error(batch, tmp_path):
    with pytest.raises(BatchError, match="local:N needs"):
        load_file(batch, Parquet(tmp_path / "pq"), Cluster("local:zero"))


def test_two_jobs_write_what_one_job_writes(batch, tmp_path):
    one_stats, two_stats = {}, {}
    one = load_file(batch, Parquet(tmp_path / "one"), workers=1, stats=one_stats, partition=8)
    two = load_file(batch, Parquet(tmp_path / "two"), workers=2, stats=two_stats, partition=8)
    assert (one_stats["jobs"], two_stats["jobs"]) == (1, 2)
    assert two == one  # the report too: casts listed in file order, counts summed
    for name in ("states", "judgments"):
        assert rows(tmp_path / "two", name) == rows(tmp_path / "one", name)


def test_a_file_of_one_partition_takes_one_job_whatever_is_asked(batch, tmp_path):
    stats = {}
    load_file(batch, Parquet(tmp_path / "pq"), workers=4, stats=stats)
    assert (stats["records"], stats["jobs"]) == (32, 1)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_load_that_fails_leaves_no_file_of_it(batch, tmp_path, monkeypatch, jobs):
    """Partitions are written into a hidden directory and moved into DIR once the whole load is done: a partition
    that fails (here the third of four: a full disk, say) leaves DIR without any file of the load, half-written or not."""
    from liuyao_kg.load import pipeline
    from partition_faults import full_disk_at_the_third

    real = pipeline.derive_partition
    # what the load submits to its worker processes, found there by its module's name
    monkeypatch.setattr(pipeline, "derive_partition", full_disk_at_the_third)
    with pytest.raises(OSError, match="No space left"):
        load_file(batch, Parquet(tmp_path / "pq"), workers=jobs, partition=8)
    assert list((tmp_path / "pq").iterdir()) == []
    monkeypatch.setattr(pipeline, "derive_partition", real)
    report = load_file(batch, Parquet(tmp_path / "pq"), workers=jobs, partition=8)  # DIR takes the same load again
    assert len(report["loaded"]) == 30 and sorted(p.name for p in (tmp_path / "pq").iterdir()) == [
        f"{name}-{part:06d}.parquet" for name in ("casts", "judgments", "states") for part in range(4)]


def test_a_load_does_not_replace_files_another_load_wrote_into_its_directory_meanwhile(batch, tmp_path, monkeypatch):
    from liuyao_kg.load import pipeline

    real = pipeline.derive_partition

    def meanwhile(records, part, **options):  # another load of DIR finishes while this one derives
        (tmp_path / "pq" / f"states-{part:06d}.parquet").write_bytes(b"another load's")
        return real(records, part, **options)

    monkeypatch.setattr(pipeline, "derive_partition", meanwhile)
    with pytest.raises(BatchError, match="received another load's files while this one ran .*states-000000.parquet"):
        load_file(batch, Parquet(tmp_path / "pq"), workers=1)
    assert (tmp_path / "pq" / "states-000000.parquet").read_bytes() == b"another load's"
    (staging,) = (tmp_path / "pq").glob(".partial-*")  # this load's files, kept and named in the error
    assert sorted(f.name for f in staging.iterdir()) == ["casts-000000.parquet", "judgments-000000.parquet",
                                                         "states-000000.parquet"]


def test_the_default_jobs_are_as_many_as_the_memory_holds(monkeypatch):
    from liuyao_kg.load import workers as parquet_load

    monkeypatch.setattr(parquet_load.os, "cpu_count", lambda: 64)
    per_job = parquet_load.JOB_BYTES
    monkeypatch.setattr(parquet_load, "available_memory", lambda: 3 * per_job + per_job // 2)
    assert parquet_load.default_jobs() == 3
    monkeypatch.setattr(parquet_load, "available_memory", lambda: per_job // 10)
    assert parquet_load.default_jobs() == 1  # one job whatever the memory: the load runs, as before
    monkeypatch.setattr(parquet_load, "available_memory", lambda: None)
    assert parquet_load.default_jobs() == 64
    monkeypatch.setattr(parquet_load, "available_memory", lambda: 1000 * per_job)
    assert parquet_load.default_jobs() == 64


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="MemAvailable is Linux's (elsewhere: a job per CPU)")
def test_the_memory_available_is_read_on_linux():
    from liuyao_kg.load.workers import available_memory

    assert available_memory() > 0


def test_jobs_with_a_cluster_are_refused(batch, tmp_path):
    with pytest.raises(BatchError, match="the cluster's workers derive"):
        load_file(batch, Parquet(tmp_path / "pq"), workers_of(2, "local:2"))
    assert not (tmp_path / "pq").exists()


def test_the_command_writes_partitions_of_the_size_asked_with_the_same_rows(batch, tmp_path):
    from liuyao_kg.cli import main

    assert main(["load", str(batch), "--parquet", str(tmp_path / "by8"), "--partition", "8", "--quiet"]) == 0
    assert main(["load", str(batch), "--parquet", str(tmp_path / "whole"), "--quiet"]) == 0
    # 30 good casts: four partitions of at most 8, or one of the default size
    assert len(list((tmp_path / "by8").glob("states-*.parquet"))) == 4
    assert len(list((tmp_path / "whole").glob("states-*.parquet"))) == 1
    for name in ("states", "judgments"):
        assert rows(tmp_path / "by8", name) == rows(tmp_path / "whole", name)


@pytest.mark.cluster
def test_a_local_dask_cluster_of_two_workers_writes_what_one_process_writes(batch, tmp_path):
    single = load_file(batch, Parquet(tmp_path / "one"), partition=8)
    spread = load_file(batch, Parquet(tmp_path / "two"), Cluster("local:2"), partition=8)
    assert sorted(spread["loaded"]) == sorted(single["loaded"])
    for name in ("states", "judgments"):
        assert rows(tmp_path / "two", name) == rows(tmp_path / "one", name)


def test_the_casts_file_holds_each_cast_s_reading_as_its_chart_gives_it(batch, tmp_path):
    """casts-<part>.parquet: a row a loaded record, with the hexagrams, the question, the verdict and the 應期
    branches in rank order as the chart shows them (read by SPARQL off the reference engine's store)."""
    from liuyao_kg.chart import chart
    from liuyao_kg.loaders.batch import iter_batch
    from liuyao_kg.loaders.rdf import cast_quads

    report = load_file(batch, Parquet(tmp_path / "pq"), partition=12)
    got = {}
    for path in sorted((tmp_path / "pq").glob("casts-*.parquet")):
        for r in pq.read_table(path).to_pylist():
            got[r["record"]] = r
    assert sorted(got) == sorted(report["loaded"])
    kg = derive_with(KnowledgeGraph(), backend="oxigraph")
    for rid, ci in iter_batch(batch):
        if rid not in got:  # the bad record and the repeat
            continue
        (iri,) = add_casts(kg, cast_quads(ci))
        c = chart(kg, iri)
        row = got[rid]
        assert row["cast"] == iri and (row["primary"], row["changed"]) == (
            c["primary"]["name"], c["changed"]["name"] if c["changed"] else None)
        assert (row["topic"], row["reading_school"]) == (c["topic"], c["reading_school"])
        assert (row["verdict"], row["favourable"]) == ((c["verdict"] or {}).get("polarity"),
                                                       (c["verdict"] or {}).get("favourable"))
        assert row["timing"] == [t["branch"] for t in c["timing"]]
