"""`liuyao corpus add|list|review|eval|collate|export|cite`: the command's work, outside cli.py (which only
parses arguments)."""
from __future__ import annotations

import json
import sys

from liuyao_kg.corpus.add import add_edition, editions
from liuyao_kg.corpus.works import CorpusError


def report_text(rep: dict) -> str:
    aligned = sum(rep["aligned"].values())
    methods = ", ".join(f"{m} {n}" for m, n in sorted(rep["aligned"].items())) or "none"
    out = [f"edition {rep['edition']} ({rep['status']}; graph {rep['graph']})",
           f"  sha256 {rep['sha256']}",
           f"  passages of the work: {rep['passages']}; aligned {aligned} ({methods}); "
           f"not found {len(rep['unaligned'])}; textual variants {rep['textual_variants']}; "
           f"alternative readings the edition gives {rep['alternatives']}",
           f"  sentences {rep['sentences']}; parallel links proposed {rep['parallels']} "
           f"({', '.join(f'{m} {k}' for m, k in sorted(rep['links'].items())) or 'none'}); quads written {rep['quads']}"]
    for work, c in sorted(rep["carried"].items()):
        out.append(f"  carries {work}: of its {c['passages']} passages and {c['sentences']} sentences of its editions "
                   f"in the store, {c['aligned']} found here, {c['not_found']} not")
    for c in rep["carriers"]:
        out.append(f"  {c} carries this work: add it again to align this edition's sentences there")
    for u in rep["unaligned"]:
        out.append(f"  not found: {u['passage']} 「{u['quote']}」: {u['reason']}")
    return "\n".join(out) + "\n"


def corpus_command(args, kg) -> int:
    if getattr(args, "second", None) and args.what not in ("collate", "export"):
        raise CorpusError(f"corpus {args.what} takes at most one FILE; unexpected second argument {args.second!r}")
    if args.what == "list":
        rows = editions(kg)
        if args.format == "json":
            print(json.dumps(rows, ensure_ascii=False, indent=2))
        else:
            for r in rows:
                print(f"{r['work']}\t{r['edition']}\t{r['file']}\tsha256 {r['sha']}")
        return 0
    if args.what in ("collate", "export"):
        from liuyao_kg.corpus.collate_cli import collate_command

        return collate_command(args, kg)
    if args.what == "cite":
        from liuyao_kg.corpus import urn

        if not args.file:
            raise CorpusError("corpus cite needs a URN, e.g. urn:liuyao:HuoZhuLin:seed002:9.5@17-30")
        rows = urn.resolve(kg, args.file)
        if not rows:
            print(f"liuyao: {urn.not_found(args.file)}", file=sys.stderr)
        if args.format == "json":
            print(json.dumps(rows, ensure_ascii=False, indent=2))
        else:
            for r in rows:
                print(f"{r['urn']}\t{r['passage']}\t{r['work']}·{r['chapter'] or ''}「{r['quote']}」\t"
                      f"[{r['file']} {r['start']}–{r['end']}]")
        return 0 if rows else 1
    if args.what == "review":
        from liuyao_kg.corpus.review import apply_reviews

        if not args.file:
            raise CorpusError("corpus review needs FILE (a YAML file of judged links)")
        rep = apply_reviews(kg, args.file)
        if args.format == "json":
            print(json.dumps(rep, ensure_ascii=False, indent=2))
        else:
            print(f"reviewed {rep['reviewed']}: applied {rep['applied']} (accepted {rep['accepted']}, rejected "
                  f"{rep['rejected']}); not in the store {len(rep['not_in_store'])}")
        return 0
    if args.what == "eval":
        return _eval(args, kg)
    missing = [n for n, v in (("FILE", args.file), ("--work", args.work), ("--edition", args.edition)) if not v]
    if missing:
        raise CorpusError(f"corpus add needs {', '.join(missing)}")
    rep = add_edition(kg, args.file, args.work, args.edition, source=args.source, retrieved=args.retrieved).as_dict()
    if args.format == "json":
        print(json.dumps(rep, ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(report_text(rep))
    return 0


def _eval(args, kg) -> int:
    """Score the links against a gold set: those the store holds (--store/--endpoint), else the editions of
    ../shared/corpora added in memory as `corpus add` would."""
    from liuyao_kg.corpus import evaluate as ev

    if not args.file:
        raise CorpusError("corpus eval needs FILE (a YAML gold set: pairs of labelled quotes)")
    gold = ev.read_gold(args.file, args.shared)   # refused before anything is built
    store = kg if (getattr(args, "store", None) or getattr(args, "endpoint", None)) else ev.in_memory(args.shared)
    rows = ev.score(gold, ev.anchors(store), ev.links(store))
    if args.format == "json":
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(ev.report_text(rows))
    return 0
