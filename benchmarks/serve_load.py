"""Requests/s and latency percentiles of `liuyao serve` under concurrent clients (loopback).

    python benchmarks/serve_load.py [--clients 16] [--seconds 20] [--casts 20]

Starts `liuyao serve` in a subprocess over an in-memory store given `--casts` casts (loaded through the
endpoint's own update path is not used: the casts are loaded with `liuyao load` into a temporary store
on disk, then served), runs 1 client and then `--clients` clients, each sending queries back to back
for `--seconds`, and prints one JSON object: for each run the requests answered, errors (any status but
200, or a refused or dropped connection), requests/s, p50 and p99 in ms. Nothing is written to the
repository. The queries are the chart's own (chart-lines of a random loaded cast) and a small
reference lookup (nayin), half and half.
"""
from __future__ import annotations

import argparse
import json
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from liuyao_kg import queries  # noqa: E402
from samples import sample_casts  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _request_bodies(cast_iris: list[str]) -> list[str]:
    """Query texts with their parameters as a VALUES block (what the remote client sends)."""
    from liuyao_kg.remote import prepare

    out = []
    for iri in cast_iris:
        q = queries.get("chart-lines")
        out.append(prepare(q.text, queries.bindings(q, {"cast": iri})))
    q = queries.get("nayin")
    out += [prepare(q.text, queries.bindings(q, {"gz": gz})) for gz in ("甲子", "乙丑", "丙寅", "丁卯")]
    return out


def _run(url: str, bodies: list[str], clients: int, seconds: float) -> dict:
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client(seed: int):
        nonlocal errors
        rng = random.Random(seed)
        while time.monotonic() < stop:
            body = urllib.parse.urlencode({"query": rng.choice(bodies)}).encode()
            req = urllib.request.Request(url, data=body, headers={"Accept": "application/sparql-results+json"})
            t0 = time.perf_counter()
            try:
                with urllib.request.urlopen(req, timeout=60) as r:
                    r.read()
                    ok = r.status == 200
            except (urllib.error.URLError, OSError):
                ok = False
            dt = time.perf_counter() - t0
            with lock:
                if ok:
                    latencies.append(dt)
                else:
                    errors += 1

    t0 = time.perf_counter()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    latencies.sort()
    pct = lambda p: round(1000 * latencies[min(len(latencies) - 1, int(p * len(latencies)))], 1) if latencies else None
    return {"clients": clients, "requests": len(latencies), "errors": errors,
            "requests_per_s": round(len(latencies) / wall, 1), "p50_ms": pct(0.50), "p99_ms": pct(0.99),
            "mean_ms": round(1000 * statistics.fmean(latencies), 1) if latencies else None}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--casts", type=int, default=20)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        batch = Path(tmp) / "casts.jsonl"
        with open(batch, "w", encoding="utf-8") as f:
            for i, (values, month, day, topic) in enumerate(sample_casts(args.casts, 3)):
                f.write(json.dumps({"id": f"c{i}", "spec": values, "month": month, "day": day, "topic": topic},
                                   ensure_ascii=False) + "\n")
        store = Path(tmp) / "kg"
        cli = [sys.executable, "-m", "liuyao_kg.cli"]
        loaded = subprocess.run(cli + ["load", str(batch), "--store", str(store), "--quiet", "--jobs", "1"],
                                capture_output=True, text=True, check=True)
        from liuyao_kg.loaders.batch import iter_batch

        iris = [ci.iri for _, ci in iter_batch(batch)]
        assert len(json.loads(loaded.stdout)["loaded"]) == len(iris)
        port = _free_port()
        server = subprocess.Popen(cli + ["serve", "--store", str(store), "--port", str(port)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            server.stderr.readline()  # "liuyao-kg SPARQL endpoint at …": listening
            url = f"http://127.0.0.1:{port}/sparql"
            bodies = _request_bodies(iris)
            _run(url, bodies, 2, 2.0)  # warm-up
            one = _run(url, bodies, 1, args.seconds)
            many = _run(url, bodies, args.clients, args.seconds)
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(json.dumps({"one_client": one, "concurrent": many,
                      "throughput_ratio": round(many["requests_per_s"] / one["requests_per_s"], 2)}, indent=2))


if __name__ == "__main__":
    main()
