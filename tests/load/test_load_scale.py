"""`liuyao load` at scale: progress and summary on stderr, no-op re-runs, worker processes, streaming."""
from __future__ import annotations

import io
import json

import pyoxigraph as ox
import pytest

from liuyao_kg import namespaces as ns
from liuyao_kg.load.pipeline import load_file
from liuyao_kg.store import StoreFullError
from liuyao_kg.cli import main
from liuyao_kg.store.embedded import GRAPH_JOURNAL, InterruptedLoadWarning, KnowledgeGraph
from liuyao_kg.loaders.cast_input import make_cast_input
from liuyao_kg.loaders.rdf import cast_quads
from liuyao_kg.loaders import BatchError
from liuyao_kg.loaders.batch import iter_batch
from liuyao_kg.progress import Progress
from liuyao_kg.load import derive_with

from samples import sample_casts
from store_doubles import Wrapped


def _write_batch(path, n, seed=11, bad_every=0):
    with open(path, "w", encoding="utf-8") as f:
        for i, (values, month, day, topic) in enumerate(sample_casts(n, seed)):
            rec = {"id": f"c{i}", "spec": values, "month": month, "day": day, "topic": topic}
            if bad_every and i % bad_every == bad_every - 1:
                rec["day"] = "甲丑"
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return path


def _quads(kg):
    """Every quad of every cast graph (asserted and inferred)."""
    return {q for q in kg.store if q.graph_name.value.startswith(ns.CAST)}


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_redraws_one_line_on_a_terminal_and_writes_plain_lines_elsewhere():
    tty = _Tty()
    p = Progress("load x", stream=tty, tty_interval=0)
    p.update(5, 10, loaded=4, skipped=1, rejected=0)
    p.close()
    out = tty.getvalue()
    assert out.startswith("\rload x  [############............]  50% 5/10") and "\x1b[K" in out
    assert "loaded 4 · skipped 1 · rejected 0" in out and out.endswith("\n")
    log = io.StringIO()
    p = Progress("load x", stream=log, interval=0)
    p.update(5, 10)
    p.close()
    assert "\r" not in log.getvalue() and log.getvalue().splitlines()[0].startswith("load x  50% 5/10")
    quiet = io.StringIO()
    p = Progress("load x", stream=quiet, quiet=True)
    p.update(1, 2)
    p.close()
    assert quiet.getvalue() == ""


def test_load_prints_progress_and_a_summary_with_each_rejection_and_rerun_is_a_no_op(tmp_path, capsys):
    batch = _write_batch(tmp_path / "casts.jsonl", 6, bad_every=3)
    store = str(tmp_path / "kg")
    code = main(["load", str(batch), "--store", store, "--jobs", "1", "--lang", "en"])
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert code == 0 and report["loaded"] == ["c0", "c1", "c3", "c4"]
    assert [r["id"] for r in report["rejected"]] == ["c2", "c5"]
    assert "load casts.jsonl" in err and "6/6" in err
    assert "6 record(s): loaded 4, already present (skipped as duplicate) 0, rejected 2" in err
    assert "rejected: record 'c2', line 3, field day: " in err and "甲丑" in err
    with KnowledgeGraph(store) as kg:
        before = _quads(kg)
    code = main(["load", str(batch), "--store", store, "--quiet"])
    out, err = capsys.readouterr()
    again = json.loads(out)
    assert code == 0 and err == "" and again["loaded"] == [] and again["skipped"] == report["loaded"]
    with KnowledgeGraph(store) as kg:
        assert _quads(kg) == before  # nothing written


def test_a_cast_repeated_in_the_file_is_loaded_once(tmp_path):
    batch = tmp_path / "dup.jsonl"
    batch.write_text('{"id": "a", "spec": "787986", "month": "寅", "day": "辛亥"}\n'
                     '{"id": "b", "spec": "787986", "month": "寅", "day": "辛亥"}\n', encoding="utf-8")
    report = load_file(batch, derive_with(KnowledgeGraph(), chapter_rules=False), partition=1)
    assert report == {"loaded": ["a"], "skipped": ["b"], "rejected": []}


def test_two_worker_processes_load_exactly_what_one_process_loads(tmp_path):
    batch = _write_batch(tmp_path / "casts.jsonl", 24, seed=5, bad_every=10)
    one, two = derive_with(KnowledgeGraph(), chapter_rules=False), derive_with(KnowledgeGraph(), chapter_rules=False)
    stats1, stats2 = {}, {}
    r1 = load_file(batch, one, workers=1, partition=5, stats=stats1)
    r2 = load_file(batch, two, workers=2, partition=5, stats=stats2)
    assert stats1["jobs"] == 1 and stats2["jobs"] == 2
    assert r1 == r2 and len(r1["loaded"]) == 22 and len(r1["rejected"]) == 2
    assert _quads(one) == _quads(two) and len(_quads(one)) > 22 * 100
    assert load_file(batch, two, workers=2, partition=5)["loaded"] == []


def test_partitions_grouped_by_topic_load_what_one_cast_at_a_time_loads_and_report_in_file_order(tmp_path):
    """The reference engine derives a partition in one evaluation of each rule: its partitions hold one topic each
    (chapter rules then run only on their topic's partitions)."""
    batch = _write_batch(tmp_path / "casts.jsonl", 16, seed=8)
    topics = [t for *_, t in sample_casts(16, 8)]
    assert len(set(topics)) > 3
    grouped, single = (derive_with(KnowledgeGraph(), backend="oxigraph") for _ in range(2))
    report = load_file(batch, grouped, partition=4)
    assert report["loaded"] == [f"c{i}" for i in range(16)]
    assert load_file(batch, single, partition=1)["loaded"] == report["loaded"]
    assert _quads(grouped) == _quads(single)


def test_a_store_on_disk_gets_exactly_the_quads_of_a_store_in_memory(tmp_path):
    """On disk the chunks go through the journaled bulk loader, in memory through one transaction."""
    batch = _write_batch(tmp_path / "casts.jsonl", 12, seed=9)
    memory, disk = derive_with(KnowledgeGraph(), chapter_rules=False), derive_with(KnowledgeGraph(tmp_path / "kg"), chapter_rules=False)
    assert load_file(batch, memory, partition=5) == load_file(batch, disk, partition=5)
    assert _quads(disk) == _quads(memory) and len(_quads(disk)) > 12 * 100
    assert not list(disk.store.quads_for_pattern(None, None, None, ox.NamedNode(GRAPH_JOURNAL)))


def test_a_partition_cut_off_mid_write_is_removed_when_the_store_is_opened_again(tmp_path):
    """A crash between the journal entry and its removal leaves pending casts: they go, the rest stays."""
    batch = _write_batch(tmp_path / "casts.jsonl", 6, seed=10)
    kg = derive_with(KnowledgeGraph(tmp_path / "kg"), chapter_rules=False)
    load_file(batch, kg, partition=3)
    complete = _quads(kg)
    # the state a crash inside write_derived leaves: the chunk journaled, part of its quads written
    extra = [make_cast_input(v, month=m, day=d, topic=t) for v, m, d, t in sample_casts(2, seed=77)]
    asserted = [q for ci in extra for q in cast_quads(ci)]
    kg.store.extend([ox.Quad(ox.NamedNode(GRAPH_JOURNAL + "/x"), ox.NamedNode(ns.LYO + "pendingCast"),
                             ox.NamedNode(ci.iri), ox.NamedNode(GRAPH_JOURNAL)) for ci in extra])
    kg.store.extend(asserted[: len(asserted) // 2])
    kg.close()
    with pytest.warns(InterruptedLoadWarning, match="2 cast"):
        again = derive_with(KnowledgeGraph(tmp_path / "kg"), chapter_rules=False)
    assert _quads(again) == complete
    assert not any(again.has_cast(ci.iri) for ci in extra)


def test_a_partition_whose_write_fails_is_taken_out_at_once(tmp_path, monkeypatch):
    batch = _write_batch(tmp_path / "casts.jsonl", 4, seed=12)
    kg = derive_with(KnowledgeGraph(tmp_path / "kg"), chapter_rules=False)
    before = _quads(kg)

    real = kg.store

    def failing_bulk_load(data=None, *, format, path=None):  # writes part of the partition, then fails
        data = data if path is None else path.read_bytes()
        real.load(data[: len(data) // 2].rsplit(b"\n", 1)[0] + b"\n", format=format)
        raise OSError("No space left on device")

    # `store` and `_ox` are properties over the pyoxigraph store (KnowledgeGraph._raw): the fault goes under them
    monkeypatch.setattr(kg, "_raw", Wrapped(real, bulk_load=failing_bulk_load))
    with pytest.warns(InterruptedLoadWarning), pytest.raises(StoreFullError, match="disk is full"):
        load_file(batch, kg, partition=4)
    assert _quads(kg) == before





def test_abort_loads_nothing_even_with_workers(tmp_path):
    batch = _write_batch(tmp_path / "casts.jsonl", 12, bad_every=12)
    kg = derive_with(KnowledgeGraph(), chapter_rules=False)
    before = len(kg.store)
    with pytest.raises(BatchError, match="1 of 12 record"):
        load_file(batch, kg, on_error="abort", workers=2, partition=3)
    assert len(kg.store) == before


def test_the_batch_is_read_lazily(tmp_path):
    batch = _write_batch(tmp_path / "casts.jsonl", 3)
    it = iter(iter_batch(batch))
    assert next(it)[0] == "c0"
    batch.write_text("")  # the open file is read line by line: the rest is no longer there
    assert [rid for rid, _ in it] in ([], ["c1", "c2"])
