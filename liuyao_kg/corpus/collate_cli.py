"""`liuyao corpus collate A B` and `liuyao corpus export`: the commands' work, outside cli.py."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from liuyao_kg.corpus.collate import collate, report_text
from liuyao_kg.corpus.works import CorpusError


def _pair(args, kg):
    from liuyao_kg.corpus.witness import resolve

    if not (args.file and args.second):
        raise CorpusError(f"corpus {args.what} needs two witnesses, A and B (e.g. 火珠林/seed 火珠林/wikisource)")
    first, second = resolve(args.file, kg, work=args.work), resolve(args.second, kg, work=args.work)
    if first.work != second.work:
        raise CorpusError(f"{first.name} and {second.name} are witnesses of different works")
    if (first.path, first.extent) == (second.path, second.extent):
        raise CorpusError(f"{first.name} and {second.name} are the same witness")
    return collate(first, second)


def _out(args, data: str | bytes) -> None:
    if args.output:
        Path(args.output).write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    elif isinstance(data, bytes):
        sys.stdout.buffer.write(data)
    else:
        sys.stdout.write(data)


def collate_command(args, kg) -> int:
    if args.what == "export" and args.to == "annotations":
        from liuyao_kg.corpus.export import annotations
        from liuyao_kg.corpus.witness import resolve

        if not args.file or args.second:
            raise CorpusError("corpus export --to annotations needs one edition (火珠林/wikisource or its IRI)")
        edition = resolve(args.file, kg, work=args.work).edition
        _out(args, json.dumps(annotations(kg, edition), ensure_ascii=False, indent=2) + "\n")
        return 0
    col = _pair(args, kg)
    if args.what == "export":
        from liuyao_kg.corpus.export import tei

        _out(args, tei(col))
        return 0
    stored = None
    if getattr(args, "store", None) or getattr(args, "endpoint", None):
        from liuyao_kg.corpus.collation_graph import store

        stored = store(kg, col)
    if args.format == "json":
        print(json.dumps({**col.as_dict(), "stored": stored}, ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(report_text(col))
        if stored:
            print(f"  {stored['status']}: {stored['collation']} (graph {stored['graph']}; quads written {stored['quads']})")
    return 0
