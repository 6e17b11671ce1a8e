"""The `liuyao` command: parses arguments and calls the library; nothing else lives here."""
from __future__ import annotations

import argparse
import json
import sys


def _cast_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", help="節之中孚, 節, 水澤節, 节, 787986 (values bottom-up) or 單拆重交 notation")
    p.add_argument("--lines", help="line values bottom-up, checked against a name pair")
    p.add_argument("--month", help="month branch (寅) or stem-branch (丙寅)")
    p.add_argument("--day", help="day stem-branch (辛亥)")
    p.add_argument("--year", help="year stem-branch (壬午)")
    p.add_argument("--birth", help="the asker's birth-year branch (本命)")
    p.add_argument("--sex", help="the asker's sex: 男 or 女 (m / f), for the 男占 / 女占 readings")
    p.add_argument("--date", help="ISO date-time with zone, e.g. 2024-02-04T16:28+08:00 (instead of --month/--day)")
    p.add_argument("--day-boundary", choices=["00:00", "23:00"], default="00:00", help="when a day starts")
    p.add_argument("--topic", help="question topic, e.g. 求財 婚姻 疾病")
    p.add_argument("--about", help="whom the question concerns (來者何人: 父母 夫 妻 子 兄弟 朋友 奴僕); "
                                   "selects the use-god for 疾病 (and 夫/妻 for 婚姻)")


def _store(p: argparse.ArgumentParser) -> None:
    where = p.add_mutually_exclusive_group()
    where.add_argument("--store", help="directory of a persistent store (default: in memory)")
    where.add_argument("--endpoint", metavar="URL",
                       help="a SPARQL 1.1 endpoint as the store (credentials from LIUYAO_ENDPOINT_USER and "
                            "LIUYAO_ENDPOINT_PASSWORD; see README, Remote SPARQL endpoint)")
    p.add_argument("--update-endpoint", metavar="URL",
                   help="the endpoint's SPARQL Update URL, if not the query URL (or LIUYAO_UPDATE_ENDPOINT)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="liuyao", description="Six-line divination knowledge graph with citations.")
    sub = parser.add_subparsers(dest="command", required=True)

    c = sub.add_parser("cast", help="load a cast, derive its states, print the chart")
    _cast_args(c)
    c.add_argument("--format", choices=["text", "json", "turtle", "json-ld"], default="text")
    _store(c)

    q = sub.add_parser("query", help="run a named query (see --list)")
    q.add_argument("name", nargs="?")
    q.add_argument("--param", action="append", default=[], metavar="K=V", help="a query parameter")
    q.add_argument("--list", action="store_true", help="list the named queries and their parameters")
    q.add_argument("--format", choices=["table", "json"], default="table")
    _store(q)

    rl = sub.add_parser("rules", help="the chapter rule base: coverage per seed and chapter")
    rl.add_argument("what", choices=["coverage", "graph", "never-fired"],
                    help="coverage: rules per chapter, executable or not; graph: the rule dependency graph; "
                         "never-fired: executable rules that fire on none of a uniform sample of casts")
    rl.add_argument("--format", choices=["text", "json", "graphml", "dot"], default="text")
    rl.add_argument("--sample", type=int, default=1000,
                    help="never-fired: casts drawn from 64×64 pairs × 12 months × 60 days × topics (default 1000)")
    rl.add_argument("--seed", type=int, default=0, help="never-fired: the sample's seed (same seed, same sample)")
    rl.add_argument("--years", action="store_true", help="never-fired: also draw a year stem-branch (太歲) per cast")

    why = sub.add_parser("why", help="trace a judgment or a line state back to its rule, facts and passages")
    _cast_args(why)
    why.add_argument("--line", type=int, help="a line position (1–6): explain its states")
    why.add_argument("--rule", help="a chapter rule IRI (or its last path segment): explain that judgment")
    _store(why)

    ld = sub.add_parser("load", help="load a batch of casts (JSON Lines, YAML or CSV)")
    ld.add_argument("file")
    ld.add_argument("--on-error", choices=["skip", "abort"], default="skip",
                    help="skip: load the good casts and report the bad; abort: load nothing if any is bad")
    ld.add_argument("--quiet", action="store_true", help="no progress line and no summary on stderr")
    ld.add_argument("--jobs", type=int, default=None,
                    help="worker processes deriving casts (default: the number of CPUs; 1 = in this process)")
    ld.add_argument("--parquet", metavar="DIR",
                    help="derive with the columnar back end and write states*.parquet and judgments*.parquet to DIR "
                         "(instead of a store; docs/columnar.md)")
    ld.add_argument("--cluster", metavar="local:N|ADDRESS",
                    help="with --parquet: derive on Dask distributed (local:N starts N local workers)")
    _store(ld)

    up = sub.add_parser("upgrade", help="replace an on-disk store's layers with this package's and re-derive every cast")
    up.add_argument("--store", required=True, help="directory of the persistent store to upgrade")
    up.add_argument("--batch", type=int, default=200, help="casts derived together (default 200)")
    up.add_argument("--force", action="store_true", help="re-derive every cast even if the store is current")
    up.add_argument("--quiet", action="store_true", help="no progress on stderr")

    sv = sub.add_parser("serve", help="a SPARQL 1.1 Protocol endpoint over the store (read-only by default)")
    _store(sv)
    sv.add_argument("--host", default="127.0.0.1", help="interface to listen on (default: loopback only)")
    sv.add_argument("--port", type=int, default=7878)
    sv.add_argument("--allow-update", action="store_true",
                    help="accept SPARQL updates (they write the store as given; no derivation)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from liuyao_kg.loaders.errors import CastInputError
    from liuyao_kg.queries import QueryParameterError
    from liuyao_kg.remote import RemoteStoreError
    from liuyao_kg.versioning import OutdatedStoreError

    try:
        return {"cast": _cmd_cast, "query": _cmd_query, "load": _cmd_load, "rules": _cmd_rules,
                "why": _cmd_why, "serve": _cmd_serve, "upgrade": _cmd_upgrade}[args.command](args)
    except (CastInputError, QueryParameterError, OutdatedStoreError) as e:
        print(f"liuyao: error: {e}", file=sys.stderr)
        return 2
    except RemoteStoreError as e:  # its message never holds credentials
        print(f"liuyao: error: {e}", file=sys.stderr)
        return 1
    finally:
        kg = getattr(args, "_kg", None)
        if kg is not None:
            kg.close()


def _graph(args):
    """The store named by --store or --endpoint (opened once per command, closed by main), else the in-memory one."""
    from liuyao_kg import default_graph
    from liuyao_kg.graph import KnowledgeGraph

    if getattr(args, "_kg", None) is not None:
        return args._kg
    if getattr(args, "endpoint", None):
        from liuyao_kg.remote import Endpoint, RemoteKnowledgeGraph

        args._kg = RemoteKnowledgeGraph(Endpoint.from_env(args.endpoint, args.update_endpoint))
    elif getattr(args, "store", None):
        args._kg = KnowledgeGraph(args.store)
    else:
        return default_graph()
    return args._kg


def _cmd_cast(args) -> int:
    import liuyao_kg
    from liuyao_kg import render

    kg = _graph(args)
    chart = liuyao_kg.cast(args.spec, lines=args.lines, month=args.month, day=args.day, year=args.year,
                           birth=args.birth, sex=args.sex, date=args.date, topic=args.topic, about=args.about,
                           day_boundary=args.day_boundary, kg=kg)
    if args.format == "json":
        print(json.dumps(chart, ensure_ascii=False, indent=2))
    elif args.format in ("turtle", "json-ld"):
        sys.stdout.write(render.cast_rdf(kg, chart["cast"], args.format))
    else:
        sys.stdout.write(render.chart_text(chart))
    return 0


def _cmd_query(args) -> int:
    from liuyao_kg import queries

    if args.list or not args.name:
        for q in queries.catalogue().values():
            params = ", ".join(f"{p.name}: {p.kind}" for p in q.params)
            print(f"{q.name}({params})\n    {q.answers}")
        return 0
    params = {}
    for kv in args.param:
        k, sep, v = kv.partition("=")
        if not sep:
            raise queries.QueryParameterError(f"--param needs K=V, got {kv!r}")
        params[k] = v
    rows = queries.run(_graph(args), args.name, **params)
    if args.format == "json":
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    else:
        from liuyao_kg.render import table

        sys.stdout.write(table(rows))
    return 0


def _cmd_rules(args) -> int:
    from liuyao_kg.coverage import coverage, coverage_text, dependency_graph

    if args.what == "never-fired":
        from liuyao_kg.never_fired import never_fired, never_fired_text

        if args.sample < 1:
            print("liuyao: error: --sample must be at least 1", file=sys.stderr)
            return 2
        report = never_fired(args.sample, args.seed, years=args.years,
                             progress=lambda done, n: print(f"derived {done}/{n}", file=sys.stderr, flush=True))
        print(json.dumps(report, ensure_ascii=False, indent=2) if args.format == "json" else never_fired_text(report),
              end="" if args.format != "json" else "\n")
        return 0
    if args.what == "graph":
        sys.stdout.write(dependency_graph(_graph(args), "dot" if args.format == "dot" else "graphml"))
        return 0
    report = coverage(_graph(args))
    print(json.dumps(report, ensure_ascii=False, indent=2) if args.format == "json" else coverage_text(report))
    return 0


def _cmd_why(args) -> int:
    import liuyao_kg
    from liuyao_kg.explain import explain

    kg = _graph(args)
    chart = liuyao_kg.cast(args.spec, lines=args.lines, month=args.month, day=args.day, year=args.year,
                           birth=args.birth, sex=args.sex, date=args.date, topic=args.topic, about=args.about,
                           day_boundary=args.day_boundary, kg=kg)
    sys.stdout.write(explain(kg, chart, line=args.line, rule=args.rule))
    return 0


def _cmd_load(args) -> int:
    import time
    from pathlib import Path

    from liuyao_kg.batch import load_file, summary
    from liuyao_kg.progress import Progress

    name = Path(args.file).name
    bar = Progress(f"load {name}", quiet=args.quiet)
    stats: dict = {}
    t0 = time.perf_counter()
    if args.parquet or args.cluster:
        from liuyao_kg.loaders.errors import CastInputError
        from liuyao_kg.parquet_load import load_parquet

        if not args.parquet or getattr(args, "store", None) or getattr(args, "endpoint", None):
            raise CastInputError("--cluster needs --parquet DIR, and --parquet writes Parquet only (no --store/--endpoint)",
                                 field="parquet")
        report = load_parquet(args.file, args.parquet, on_error=args.on_error, cluster=args.cluster, progress=bar)
        bar.close()
        if not args.quiet:
            sys.stderr.write(summary(report, name=name, seconds=time.perf_counter() - t0, jobs=1))
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return 0 if not report["rejected"] or args.on_error == "skip" else 1
    report = load_file(_graph(args), args.file, on_error=args.on_error, jobs=args.jobs, progress=bar, stats=stats)
    bar.close()
    if not args.quiet:
        sys.stderr.write(summary(report, name=name, seconds=time.perf_counter() - t0, jobs=stats.get("jobs", 1)))
    print(json.dumps(report, ensure_ascii=False, indent=2))
    return 0 if not report["rejected"] or args.on_error == "skip" else 1


def _cmd_upgrade(args) -> int:
    from liuyao_kg.progress import Progress
    from liuyao_kg.upgrade import upgrade

    bar = Progress("upgrade: re-deriving casts", quiet=args.quiet)
    report = upgrade(args.store, batch=args.batch, force=args.force, on_progress=lambda done, total: bar.update(done, total))
    bar.close()
    print(json.dumps(report, ensure_ascii=False, indent=2))
    return 0


def _cmd_serve(args) -> int:
    from liuyao_kg.serve import serve

    serve(_graph(args).store, args.host, args.port, allow_update=args.allow_update)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
