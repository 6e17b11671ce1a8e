"""Reading a batch file for a load: its records counted and, before anything is written, checked; the store it goes
into checked writable.

The file is read lazily (JSON Lines and CSV record by record; loaders.batch.iter_numbered_batch), so these hold at
most a chunk of records. Every cast's asserted graph is validated against ontology/shapes/cast.ttl before it is
derived, as ``liuyao_kg.cast`` does: one pySHACL run per chunk of SHAPES_CHUNK casts (`shape_rejections`), where the
partition is derived (liuyao_kg.load.partition), or here for the whole file first with ``on_error="abort"`` (`scan`).
"""
from __future__ import annotations

from pathlib import Path

from liuyao_kg.loaders.batch import count_records, iter_numbered_batch
from liuyao_kg.loaders.errors import BatchError, CastInputError

#: casts checked by one pySHACL run over the union of their graphs (benchmarks/shacl_cost.py measures the check)
SHAPES_CHUNK = 50


def shape_rejections(records, quads: list | None = None) -> dict[str, CastInputError]:
    """{record id: its ShapeViolation} for the records [(id, CastInput, line)] whose asserted graph violates a
    shape of ontology/shapes/cast.ttl: one pySHACL run over the union of the graphs of each SHAPES_CHUNK records
    (liuyao_kg.loaders.shapes.cast_graph_violations), each error naming the record, its line and the shape.
    `quads`: each record's asserted quads, when the caller has them already (else built here)."""
    from liuyao_kg.loaders import rdf
    from liuyao_kg.loaders.shapes import cast_graph_violations, shape_violation

    records = list(records)
    if quads is None:
        quads = [rdf.cast_quads(ci) for _, ci, _ in records]
    found: dict[str, list[dict]] = {}
    for i in range(0, len(records), SHAPES_CHUNK):
        found |= cast_graph_violations(q for qs in quads[i:i + SHAPES_CHUNK] for q in qs)
    out: dict[str, CastInputError] = {}
    for rid, ci, line in records:
        if ci.iri in found:
            out[rid] = err = shape_violation(found[ci.iri])
            err.record_id, err.line = rid, line
    return out


def check_store_writable(kg) -> None:
    """Refuse a load into a store that cannot take it, before anything is derived: one opened read-only, or one
    whose layers another rule base wrote (`liuyao upgrade` first)."""
    from liuyao_kg.store import StoreAccessError
    from liuyao_kg.store.versioning import OutdatedStoreError

    if "read_only" in kg.capabilities:
        raise StoreAccessError(f"store {kg.location} was opened read-only: writes are refused")
    if kg.outdated:
        raise OutdatedStoreError(f"store {kg.path} is outdated (its layers were written by another rule base): "
                                 f"run `liuyao upgrade --store {kg.path}` first")


def shape_violation_of(error: CastInputError, rid: str, line: int) -> CastInputError:
    """`error` (a ShapeViolation) for another record of the same cast."""
    from liuyao_kg.loaders.shapes import ShapeViolation

    other = ShapeViolation(error.message, field=error.field, value=error.value)
    other.record_id, other.line = rid, line
    return other


def scan(path, *, on_error: str = "skip", format: str | None = None, encoding: str | None = None) -> int:
    """Count the records of a batch file; with on_error="abort", raise BatchError if any is bad (its fields, or
    its asserted graph against the SHACL shapes, checked a chunk at a time)."""
    if on_error not in ("skip", "abort"):
        raise ValueError(f"on_error {on_error!r}: must be 'skip' or 'abort'")
    if on_error == "skip":
        return count_records(path, format=format, encoding=encoding)
    total, problems = 0, []
    chunk: dict[str, tuple] = {}  # cast IRI → record: a cast given twice is validated once
    twins: dict[str, list[tuple[str, int]]] = {}

    def check_chunk():
        bad = shape_rejections(chunk.values())
        for iri, (rid, _, _) in chunk.items():
            if rid in bad:
                problems.append(bad[rid])
                problems.extend(shape_violation_of(bad[rid], *twin) for twin in twins.get(iri, ()))
        chunk.clear()
        twins.clear()

    for rid, line, item in iter_numbered_batch(path, format=format, encoding=encoding):
        total += 1
        if isinstance(item, CastInputError):
            problems.append(item)
        else:
            if item.iri in chunk:
                twins.setdefault(item.iri, []).append((rid, line))
            chunk.setdefault(item.iri, (rid, item, line))
            if len(chunk) >= SHAPES_CHUNK:
                check_chunk()
    check_chunk()
    if problems:
        problems.sort(key=lambda p: p.line or 0)
        raise BatchError(f"{Path(path).name}: {len(problems)} of {total} record(s) rejected; nothing loaded", problems)
    return total
