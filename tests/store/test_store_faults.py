"""Faults an on-disk store survives: kill -9 at any moment, two loaders, a store held by `serve`, a read-only
directory, a full disk. After each: no cast lost, none half-written, and the next run completes.

Every check runs the real `liuyao` command in a subprocess and reads the store back afterwards.
"""
from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from liuyao_kg import namespaces as ns
from liuyao_kg.reasoner.engines import build_engine
from liuyao_kg.store.embedded import KnowledgeGraph
from liuyao_kg.loaders.batch import iter_batch
from liuyao_kg.loaders.rdf import cast_quads
from samples import sample_casts
from store_doubles import Wrapped

LIUYAO = [sys.executable, "-m", "liuyao_kg.cli"]


def _batch(path: Path, n: int, seed: int = 5) -> Path:
    with open(path, "w", encoding="utf-8") as f:
        for i, (values, month, day, topic) in enumerate(sample_casts(n, seed)):
            f.write(json.dumps({"id": f"c{i}", "spec": values, "month": month, "day": day, "topic": topic},
                               ensure_ascii=False) + "\n")
    return path


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    """{cast IRI: its asserted and inferred quads} for the batch, derived in memory one by one."""
    path = _batch(tmp_path_factory.mktemp("faults") / "casts.jsonl", 120)
    engine = build_engine()
    out = {}
    for _, ci in iter_batch(path):
        asserted = cast_quads(ci)
        out[ci.iri] = set(asserted) | set(engine.derive(asserted))
    return path, out


def _load(batch, store, *extra, **kw) -> subprocess.Popen:
    return subprocess.Popen(LIUYAO + ["load", str(batch), "--store", str(store), "--jobs", "1", "--quiet", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def _check_whole(store: Path, expected: dict) -> set[str]:
    """Open the store (recovering it) and assert every cast in it is complete; return the casts present."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kg = KnowledgeGraph(store)
    try:
        assert kg.pending() == set() and not kg.outdated
        present = {g.value for g in kg.store.named_graphs() if g.value.startswith(ns.CAST)
                   and not g.value.endswith("/inferred")}
        assert present <= set(expected)
        for iri in present:
            assert set(kg.cast_graph(iri)) == expected[iri], f"cast {iri} is not whole"
        return present
    finally:
        kg.close()


def _wait_for(cond, timeout=120.0, proc=None):
    deadline = time.monotonic() + timeout
    while not cond():
        if proc is not None and proc.poll() is not None:
            return False
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)
    return True


def _no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr and "OSError" not in stderr, stderr


@pytest.mark.parametrize("moment", ["first-layer-write", "0.5s", "2s", "during-casts"])
def test_kill_9_at_any_moment_loses_nothing_and_the_next_run_completes(tmp_path, expected, moment):
    batch, casts = expected
    store = tmp_path / "kg"
    proc = _load(batch, store)
    started = _wait_for(lambda: store.exists(), proc=proc)  # RocksDB made the directory: layers are being written
    if moment == "during-casts":
        _wait_for(lambda: any(store.glob("*.sst")) and time.sleep(1.5) is None, proc=proc)
    elif moment != "first-layer-write":
        time.sleep(float(moment[:-1]))
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert started
    if store.exists():
        _check_whole(store, casts)
    again = _load(batch, store)
    out, err = again.communicate(timeout=600)
    assert again.returncode == 0, err.decode()
    report = json.loads(out)
    assert len(report["loaded"]) + len(report["skipped"]) == len(casts) and not report["rejected"]
    assert _check_whole(store, casts) == set(casts)


def test_a_second_loader_refuses_clearly_or_waits_for_the_first(tmp_path, expected):
    batch, casts = expected
    store = tmp_path / "kg"
    first = _load(batch, store)
    try:
        assert _wait_for(lambda: store.exists() and (store / "LOCK").exists(), proc=first)
        time.sleep(0.5)
        second = subprocess.run(LIUYAO + ["load", str(batch), "--store", str(store), "--quiet", "--lang", "en"],
                                capture_output=True, text=True, timeout=300)
        if first.poll() is None:  # it still holds the store
            assert second.returncode == 1 and "in use by another process" in second.stderr
            _no_traceback(second.stderr)
        waiting = _load(batch, store, "--wait", "600")
        out, err = waiting.communicate(timeout=900)
        assert waiting.returncode == 0, err.decode()
        assert first.wait(timeout=600) == 0
    finally:
        with contextlib.suppress(ProcessLookupError):
            first.kill()
    assert _check_whole(store, casts) == set(casts)


@pytest.mark.server
def test_a_store_held_by_serve_gives_a_clear_error_and_can_still_be_read(tmp_path):
    store = tmp_path / "kg"
    KnowledgeGraph(store).close()
    serve = subprocess.Popen(LIUYAO + ["serve", "--store", str(store), "--port", "0"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert "SPARQL endpoint at" in serve.stderr.readline()
        query = LIUYAO + ["query", "nayin", "--param", "gz=甲子", "--store", str(store)]
        held = subprocess.run(query + ["--lang", "en"], capture_output=True, text=True, timeout=300)
        assert held.returncode == 1 and "in use by another process" in held.stderr and "--read-only" in held.stderr
        _no_traceback(held.stderr)
        read = subprocess.run(query + ["--read-only"], capture_output=True, text=True, timeout=300)
        assert read.returncode == 0 and "海中金" in read.stdout, read.stderr
    finally:
        serve.terminate()
        serve.wait(timeout=30)


@contextlib.contextmanager
def _filesystem(tmp_path: Path, size_mb: int):
    """A small tmpfs of its own (root only), unmounted afterwards."""
    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("needs root to mount a small tmpfs (a file system of its own to fill or make read-only)")
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_mb}m", "tmpfs", str(mnt)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_a_read_only_directory_refuses_writes_clearly_and_reads_with_read_only(tmp_path, expected):
    batch, casts = expected
    with _filesystem(tmp_path, 400) as mnt:
        store = mnt / "kg"
        KnowledgeGraph(store).close()
        subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
        load = subprocess.run(LIUYAO + ["load", str(batch), "--store", str(store), "--quiet", "--lang", "en"],
                              capture_output=True, text=True, timeout=300)
        assert load.returncode == 1 and "Read-only file system" in load.stderr and "--read-only" in load.stderr
        _no_traceback(load.stderr)
        read = subprocess.run(LIUYAO + ["query", "nayin", "--param", "gz=甲子", "--store", str(store), "--read-only"],
                              capture_output=True, text=True, timeout=300)
        assert read.returncode == 0 and "海中金" in read.stdout, read.stderr
        subprocess.run(["mount", "-o", "remount,rw", str(mnt)], check=True)
        assert _check_whole(store, casts) == set()


def _used_mb(mnt: Path) -> int:
    st = os.statvfs(mnt)
    return -(-(st.f_blocks - st.f_bfree) * st.f_frsize // (1024 * 1024))


def test_a_full_disk_stops_the_load_clearly_and_the_next_run_completes(tmp_path, expected):
    batch, casts = expected
    with _filesystem(tmp_path, 600) as mnt:
        store = mnt / "kg"
        KnowledgeGraph(store).close()
        KnowledgeGraph(store).close()  # reopened: the first write's 84 MB log is gone (the store is ~41 MB)
        # the layers fit; the 120 casts (~22 MB) do not
        subprocess.run(["mount", "-o", f"remount,size={_used_mb(mnt) + 6}m", str(mnt)], check=True)
        full = subprocess.run(LIUYAO + ["load", str(batch), "--store", str(store), "--jobs", "1", "--quiet",
                                        "--lang", "en"],
                              capture_output=True, text=True, timeout=900)
        assert full.returncode == 1 and "disk is full" in full.stderr, full.stderr
        _no_traceback(full.stderr)
        subprocess.run(["mount", "-o", "remount,size=600m", str(mnt)], check=True)
        partial = _check_whole(store, casts)
        assert partial < set(casts)
        again = subprocess.run(LIUYAO + ["load", str(batch), "--store", str(store), "--jobs", "1", "--quiet"],
                               capture_output=True, text=True, timeout=900)
        assert again.returncode == 0, again.stderr
        assert _check_whole(store, casts) == set(casts)


def test_after_a_disk_fills_the_chunk_is_taken_out_without_a_flush(tmp_path, expected):
    """RocksDB's flush on a full disk can wait forever (a load hung 900 s in CI): neither the chunk's undo nor
    close flushes after it; the removal is seen at once, and the journal redoes it at the next open if need be."""
    from liuyao_kg.store.embedded import InterruptedLoadWarning
    from liuyao_kg.store import StoreFullError

    batch, casts = expected
    store = tmp_path / "kg"
    kg = KnowledgeGraph(store)
    cast, quads = next(iter(casts.items()))
    nquads = "".join(f"{q} .\n" for q in quads).encode()
    flushes = []
    real = kg._raw

    def full_disk(*_a, **_k):  # the disk fills during the bulk load; every flush asked after it is counted
        kg._raw = Wrapped(real, flush=lambda: flushes.append(1))
        raise OSError(errno.ENOSPC, "IO error: No space left on device: While appending to file: 000042.sst")

    kg._raw = Wrapped(real, bulk_load=full_disk)
    with pytest.warns(InterruptedLoadWarning), pytest.raises(StoreFullError, match="the disk is full"):
        kg.write_derived(nquads, [cast])
    assert kg.pending() == set() and not kg.has_cast(cast)
    kg.close()
    assert flushes == []
    real = None  # the store is released before it is reopened (the closure above keeps the name)
    assert _check_whole(store, casts) == set()


def _flaky_read_only(monkeypatch, failures: int) -> list:
    """ox.Store.read_only failing `failures` times as RocksDB does when a writer's compaction removed a file the
    MANIFEST it read still named (the race of `query --read-only` beside `serve`); then the real open."""
    import liuyao_kg.store.embedded as graph_module

    real, calls = graph_module._store_read_only, []

    def read_only(path):
        calls.append(path)
        if len(calls) <= failures:
            raise RuntimeError(f"Corruption: IO error: No such file or directory: While open a file for "
                               f"random read: {path}/000022.sst: No such file or directory")
        return real(path)

    monkeypatch.setattr(graph_module, "_store_read_only", read_only)
    monkeypatch.setattr(time, "sleep", lambda s: None)
    return calls


def test_a_read_only_open_racing_a_compaction_opens_again(tmp_path, monkeypatch):
    store = tmp_path / "kg"
    KnowledgeGraph(store).close()
    calls = _flaky_read_only(monkeypatch, failures=2)
    kg = KnowledgeGraph(store, read_only=True)
    try:
        assert len(calls) == 3 and kg.read_only
    finally:
        kg.close()


def test_a_read_only_open_that_keeps_failing_names_the_store(tmp_path, monkeypatch):
    from liuyao_kg.store.embedded import READ_ONLY_ATTEMPTS
    from liuyao_kg.store import StoreError

    store = tmp_path / "kg"
    KnowledgeGraph(store).close()
    calls = _flaky_read_only(monkeypatch, failures=READ_ONLY_ATTEMPTS)
    with pytest.raises(StoreError, match=f"store {store}: cannot open it read-only"):
        KnowledgeGraph(store, read_only=True)
    assert len(calls) == READ_ONLY_ATTEMPTS
