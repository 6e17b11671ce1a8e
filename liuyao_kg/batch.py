"""Loading a batch file into a knowledge graph, with a per-cast report."""
from __future__ import annotations

from liuyao_kg.loaders.batch import read_batch
from liuyao_kg.loaders.errors import CastInputError
from liuyao_kg.loaders.rdf import cast_quads

CHUNK = 200  # casts derived together: one rule evaluation covers the whole chunk


def load_file(kg, path, *, on_error: str = "skip") -> dict:
    """Load every good cast of a batch file (see loaders.batch for the error policy).

    Returns {"loaded": [ids], "skipped": [ids already in the store], "rejected": [{id, line, reason}]}.
    With on_error="abort" a bad record raises BatchError before anything is written.
    """
    results = read_batch(path, on_error=on_error)
    report = {"loaded": [], "skipped": [], "rejected": []}
    pending: list[tuple[str, object]] = []
    for rid, item in results:
        if isinstance(item, CastInputError):
            report["rejected"].append({"id": rid, "line": item.line, "reason": str(item)})
        elif kg.has_cast(item.iri):
            report["skipped"].append(rid)
        else:
            pending.append((rid, item))
    seen = set()
    for i in range(0, len(pending), CHUNK):
        chunk = [(rid, ci) for rid, ci in pending[i:i + CHUNK]]
        quads = [q for rid, ci in chunk if ci.iri not in seen for q in cast_quads(ci)]
        kg.add_quads(quads)
        for rid, ci in chunk:
            (report["skipped"] if ci.iri in seen else report["loaded"]).append(rid)
            seen.add(ci.iri)
    return report
