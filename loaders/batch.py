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

import codecs
import datetime as _dt
import csv
import io
import json
import re
from pathlib import Path
from typing import Iterable

import yaml

from .cast_input import CastInput, make_cast_input
from .errors import BatchError, CastInputError, DuplicateRecordId, shorten as _shorten

__all__ = ["read_batch", "iter_batch", "iter_numbered_batch", "check_readable", "detect_encoding", "count_records", "batch_format", "parse_batch", "load_records", "iter_results",
           "good_casts", "rejected", "FIELDS", "FORMATS"]

FIELDS = ("id", "spec", "hexagram", "changed", "lines", "month", "day", "year", "birth", "date",
          "topic", "about", "sex", "school", "use_god", "day_boundary")
FORMATS = ("jsonl", "yaml", "csv")
_SUFFIX = {".jsonl": "jsonl", ".ndjson": "jsonl", ".yaml": "yaml", ".yml": "yaml", ".csv": "csv"}

Result = tuple[str, "CastInput | CastInputError"]


# A CSV cell longer than the csv module's limit (131,072 characters) rejects its record, not the file.
#: YAML anchors and aliases: at most this many aliases, and the document expanded at most this many nodes
#: (a "billion laughs" document of 1.2 KB expands to hundreds of millions)
MAX_YAML_ALIASES = 1000
MAX_YAML_NODES = 1_000_000
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xef\xbb\xbf", "utf-8-sig"),
         (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))
_BAD_BYTE = re.compile("[\udc80-\udcff]")


def detect_encoding(path, declared: str | None = None) -> tuple[str, int]:
    """(codec, bytes of BOM to skip) for a batch file: its BOM, else the declared encoding, else UTF-16 when
    every other byte of its start is NUL (UTF-16 without a BOM), else UTF-8."""
    with open(path, "rb") as f:
        head = f.read(4096)
    for bom, codec in _BOMS:
        if head.startswith(bom):
            base = codec.replace("-sig", "")
            family = base.split("-")[0] + "-" + base.split("-")[1]  # utf-8, utf-16, utf-32
            if declared and not codecs.lookup(declared).name.replace("_", "-").startswith(family):
                raise BatchError(f"{Path(path).name}: the file starts with a {base.upper()} byte-order mark but "
                                 f"--encoding says {declared!r}", value=declared)
            return codec.replace("-sig", ""), len(bom)
    if declared:
        return declared, 0
    if len(head) >= 4:
        even, odd = head[0::2], head[1::2]
        if odd.count(0) > len(odd) * 0.3 and even.count(0) < len(even) * 0.05:
            return "utf-16-le", 0
        if even.count(0) > len(even) * 0.3 and odd.count(0) < len(odd) * 0.05:
            return "utf-16-be", 0
    return "utf-8", 0


def check_readable(path, *, format: str | None = None, encoding: str | None = None) -> None:
    """Raise BatchError unless `path` is a readable batch file (its format known, its encoding a codec)."""
    p = Path(path)
    if not p.exists():
        raise BatchError(f"batch file {str(p)[:200]!r} does not exist", value=str(p)[:200])
    if not p.is_file():
        raise BatchError(f"batch file {str(p)[:200]!r} is not a file", value=str(p)[:200])
    batch_format(p, format)
    if encoding is not None:
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise BatchError(f"unknown encoding {encoding[:40]!r} (e.g. utf-8, utf-16, big5, gb18030, latin-1)",
                             value=encoding[:40]) from None
    try:
        detect_encoding(p, encoding)
    except OSError as exc:
        raise BatchError(f"batch file {p.name!r} cannot be read: {exc.strerror or exc}", value=str(p)) from None


def _bad_bytes(value, encoding: str) -> str | None:
    """A message if a record's text holds bytes its encoding could not decode (kept as lone surrogates)."""
    texts = [value] if isinstance(value, str) else (
        [str(k) for k in value] + [v for v in value.values() if isinstance(v, str)] if isinstance(value, dict)
        else [v for v in value if isinstance(v, str)] if isinstance(value, list) else [])
    for t in texts:
        m = _BAD_BYTE.search(t)
        if m:
            return (f"byte 0x{ord(m.group()) - 0xDC00:02x} is not valid {encoding}: the file's encoding is not "
                    f"{encoding}? give it with --encoding (e.g. big5, gb18030, latin-1)")
    return None


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
        except RecursionError:
            yield n, CastInputError("not a record: JSON nested too deeply", field="record", value=raw)
        except ValueError as exc:  # e.g. an integer of more than 4,300 digits
            yield n, CastInputError(f"not a record: {exc}", field="record", value=raw)


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader with limits on aliases and on the size of the expanded document."""

    def __init__(self, stream):
        super().__init__(stream)
        self.aliases = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            self.aliases += 1
            if self.aliases > MAX_YAML_ALIASES:
                raise BatchError(f"YAML batch uses more than {MAX_YAML_ALIASES:,} aliases (*name): refused")
        return super().compose_node(parent, index)

    def construct_yaml_int(self, node):  # an integer too long for int() stays text, for its field to reject
        try:
            return super().construct_yaml_int(node)
        except ValueError:
            return node.value


_BoundedLoader.add_constructor("tag:yaml.org,2002:int", _BoundedLoader.construct_yaml_int)


def _expanded_nodes(root) -> int:
    """How many nodes the document has once every alias is expanded (each shared node counted per use)."""
    sizes: dict[int, int] = {}
    order, stack = [], [root]
    while stack:  # post-order without recursion: children's sizes first
        node = stack.pop()
        if id(node) in sizes:
            continue
        sizes[id(node)] = -1
        order.append(node)
        kids = node.value if isinstance(node, yaml.SequenceNode) else (
            [n for kv in node.value for n in kv] if isinstance(node, yaml.MappingNode) else [])
        stack.extend(k for k in kids if id(k) not in sizes)
    for node in reversed(order):
        kids = node.value if isinstance(node, yaml.SequenceNode) else (
            [n for kv in node.value for n in kv] if isinstance(node, yaml.MappingNode) else [])
        sizes[id(node)] = min(MAX_YAML_NODES + 1, 1 + sum(max(sizes.get(id(k), 1), 1) for k in kids))
    return sizes[id(root)]


def _records_yaml(text) -> Iterable[tuple[int, object]]:
    if not isinstance(text, str):
        text = text.read()  # a YAML list is one document: it is read whole
    bad = _BAD_BYTE.search(text)
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        raise BatchError(f"YAML batch cannot be read: line {line}: byte 0x{ord(bad.group()) - 0xDC00:02x} is not "
                         f"valid in the file's encoding; give it with --encoding (e.g. big5, latin-1)")
    loader = _BoundedLoader(text)
    try:
        node = loader.get_single_node()
        if node is not None and _expanded_nodes(node) > MAX_YAML_NODES:
            raise BatchError(f"YAML batch expands to more than {MAX_YAML_NODES:,} nodes through its aliases: refused")
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        raise BatchError(f"YAML batch cannot be read: {_shorten(str(exc), 300)}") from None
    except RecursionError:
        raise BatchError("YAML batch cannot be read: nested too deeply") from None
    finally:
        loader.dispose()
    if data is None:
        return
    if not isinstance(data, list) or not isinstance(node, yaml.SequenceNode):
        raise BatchError("a YAML batch must be a list of mappings (one per cast)", value=type(data).__name__)
    for item_node, item in zip(node.value, data):
        yield item_node.start_mark.line + 1, item


def _records_csv(text) -> Iterable[tuple[int, object]]:
    """Records of CSV text, or of an open text file (opened with newline="", read lazily)."""
    yield from _csv_rows(csv.reader(io.StringIO(text) if isinstance(text, str) else text))


def _csv_rows(reader) -> Iterable[tuple[int, object]]:
    header = None
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            if header is None:
                raise BatchError(f"CSV batch cannot be read: its header: {exc}") from None
            yield reader.line_num, CastInputError(f"not a record: {exc}", field="record", value=None)
            continue
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
        missing = [h for h in header[len(row):] if h]
        if missing:  # not read as empty cells: a row cut short would load as another cast (no day, no topic …)
            yield start, CastInputError(f"{len(row)} cells but the header has {len(header)} columns "
                                        f"(missing: {', '.join(missing)})", field="record", value=row)
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
    for k, v in rec.items():
        if k in FIELDS and v is not None and not isinstance(v, (str, int, float, _dt.date)):
            raise CastInputError(f"field {k} must be text or a number, got a {type(v).__name__}", field=k, value=None)
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


def iter_results(records: Iterable[tuple[int, object]], encoding: str = "utf-8") -> Iterable[Result]:
    """Like :func:`load_records`, one result at a time (only the ids seen so far are kept).

    Whatever is wrong with one record — a byte its encoding cannot decode, a value no parser expected —
    rejects that record only: the batch goes on."""
    return ((rid, result) for rid, _line, result in _numbered_results(records, encoding))


def _numbered_results(records: Iterable[tuple[int, object]], encoding: str = "utf-8") -> Iterable[tuple[str, int, object]]:
    """:func:`iter_results` with the line where each record starts: (record id, line, result)."""
    seen: dict[str, int] = {}
    for index, (line, rec) in enumerate(records, 1):
        rid = None
        if isinstance(rec, dict) and isinstance(rec.get("id"), (str, int)) and rec.get("id") != "":
            rid = _shorten(_BAD_BYTE.sub("\ufffd", str(rec["id"]).strip()), 80)
        rid = rid or f"#{index}"
        try:
            if isinstance(rec, CastInputError):
                raise rec
            bad = _bad_bytes(rec, encoding)
            if bad:
                raise CastInputError(bad, field="record", value=None)
            if rid in seen:
                raise DuplicateRecordId(f"duplicate id {rid!r}: already used by the record at line {seen[rid]}",
                                        field="id", value=rid)
            seen[rid] = line
            result: CastInput | CastInputError = _build(rec)
        except CastInputError as exc:
            exc.record_id, exc.line = rid, line
            result = exc
        except (ValueError, TypeError, ArithmeticError, RecursionError) as exc:  # a parser's gap: still this record
            result = CastInputError(f"record cannot be read: {type(exc).__name__}: {exc}", field="record", value=None)
            result.record_id, result.line = rid, line
        yield rid, line, result


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


def read_batch(path, *, format: str | None = None, on_error: str = "skip", encoding: str | None = None) -> list[Result]:
    """Read a batch file; the format comes from the suffix (.jsonl .ndjson .yaml .yml .csv) unless given;
    the encoding from the BOM, else `encoding`, else UTF-8 (UTF-16 without a BOM is recognised)."""
    p = Path(path)
    return _apply_policy(list(iter_batch(p, format=format, encoding=encoding)), on_error, p.name)


def _raw_records(path, format: str | None, encoding: str | None = None):
    check_readable(path, format=format, encoding=encoding)
    fmt = batch_format(path, format)
    codec, skip = detect_encoding(path, encoding)
    reader = {"jsonl": _records_jsonl, "yaml": _records_yaml, "csv": _records_csv}[fmt]
    with open(path, encoding=codec, errors="surrogateescape", newline="" if fmt == "csv" else None) as f:
        if skip and f.read(1) != "\ufeff":  # the BOM decodes to U+FEFF: skip it
            f.seek(0)
        yield from reader(f)


def iter_batch(path, *, format: str | None = None, encoding: str | None = None) -> Iterable[Result]:
    """The results of :func:`read_batch` (policy "skip"), read lazily: JSON Lines and CSV files are read
    record by record, so memory does not grow with the file (a YAML list is one document, read whole)."""
    return ((rid, result) for rid, _line, result in iter_numbered_batch(path, format=format, encoding=encoding))


def iter_numbered_batch(path, *, format: str | None = None, encoding: str | None = None) -> Iterable[tuple[str, int, object]]:
    """:func:`iter_batch` with the line where each record starts: (record id, line, CastInput | CastInputError),
    for checks made after reading (the batch loader's SHACL check names the record's line as a reader's error does)."""
    codec = detect_encoding(path, encoding)[0] if Path(path).is_file() else (encoding or "utf-8")
    return _numbered_results(_raw_records(path, format, encoding), encoding=codec)


def count_records(path, *, format: str | None = None, encoding: str | None = None) -> int:
    """How many records a batch file holds (read lazily; records are not validated)."""
    return sum(1 for _ in _raw_records(path, format, encoding))


def good_casts(results: Iterable[Result]) -> list[CastInput]:
    return [r for _, r in results if isinstance(r, CastInput)]


def rejected(results: Iterable[Result]) -> list[CastInputError]:
    return [r for _, r in results if isinstance(r, CastInputError)]
