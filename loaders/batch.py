"""Batches of casts: JSON Lines, YAML (a list of mappings) or CSV.

Keys / columns (all optional except what a cast needs): ``id``, ``spec`` *or* ``hexagram`` (with
optional ``changed``), ``lines``, ``month``, ``day``, ``year``, ``birth``, ``date``, ``topic``, ``about``, ``sex``,
``school``, ``use_god``, ``day_boundary``. An unknown key is an error for that record (it is usually a typo).

Result: a list of ``(record id, CastInput | CastInputError)`` in file order. A record without an
``id`` gets ``"#<n>"`` (its 1-based position among the records). Every error carries
``record_id`` and ``line`` (the 1-based line where the record starts in the file), and its
``str()`` names both and the reason.

Error policy
------------
* A cast is always all-or-nothing: a record with any bad field is rejected as a whole, never
  loaded in part.
* ``on_error="skip"`` (default): the good casts are kept and each rejected record appears in the
  result as its ``CastInputError`` (use :func:`good_casts` / :func:`rejected` to split them).
* ``on_error="abort"``: if any record is rejected, :class:`BatchError` is raised listing every
  problem (id, line, reason) and nothing is returned.
* A duplicate ``id`` in one file is an error (:class:`DuplicateRecordId`) for the second and later
  records; the first is kept.
* A file that cannot be read at all (YAML syntax error, YAML not a list, CSV without a header,
  unknown format) raises :class:`BatchError` under either policy.
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Iterable

import yaml

from .cast_input import CastInput, make_cast_input
from .errors import BatchError, CastInputError, DuplicateRecordId

__all__ = ["read_batch", "iter_batch", "count_records", "batch_format", "parse_batch", "load_records", "iter_results",
           "good_casts", "rejected", "FIELDS", "FORMATS"]

FIELDS = ("id", "spec", "hexagram", "changed", "lines", "month", "day", "year", "birth", "date",
          "topic", "about", "sex", "school", "use_god", "day_boundary")
FORMATS = ("jsonl", "yaml", "csv")
_SUFFIX = {".jsonl": "jsonl", ".ndjson": "jsonl", ".yaml": "yaml", ".yml": "yaml", ".csv": "csv"}

Result = tuple[str, "CastInput | CastInputError"]


def _records_jsonl(text) -> Iterable[tuple[int, object]]:
    """Records of JSON Lines text, or of an open text file (read lazily, line by line)."""
    lines = text.splitlines() if isinstance(text, str) else (raw.rstrip("\r\n") for raw in text)
    for n, raw in enumerate(lines, 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        try:
            yield n, json.loads(raw)
        except json.JSONDecodeError as exc:
            yield n, CastInputError(f"not valid JSON: {exc.msg} (column {exc.colno})", field="record", value=raw)


def _records_yaml(text) -> Iterable[tuple[int, object]]:
    if not isinstance(text, str):
        text = text.read()  # a YAML list is one document: it is read whole
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise BatchError(f"YAML batch cannot be read: {exc}") from None
    if data is None:
        return
    if not isinstance(data, list) or not isinstance(node, yaml.SequenceNode):
        raise BatchError("a YAML batch must be a list of mappings (one per cast)", value=type(data).__name__)
    for item_node, item in zip(node.value, data):
        yield item_node.start_mark.line + 1, item


def _records_csv(text) -> Iterable[tuple[int, object]]:
    """Records of CSV text, or of an open text file (opened with newline="", read lazily)."""
    reader = csv.reader(io.StringIO(text) if isinstance(text, str) else text)
    header = None
    for row in reader:
        start = reader.line_num
        if header is None:
            if not any(cell.strip() for cell in row):
                continue
            header = [h.strip() for h in row]
            continue
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(header):
            yield start, CastInputError(f"{len(row)} cells but the header has {len(header)} columns",
                                        field="record", value=row)
            continue
        yield start, {h: (c.strip() or None) for h, c in zip(header, row) if h}
    if header is None:
        raise BatchError("CSV batch has no header row")


def _fix_yaml_scalars(rec: dict) -> dict:
    out = {}
    for k, v in rec.items():
        key = str(k)
        if key == "day_boundary" and isinstance(v, int) and not isinstance(v, bool):
            v = f"{v // 60:02d}:{v % 60:02d}"  # YAML 1.1 reads an unquoted 23:00 as sexagesimal 1380
        elif key in ("spec", "lines", "id") and isinstance(v, int) and not isinstance(v, bool):
            v = str(v)
        out[key] = v
    return out


def _build(rec) -> CastInput:
    if not isinstance(rec, dict):
        raise CastInputError(f"a record must be a mapping of fields, got {type(rec).__name__}",
                             field="record", value=rec)
    rec = _fix_yaml_scalars(rec)
    unknown = [k for k in rec if k not in FIELDS]
    if unknown:
        raise CastInputError(f"unknown field(s) {', '.join(map(repr, unknown))}; known: {', '.join(FIELDS)}",
                             field=unknown[0], value=rec[unknown[0]])

    def get(k):
        v = rec.get(k)
        return None if v is None or (isinstance(v, str) and not v.strip()) else v

    spec, hexagram, changed = get("spec"), get("hexagram"), get("changed")
    if spec is not None and hexagram is not None:
        raise CastInputError("give either spec or hexagram (+ changed), not both", field="spec", value=spec)
    if changed is not None and hexagram is None:
        raise CastInputError("changed needs hexagram (the primary)", field="changed", value=changed)
    if hexagram is not None:
        spec = f"{hexagram}之{changed}" if changed is not None else hexagram
    kwargs = {k: get(k) for k in ("lines", "month", "day", "year", "birth", "date", "topic", "about", "sex", "school",
                                  "use_god")}
    boundary = get("day_boundary") or "00:00"
    return make_cast_input(spec, day_boundary=boundary, id=get("id"), **kwargs)


def load_records(records: Iterable[tuple[int, object]]) -> list[Result]:
    """(line, mapping) pairs → results; duplicate ids are rejected (see module docstring)."""
    return list(iter_results(records))


def iter_results(records: Iterable[tuple[int, object]]) -> Iterable[Result]:
    """Like :func:`load_records`, one result at a time (only the ids seen so far are kept)."""
    seen: dict[str, int] = {}
    for index, (line, rec) in enumerate(records, 1):
        rid = None
        if isinstance(rec, dict) and rec.get("id") not in (None, ""):
            rid = str(rec["id"]).strip()
        rid = rid or f"#{index}"
        try:
            if isinstance(rec, CastInputError):
                raise rec
            if rid in seen:
                raise DuplicateRecordId(f"duplicate id {rid!r}: already used by the record at line {seen[rid]}",
                                        field="id", value=rid)
            seen[rid] = line
            result: CastInput | CastInputError = _build(rec)
        except CastInputError as exc:
            exc.record_id, exc.line = rid, line
            result = exc
        yield rid, result


def _apply_policy(results: list[Result], on_error: str, source: str) -> list[Result]:
    if on_error not in ("skip", "abort"):
        raise ValueError(f"on_error {on_error!r}: must be 'skip' or 'abort'")
    problems = rejected(results)
    if problems and on_error == "abort":
        raise BatchError(f"{source}: {len(problems)} of {len(results)} record(s) rejected; nothing loaded",
                         problems)
    return results


def parse_batch(text: str, format: str, *, on_error: str = "skip", source: str = "batch") -> list[Result]:
    """Parse batch text in ``format`` ("jsonl", "yaml", "csv")."""
    fmt = {"json": "jsonl", "ndjson": "jsonl", "yml": "yaml"}.get(format, format)
    if fmt not in FORMATS:
        raise BatchError(f"unknown batch format {format!r}: use jsonl, yaml or csv", value=format)
    reader = {"jsonl": _records_jsonl, "yaml": _records_yaml, "csv": _records_csv}[fmt]
    return _apply_policy(load_records(reader(text)), on_error, source)


def batch_format(path, format: str | None = None) -> str:
    """The batch format of a file: given, or from its suffix (.jsonl .ndjson .yaml .yml .csv)."""
    p = Path(path)
    fmt = format or _SUFFIX.get(p.suffix.lower())
    if fmt is None:
        raise BatchError(f"cannot tell the batch format of {p.name!r}: use .jsonl, .yaml or .csv, or pass format=",
                         value=str(p))
    fmt = {"json": "jsonl", "ndjson": "jsonl", "yml": "yaml"}.get(fmt, fmt)
    if fmt not in FORMATS:
        raise BatchError(f"unknown batch format {format!r}: use jsonl, yaml or csv", value=format)
    return fmt


def read_batch(path, *, format: str | None = None, on_error: str = "skip") -> list[Result]:
    """Read a batch file; the format comes from the suffix (.jsonl .ndjson .yaml .yml .csv) unless given."""
    p = Path(path)
    fmt = batch_format(p, format)
    text = p.read_text(encoding="utf-8-sig")
    return parse_batch(text, fmt, on_error=on_error, source=p.name)


def _raw_records(path, format: str | None):
    fmt = batch_format(path, format)
    reader = {"jsonl": _records_jsonl, "yaml": _records_yaml, "csv": _records_csv}[fmt]
    with open(path, encoding="utf-8-sig", newline="" if fmt == "csv" else None) as f:
        yield from reader(f)


def iter_batch(path, *, format: str | None = None) -> Iterable[Result]:
    """The results of :func:`read_batch` (policy "skip"), read lazily: JSON Lines and CSV files are read
    record by record, so memory does not grow with the file (a YAML list is one document, read whole)."""
    return iter_results(_raw_records(path, format))


def count_records(path, *, format: str | None = None) -> int:
    """How many records a batch file holds (read lazily; records are not validated)."""
    return sum(1 for _ in _raw_records(path, format))


def good_casts(results: Iterable[Result]) -> list[CastInput]:
    return [r for _, r in results if isinstance(r, CastInput)]


def rejected(results: Iterable[Result]) -> list[CastInputError]:
    return [r for _, r in results if isinstance(r, CastInputError)]
