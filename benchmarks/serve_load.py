"""Requests/s and latency percentiles of `liuyao serve` under concurrent clients (loopback).

    python benchmarks/serve_load.py [--clients 16] [--seconds 20] [--casts 20]
    python benchmarks/serve_load.py --api-cast [--clients 16] [--seconds 20]

Starts `liuyao serve` in a subprocess over an in-memory store given `--casts` casts (loaded through the
endpoint's own update path is not used: the casts are loaded with `liuyao load` into a temporary store
on disk, then served), runs 1 client and then `--clients` clients, each sending queries back to back
for `--seconds`, and prints one JSON object: for each run the requests answered, errors (any status but
200, or a refused or dropped connection), requests/s, p50 and p99 in ms. Nothing is written to the
repository. The queries are the chart's own (chart-lines of a random loaded cast) and a small
reference lookup (nayin), half and half.

`--api-cast`: `POST /api/cast` instead, every request a new cast (seeded: lines, month, day and question drawn at
random) on an in-memory `liuyao serve`, once with the default engine and once with `--backend oxigraph` (the
reference), 1 client then `--clients`; the ratios of the default's requests/s to the reference's.
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
    from liuyao_kg.store.remote import prepare

    out = []
    for iri in cast_iris:
        q = queries.get("chart-lines")
        out.append(prepare(q.text, queries.bindings(q, {"cast": iri})))
    q = queries.get("nayin")
    out += [prepare(q.text, queries.bindings(q, {"gz": gz})) for gz in ("甲子", "乙丑", "丙寅", "丁卯")]
    return out


def _cast_bodies(n: int, seed: int = 39) -> list[bytes]:
    """`n` JSON bodies of /api/cast, each a cast drawn at random (new to the server, almost always)."""
    from liuyao_kg.ontology import tables

    rng = random.Random(seed)
    branches = "子丑寅卯辰巳午未申酉戌亥"
    jiazi = ["甲乙丙丁戊己庚辛壬癸"[i % 10] + branches[i % 12] for i in range(60)]
    topics = [q[0] for q in tables.QUESTIONS]
    return [json.dumps({"spec": "".join(rng.choice("6789") for _ in range(6)), "month": rng.choice(branches),
                        "day": rng.choice(jiazi), "topic": rng.choice(topics)}, ensure_ascii=False).encode()
            for _ in range(n)]


def _run(url: str, bodies: list, clients: int, seconds: float) -> dict:
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client(seed: int):
        nonlocal errors
        rng = random.Random(seed)
        while time.monotonic() < stop:
            pick = rng.choice(bodies)
            if isinstance(pick, bytes):  # a cast for /api/cast
                req = urllib.request.Request(url, data=pick, headers={"Content-Type": "application/json"})
            else:
                body = urllib.parse.urlencode({"query": pick}).encode()
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


def _api_cast(args) -> dict:
    cli = [sys.executable, "-m", "liuyao_kg.cli"]
    bodies = _cast_bodies(50_000)
    out: dict = {}
    for backend in ("native", "oxigraph"):
        port = _free_port()
        server = subprocess.Popen(cli + ["serve", "--port", str(port), "--backend", backend],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            server.stderr.readline()  # listening
            url = f"http://127.0.0.1:{port}/api/cast"
            _run(url, bodies[:200], 2, 2.0)  # warm-up: first casts of each question
            out[backend] = {"one_client": _run(url, bodies, 1, args.seconds),
                            "concurrent": _run(url, bodies, args.clients, args.seconds)}
        finally:
            server.terminate()
            server.wait(timeout=30)
    out["native_over_oxigraph_requests_per_s"] = {
        k: round(out["native"][k]["requests_per_s"] / max(out["oxigraph"][k]["requests_per_s"], 1e-9), 1)
        for k in ("one_client", "concurrent")}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--casts", type=int, default=20)
    ap.add_argument("--api-cast", action="store_true", help="POST /api/cast with new casts, default engine and reference")
    args = ap.parse_args()
    if args.api_cast:
        print(json.dumps(_api_cast(args), indent=2))
        return
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
