"""The `liuyao` command: parses arguments and calls the library; nothing else lives here."""
from __future__ import annotations

import argparse
import json
import os
import sys


def _cast_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", nargs="?",
                   help="節之中孚, 節, 水澤節, 节, 787986 (values bottom-up) or 單拆重交 notation (or --coins / --random)")
    p.add_argument("--coins", help="six tosses of three coins, bottom line first: HHT,HTT,… or 字字背,… "
                                   "(H = 字 counts 2, T = 背 counts 3; see docs/cli.md#casting)")
    p.add_argument("--random", action="store_true", help="toss the coins here (a demo cast; see --seed)")
    p.add_argument("--seed", type=int, help="with --random: the same seed gives the same cast")
    _lang(p)
    p.add_argument("--lines", help="line values bottom-up, checked against a name pair")
    p.add_argument("--month", help="month branch (寅) or stem-branch (丙寅)")
    p.add_argument("--day", help="day stem-branch (辛亥)")
    p.add_argument("--year", help="year stem-branch (壬午)")
    p.add_argument("--birth", help="the asker's birth-year branch (本命)")
    p.add_argument("--sex", help="the asker's sex: 男 or 女 (m / f), for the 男占 / 女占 readings")
    p.add_argument("--date", help="when the cast was made (instead of --month/--day): now; a date, 2024-02-04 (the "
                                  "day's pillars, no hour); or a date-time, 2024-02-04T16:28 (in --tz) or "
                                  "2024-02-04T16:28+08:00 (its own offset). --coins and --random take now unless "
                                  "given a time; see docs/cli.md#when")
    p.add_argument("--tz", metavar="ZONE", help="the time zone of --date now, a date or a date-time without offset: "
                                                "Asia/Taipei, +08:00, UTC-5 or local (default: this machine's)")
    p.add_argument("--day-boundary", choices=["00:00", "23:00"], default="00:00", help="when a day starts")
    p.add_argument("--topic", help="the question, e.g. 求財 婚姻 疾病 晴 雨 晴雨 (synonyms too: 陰晴 求名 科舉; `liuyao topics`)")
    p.add_argument("--about", help="whom the question concerns (來者何人: 父母 夫 妻 子 兄弟 朋友 奴僕 他人, or another "
                                   "name: 師 嫂 侄 …); chooses the use-god for any question (卜筮正宗 用神分類定例)")
    p.add_argument("--school", action="append", help="where the works disagree, the school to read by: a school of the "
                                    "reading (卜筮正宗 or 易冒, for any cast) or of the question's use-god (`liuyao topics` "
                                    "lists them); repeat it to name both")
    p.add_argument("--use-god", dest="use_god", help="name the use-god yourself: a relative (妻財) or a line (1–6)")
    p.add_argument("--horizon", choices=["日", "月", "年"], default=None,
                   help="the timing's unit (易冒: 此月之得 / 彼月之得); default: the question's (卜筮正宗 遠應年月，近應日時: "
                        "月 for 身命 家宅 葬地 功名 田蠶 國家 征戰 婚姻 修道, else 日)")


def _lang(p: argparse.ArgumentParser) -> None:
    """--lang, the same for every command that prints words: its text and table output, summary and progress lines
    in one language (JSON output is the same in every language)."""
    p.add_argument("--lang", choices=["zh", "zh-Hant", "zh-Hans", "en", "ko"], default="zh",
                   help="language of the text output: zh (= zh-Hant), zh-Hans, en, ko")


def _store(p: argparse.ArgumentParser) -> None:
    """The options that name a store and what derives into it."""
    from liuyao_kg.reasoner.engines import BACKENDS, DEFAULT_BACKEND, REGISTRY  # cheap: pyoxigraph, which every command opening a store imports anyway

    where = p.add_mutually_exclusive_group()
    where.add_argument("--store", help="directory of a persistent store (default: in memory)")
    where.add_argument("--endpoint", metavar="URL",
                       help="a SPARQL 1.1 endpoint as the store (credentials from LIUYAO_ENDPOINT_USER and "
                            "LIUYAO_ENDPOINT_PASSWORD; see docs/remote-stores.md#remote-sparql-endpoint)")
    p.add_argument("--update-endpoint", metavar="URL",
                   help="the endpoint's SPARQL Update URL, if not the query URL (or LIUYAO_UPDATE_ENDPOINT)")
    p.add_argument("--timeout", type=_positive, metavar="SECONDS",
                   help="--endpoint: connect and read timeout (default 120, or LIUYAO_ENDPOINT_TIMEOUT)")
    p.add_argument("--total-timeout", type=_positive, metavar="SECONDS",
                   help="--endpoint: the most one request may take in all, retries included (default 600, or "
                        "LIUYAO_ENDPOINT_TOTAL_TIMEOUT)")
    p.add_argument("--wait", type=_positive, default=0.0, metavar="SECONDS",
                   help="--store: wait this long for another process (serve, load) to release the store")
    p.add_argument("--read-only", action="store_true",
                   help="--store: open without taking the store's lock (reads only; a read-only directory, "
                        "or beside a running writer)")
    p.add_argument("--backend", choices=BACKENDS, default=DEFAULT_BACKEND,
                   help="what derives new casts' states and judgments (the same rules and quads): " +
                        "; ".join(f"{name}, {spec.summary}" for name, spec in REGISTRY.items()) +
                        f" (default {DEFAULT_BACKEND})")


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text[:40]!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text[:40]!r}")
    return value


def _count(text: str) -> int:
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {text[:40]!r}")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    from liuyao_kg.version import __version__

    parser = argparse.ArgumentParser(prog="liuyao", description="Six-line divination knowledge graph with citations.")
    parser.add_argument("--version", action="version", version=f"liuyao-kg {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    c = sub.add_parser("cast", help="load a cast, derive its states, print the chart")
    _cast_args(c)
    c.add_argument("--format", choices=["text", "json", "turtle", "trig", "nquads", "json-ld"], default="text",
                   help="turtle: one graph (see --graphs); trig, nquads, json-ld: the cast's named graphs")
    c.add_argument("--graphs", choices=["all", "asserted", "inferred"], default="all",
                   help="RDF formats: the cast's asserted triples, the inferred ones, or both (default)")
    c.add_argument("--brief", action="store_true", help="text: only the verdict, the use-god and the timing")
    _store(c)

    sh = sub.add_parser("show", help="print a stored cast's chart again, by its record id, hash or IRI")
    sh.add_argument("id", help="the record id it had in `liuyao load`, its hash (badf40c86ea611f9) or the hash's "
                               "first characters, or its IRI")
    sh.add_argument("--format", choices=["text", "json", "turtle", "trig", "nquads", "json-ld"], default="text",
                    help="as `liuyao cast --format`")
    sh.add_argument("--graphs", choices=["all", "asserted", "inferred"], default="all",
                    help="RDF formats: the cast's asserted triples, the inferred ones, or both (default)")
    _lang(sh)
    sh.add_argument("--brief", action="store_true", help="text: only the verdict, the use-god and the timing")
    sh.add_argument("--horizon", choices=["日", "月", "年"], default=None,
                    help="the timing's unit (default: the question's; see `liuyao cast --help`)")
    _store(sh)

    q = sub.add_parser("query", help="run a named query (see --list)")
    q.add_argument("name", nargs="?")
    q.add_argument("--param", action="append", default=[], metavar="K=V", help="a query parameter")
    q.add_argument("--list", action="store_true", help="list the named queries and their parameters")
    q.add_argument("--format", choices=["table", "json"], default="table",
                   help="table: cut to the terminal's width, IRIs by prefixed or local names; json: every value whole")
    q.add_argument("--iris", action="store_true", help="table: full IRIs instead of lyo:… / lyrule:… / local names")
    _lang(q)
    _store(q)

    tp = sub.add_parser("topics", help="the questions (占事): the scheme's tree, labels, use-god choices and sources")
    tp.add_argument("--format", choices=["text", "json"], default="text")
    _lang(tp)
    _store(tp)

    rl = sub.add_parser("rules", help="the chapter rule base: coverage per seed and chapter")
    rl.add_argument("what", choices=["coverage", "graph", "never-fired"],
                    help="coverage: rules per chapter, executable or not; graph: the rule dependency graph; "
                         "never-fired: executable rules that fire on none of a uniform sample of casts")
    rl.add_argument("--format", choices=["text", "json", "graphml", "dot"], default="text")
    rl.add_argument("--sample", type=int, default=1000,
                    help="never-fired: casts drawn from 64×64 pairs × 12 months × 60 days × topics (default 1000)")
    rl.add_argument("--seed", type=int, default=0, help="never-fired: the sample's seed (same seed, same sample)")
    rl.add_argument("--years", action="store_true", help="never-fired: also draw a year stem-branch (太歲) per cast")
    _lang(rl)

    why = sub.add_parser("why", help="trace a judgment or a line state back to its rule, facts and passages")
    _cast_args(why)
    why.add_argument("--line", type=int, help="a line position (1–6): explain its states")
    why.add_argument("--rule", help="a judgment's rule: its short id (printed after it on the chart), IRI, or "
                                    "conclusion text (e.g. 理不應得): explain that judgment")
    why.add_argument("--format", choices=["text", "json"], default="text")
    why.add_argument("--verdict", action="store_true", help="explain the verdict: its rule, factors, outweighings, passages")
    why.add_argument("--timing", type=int, metavar="N", help="explain the timing candidate ranked N (1 = first)")
    _store(why)

    ev = sub.add_parser("eval", help="the reading against cases with recorded outcomes (the cast gets only the "
                                     "question): verdict direction, balanced accuracy, timing hit@1/@3, baselines")
    ev.add_argument("cases", nargs="+", metavar="FILE",
                    help="YAML files of cases, each reported as a set, then all together "
                         "(../shared/outcomes/buzheng_cases.yaml, tests/data/eval_cases.yaml)")
    ev.add_argument("--format", choices=["text", "json"], default="text")
    ev.add_argument("--without", action="append", default=[], metavar="RULE",
                    help="leave a rule of the reading out (its local name, e.g. FactorSourceDamaged; repeatable): "
                         "an ablation")
    ev.add_argument("--school", help="the school of the reading every case is read by (卜筮正宗 or 易冒; default: "
                                     "the default school, as a cast that names none)")
    _lang(ev)

    ld = sub.add_parser("load", help="load a batch of casts (JSON Lines, YAML or CSV)")
    ld.add_argument("file")
    ld.add_argument("--on-error", choices=["skip", "abort"], default="skip",
                    help="skip: load the good casts and report the bad; abort: load nothing if any is bad")
    ld.add_argument("--strict", action="store_true",
                    help="exit 1 if any record is rejected (the good ones stay loaded; --on-error abort loads "
                         "none). Without it: 0, or 2 when every record was rejected (docs/cli.md#exit-status)")
    ld.add_argument("--quiet", action="store_true", help="no progress line and no summary on stderr")
    _lang(ld)
    ld.add_argument("--jobs", type=int, default=None,
                    help="worker processes deriving casts (default: the number of CPUs, as many as the available "
                         "memory holds at ~0.25 GB a process; 1 = in this process)")
    ld.add_argument("--encoding", help="the file's text encoding (default: UTF-8, or what its BOM says; "
                                       "UTF-16 without a BOM is recognised), e.g. big5, gb18030, latin-1")
    ld.add_argument("--parquet", metavar="DIR",
                    help="write states*.parquet, judgments*.parquet and casts*.parquet to DIR (instead of a store, or "
                         "beside --store DIR or --endpoint URL: the casts written into it; see docs/loading.md#loading-large-batches)")
    ld.add_argument("--cluster", metavar="local:N|ADDRESS",
                    help="with --parquet: derive on Dask distributed (local:N starts N local workers)")
    ld.add_argument("--partition", type=int, metavar="N",
                    help="derive in partitions of N casts (each written to one set of Parquet files, or into the store "
                         "together); default: the engine's batch (500 natively, 50 --backend oxigraph); never more jobs "
                         "than partitions")
    _store(ld)

    up = sub.add_parser("upgrade", help="replace an on-disk store's layers with this package's and re-derive every cast")
    up.add_argument("--store", required=True, help="directory of the persistent store to upgrade")
    up.add_argument("--partition", type=int, metavar="N",
                    help="casts derived at a time, each cast's graph changed only where it differs (default: the "
                         "engine's batch, 500 natively)")
    up.add_argument("--force", action="store_true", help="re-derive every cast even if the store is current")
    up.add_argument("--quiet", action="store_true", help="no progress on stderr")
    _lang(up)

    co = sub.add_parser("corpus", help="editions of the classics: add one (aligning its work's passages), list them, "
                                       "review or evaluate their links, collate two witnesses, export them, resolve a citation")
    co.add_argument("what", choices=["add", "list", "review", "eval", "collate", "export", "cite"])
    co.add_argument("file", nargs="?", help="add: the edition, plain text or wikitext (UTF-8); "
                                            "review: a YAML file of judged parallel links; "
                                            "eval: a gold set of labelled pairs (docs/corpus.md); collate, export: "
                                            "the first witness (火珠林/seed, 黃金策@卜筮正宗/ctext, an edition IRI, or a "
                                            "file with --work); cite: a passage's URN, urn:liuyao:… (docs/citation.md)")
    co.add_argument("second", nargs="?", help="collate, export --to tei: the second witness")
    co.add_argument("--to", choices=["tei", "annotations"], default="tei",
                    help="export: TEI parallel segmentation of two witnesses, or the store's annotations of one "
                         "edition as W3C Web Annotation JSON-LD")
    co.add_argument("--output", help="export: write to this file (default: standard output)")
    co.add_argument("--work", help="add: the work it is an edition of (火珠林, 天玄賦, 易冒, 黃金策, 卜筮正宗)")
    co.add_argument("--edition", help="add: a short ASCII name for the edition (part of its IRI), e.g. wikisource")
    co.add_argument("--source", help="add: the URL the file came from")
    co.add_argument("--retrieved", help="add: the day it was retrieved, YYYY-MM-DD")
    co.add_argument("--shared", help="eval: the directory holding seeds/ and corpora/ (default ../shared)")
    co.add_argument("--format", choices=["text", "json"], default="text")
    _store(co)  # --store DIR or --endpoint URL (+ --update-endpoint); neither: in memory, a dry run that reports

    sv = sub.add_parser("serve", help="a SPARQL 1.1 Protocol endpoint over the store (read-only by default)")
    _store(sv)
    sv.add_argument("--host", default="127.0.0.1", help="interface to listen on (default: loopback only)")
    sv.add_argument("--port", type=int, default=7878)
    sv.add_argument("--allow-update", action="store_true",
                    help="accept SPARQL updates (they write the store as given; no derivation)")
    sv.add_argument("--allow-service", action="append", default=[], metavar="HOST",
                    help="a host (or host:port) that SERVICE / LOAD may reach (repeatable; default: none)")
    sv.add_argument("--query-timeout", type=_positive, default=30.0, metavar="SECONDS",
                    help="time limit per query (default 30)")
    sv.add_argument("--max-result-bytes", type=_count, default=64 * 1024 * 1024, metavar="N",
                    help="size limit of one answer (default 64 MiB)")
    sv.add_argument("--max-body-bytes", type=_count, default=16 * 1024 * 1024, metavar="N",
                    help="size limit of one request body (default 16 MiB)")
    sv.add_argument("--update-timeout", type=_positive, default=30.0, metavar="SECONDS",
                    help="time limit of an update's dry run (WHERE, CLEAR …); past it nothing is written (default 30)")
    sv.add_argument("--idle-timeout", type=_positive, default=15.0, metavar="SECONDS",
                    help="close a connection that waits this long for a request to begin (new or kept alive; "
                         "default 15)")
    sv.add_argument("--header-timeout", type=_positive, default=10.0, metavar="SECONDS",
                    help="time for a request's line and headers once begun (default 10)")
    sv.add_argument("--body-timeout", type=_positive, default=30.0, metavar="SECONDS",
                    help="time for a whole request body (default 30)")
    sv.add_argument("--send-timeout", type=_positive, default=60.0, metavar="SECONDS",
                    help="time for sending one answer to the client (default 60)")
    sv.add_argument("--isolate", choices=("fork", "thread"), default=None,
                    help="fork (default on Linux): each query in a child process, killed at its limits; "
                         "thread: in the server process (stops only between rows)")

    mc = sub.add_parser("mcp", help="an MCP server over stdio for agents: cast, why, topics and the named queries as "
                                    "tools (docs/mcp.md)")
    _store(mc)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return {"cast": _cmd_cast, "query": _cmd_query, "load": _cmd_load, "rules": _cmd_rules,
                "why": _cmd_why, "serve": _cmd_serve, "upgrade": _cmd_upgrade,
                "corpus": _cmd_corpus, "eval": _cmd_eval, "topics": _cmd_topics, "show": _cmd_show,
                "mcp": _cmd_mcp}[args.command](args)
    except Exception as e:
        code = _exit_code(e)
        if code is None:
            raise
        from liuyao_kg.serve.messages import error

        _error(args, error(e, getattr(args, "lang", "en")))  # a RemoteStoreError's message never holds credentials
        return code
    finally:
        kg = getattr(args, "_kg", None)
        if kg is not None:
            kg.close()


def _error(args, text: str) -> None:
    """`liuyao: error: …` on stderr, the word and the text in the command's --lang (English where it has none)."""
    from liuyao_kg.chart.i18n import base, to_lang
    from liuyao_kg.serve.messages import ERROR_WORD

    lang = getattr(args, "lang", "en")
    print(f"liuyao: {to_lang(ERROR_WORD[base(lang)], lang)}: {text}", file=sys.stderr)


def _refuse(args, code: str, **values) -> None:
    """One of the CLI's own refusals (serve/messages.ERRORS), said by `_error`."""
    from liuyao_kg.serve.messages import say

    _error(args, say(code, getattr(args, "lang", "en"), **values))


def _refusal(cls, code: str, message: str, *, field: str | None = None, **values):
    """An input error of the CLI's own (`message`, English), with the `code` and values its other languages are
    said by (serve/messages.ERRORS)."""
    err = cls(message, field=field, value=values.get("value"))
    err.code, err.values = code, values
    return err


def _exit_code(e: Exception) -> int | None:
    """2 for bad input, 1 for a store that failed, None for anything else (a bug: raised as it is). The error
    classes are imported only here, once something went wrong: the remote store's module (urllib, http) is
    not imported by a `liuyao cast` that succeeds."""
    from liuyao_kg.loaders.errors import CastInputError
    from liuyao_kg.queries import QueryParameterError
    from liuyao_kg.store.remote import RemoteStoreError
    from liuyao_kg.store import StoreError
    from liuyao_kg.store.versioning import OutdatedStoreError

    if isinstance(e, (CastInputError, QueryParameterError, OutdatedStoreError)):
        return 2
    if isinstance(e, (RemoteStoreError, StoreError)):
        return 1
    return None


def _graph(args):
    """The store named by --store or --endpoint (opened once per command, closed by main), else the in-memory one."""
    from liuyao_kg import default_graph
    from liuyao_kg.load import derive_with
    from liuyao_kg.reasoner.engines import DEFAULT_BACKEND
    from liuyao_kg.store import open_store

    if getattr(args, "_kg", None) is not None:
        return args._kg
    backend = getattr(args, "backend", None) or DEFAULT_BACKEND
    if getattr(args, "endpoint", None):
        args._kg = open_store(args.endpoint, update_url=args.update_endpoint, timeout=args.timeout,
                              total_timeout=args.total_timeout)
    elif getattr(args, "store", None):
        from liuyao_kg.chart.i18n import to_lang, word

        lang = getattr(args, "lang", "en")  # a new store takes seconds: said on stderr, in --lang
        said = False if getattr(args, "quiet", False) else to_lang(word("new_store", lang), lang)
        args._kg = open_store(args.store, read_only=getattr(args, "read_only", False), wait=getattr(args, "wait", 0.0) or 0.0,
                              progress=said)
    elif backend != DEFAULT_BACKEND:
        args._kg = open_store("memory")
    else:
        return default_graph()
    return derive_with(args._kg, backend=backend)


def _spec(args) -> str:
    """The cast's lines: the spec, or values from --coins, or coins tossed here for --random."""
    from liuyao_kg.loaders.coins import random_coins, values_from_coins
    from liuyao_kg.loaders.errors import BadLineValue

    given = [n for n, v in (("a spec", args.spec), ("--coins", args.coins), ("--random", args.random)) if v]
    if len(given) != 1:
        from liuyao_kg.chart.i18n import base, to_lang

        said = {"zh": ("卦", "、", "無"), "ko": ("괘", ", ", "없음")}.get(base(args.lang), ("a spec", " and ", "none"))
        given_said = said[1].join(said[0] if g == "a spec" else g for g in given) or said[2]
        raise _refusal(BadLineValue, "one_spec", f"give exactly one of a spec (節之中孚, 787986 …), --coins or "
                       f"--random; got {' and '.join(given) or 'none'}", field="spec",
                       given=to_lang(given_said, args.lang))
    if args.seed is not None and not args.random:
        raise _refusal(BadLineValue, "seed_without_random", "--seed goes with --random", field="seed", value=args.seed)
    if args.random:
        coins = random_coins(args.seed)
        from liuyao_kg.chart.i18n import to_lang, word

        said = word("coins_tossed", args.lang) + (word("seed", args.lang) if args.seed is not None else "")
        shown = coins if args.lang == "en" else coins.replace("H", "字").replace("T", "背")  # H = 字, T = 背
        print(to_lang(said, args.lang).format(coins=shown, seed=args.seed), file=sys.stderr)
        return values_from_coins(coins)
    return values_from_coins(args.coins) if args.coins else args.spec


def _when(args):
    """The moment of the cast: --date read in --tz, or now for coins (--coins, --random) given no time."""
    from liuyao_kg.loaders.errors import BadDate
    from liuyao_kg.loaders.moment import parse_zone, when

    zone = parse_zone(args.tz)
    text = args.date
    if text is None and (args.coins or args.random) and not any((args.month, args.day, args.year)):
        text = "now"
    if text is None:
        if args.tz is not None:
            raise _refusal(BadDate, "tz_without_date", "--tz reads --date (now, a date, a date-time); with a spec and "
                           "no --date the cast has no moment", field="tz", value=args.tz)
        return None
    moment = when(text, zone)
    if text.strip().lower() == "now":  # the clock's reading, said, so the chart can be cast again
        from liuyao_kg.chart.i18n import to_lang, word

        said = word("cast_at", args.lang) + (word("cast_at_now", args.lang) if args.date is None else "")
        print(to_lang(said, args.lang).format(moment=moment.isoformat()), file=sys.stderr)
    return moment


def _cmd_cast(args) -> int:
    import liuyao_kg

    moment = _when(args)  # a bad --date or --tz is refused before a store is opened
    kg = _graph(args)
    chart = liuyao_kg.cast(_spec(args), lines=args.lines, month=args.month, day=args.day, year=args.year,
                           birth=args.birth, sex=args.sex, date=moment, topic=args.topic, about=args.about,
                           school=args.school, use_god=args.use_god, day_boundary=args.day_boundary, kg=kg,
                           horizon=args.horizon)
    return _print_chart(args, kg, chart)


def _print_chart(args, kg, chart: dict) -> int:
    """A chart as `cast` and `show` print it: JSON, an RDF format, or text in --lang (--brief: the reading only)."""
    from liuyao_kg.chart import render

    if args.format == "json":
        print(json.dumps(chart, ensure_ascii=False, indent=2))
    elif args.format != "text":
        sys.stdout.write(render.cast_rdf(kg, chart["cast"], args.format, args.graphs))
    else:
        from liuyao_kg.chart.i18n import labels

        sys.stdout.write(render.chart_text(chart, args.lang, labels(kg), brief=args.brief))
    return 0


def _cmd_show(args) -> int:
    from liuyao_kg.chart import chart as chart_of
    from liuyao_kg.chart.lookup import find_cast
    from liuyao_kg.loaders.errors import UnknownCastId

    if not (args.store or args.endpoint):
        raise _refusal(UnknownCastId, "show_needs_store", "show reads a stored cast: give --store DIR or --endpoint URL",
                       field="store")
    kg = _graph(args)
    return _print_chart(args, kg, chart_of(kg, find_cast(kg, args.id), args.horizon))


def _cmd_query(args) -> int:
    from liuyao_kg import queries

    if args.list or not args.name:
        from liuyao_kg.chart.i18n import Labels, Words, tag

        w = Words(args.lang, Labels(None))  # the package's own labels: no store is opened
        for q in queries.catalogue().values():
            params = ", ".join(f"{p.name}: {p.kind}" for p in q.params)
            said = q.description(tag(w.base))  # English: its Chinese terms glossed (the 納音 → Nayin (納音))
            print(f"{q.name}({params})\n    {w.finish(w.prose(said))}")
        return 0
    params = {}
    for kv in args.param:
        k, sep, v = kv.partition("=")
        if not sep:
            raise queries.QueryParameterError(f"--param needs K=V, got {kv!r}", code="param_syntax", value=repr(kv))
        params[k] = v
    kg = _graph(args)
    rows = queries.run(kg, args.name, **params)
    if args.format == "json":
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    else:
        from liuyao_kg.chart.cells import rows_in
        from liuyao_kg.chart.i18n import labels
        from liuyao_kg.chart.render import table
        from liuyao_kg.chart.table import terminal_width

        sys.stdout.write(table(rows_in(rows, args.lang, labels(kg)), iris=args.iris, width=terminal_width()))
    return 0


def _cmd_rules(args) -> int:
    from liuyao_kg.rulebase.coverage import coverage, coverage_text, dependency_graph

    if args.what == "never-fired":
        from liuyao_kg.chart.i18n import labels
        from liuyao_kg.rulebase.never_fired import never_fired, never_fired_text, say

        if args.sample < 1:
            _refuse(args, "sample")
            return 2
        report = never_fired(args.sample, args.seed, years=args.years,
                             progress=lambda done, n: print(say("derived", args.lang, done=done, n=n), file=sys.stderr,
                                                            flush=True))
        print(json.dumps(report, ensure_ascii=False, indent=2) if args.format == "json"
              else never_fired_text(report, args.lang, labels(_graph(args))), end="" if args.format != "json" else "\n")
        return 0
    if args.what == "graph":
        sys.stdout.write(dependency_graph(_graph(args), "dot" if args.format == "dot" else "graphml"))
        return 0
    report = coverage(_graph(args))
    if args.format == "json":
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        from liuyao_kg.chart.i18n import labels
        from liuyao_kg.chart.table import terminal_width

        sys.stdout.write(coverage_text(report, width=terminal_width(), lang=args.lang, labels=labels(_graph(args))))
    return 0


def _cmd_topics(args) -> int:
    from liuyao_kg.chart.i18n import labels
    from liuyao_kg.rulebase.topics import topics, topics_text

    kg = _graph(args)
    rows = topics(kg)
    print(json.dumps(rows, ensure_ascii=False, indent=2) if args.format == "json"
          else topics_text(rows, args.lang, labels(kg)), end="")
    return 0


def _cmd_why(args) -> int:
    import liuyao_kg
    from liuyao_kg.chart.why import explain, why_data

    if args.line is not None and not 1 <= args.line <= 6:
        _refuse(args, "line", value=args.line)
        return 2
    moment = _when(args)  # a bad --date or --tz is refused before a store is opened
    kg = _graph(args)
    chart = liuyao_kg.cast(_spec(args), lines=args.lines, month=args.month, day=args.day, year=args.year,
                           birth=args.birth, sex=args.sex, date=moment, topic=args.topic, about=args.about,
                           school=args.school, use_god=args.use_god, day_boundary=args.day_boundary, kg=kg,
                           horizon=args.horizon)
    if args.verdict or args.timing is not None:
        from liuyao_kg.chart.why_reading import explain_timing, explain_verdict

        if args.timing is not None and not 1 <= args.timing <= max(1, len(chart["timing"])):
            _refuse(args, "timing", value=args.timing, n=len(chart["timing"]))
            return 2
        text = explain_verdict(kg, chart, args.lang) if args.verdict else ""
        if args.timing is not None:
            text += explain_timing(kg, chart, args.timing, args.lang)
        sys.stdout.write(text)
        return 0
    if args.format == "json":
        print(json.dumps(why_data(kg, chart, line=args.line, rule=args.rule), ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(explain(kg, chart, line=args.line, rule=args.rule, lang=args.lang))
    return 0


def _cmd_eval(args) -> int:
    from pathlib import Path

    from liuyao_kg.rulebase.evaluate import evaluate, load_cases, report_text

    stems = [Path(f).stem for f in args.cases]
    cases = []
    for f, stem in zip(args.cases, stems):  # a set is named by its file's stem, by its path if two stems match
        cases += load_cases(f, set_name=stem if stems.count(stem) == 1 else str(f))
    report = evaluate(cases, without=args.without, school=args.school)
    if args.format == "json":
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        import liuyao_kg
        from liuyao_kg.chart.i18n import labels

        sys.stdout.write(report_text(report, args.lang, labels(liuyao_kg.default_graph())))
    return 0


def _cmd_load(args) -> int:
    import time
    from pathlib import Path

    from liuyao_kg.load.pipeline import load_file, progress_names, say, summary
    from liuyao_kg.load.sinks import Parquet
    from liuyao_kg.load.workers import workers_of
    from liuyao_kg.loaders.batch import check_readable
    from liuyao_kg.progress import Progress

    _check_load_options(args)
    name = Path(args.file).name
    check_readable(args.file, format=None, encoding=args.encoding)  # before the store is opened (or created)
    bar = Progress(say("load", args.lang, name=name), quiet=args.quiet, names=progress_names(args.lang))
    stats: dict = {}
    t0 = time.perf_counter()
    # Parquet alone, Parquet beside a store, or a store (the one in memory when none is named)
    sinks = [Parquet(args.parquet)] if args.parquet else []
    if not args.parquet or args.store or args.endpoint:
        sinks.append(_graph(args))
    report = load_file(args.file, sinks, workers_of(args.jobs, args.cluster), on_error=args.on_error,
                       partition=args.partition, backend=args.backend, progress=bar, stats=stats,
                       encoding=args.encoding)
    bar.close()
    if not args.quiet:
        from liuyao_kg.serve.messages import error

        sys.stderr.write(summary(report, name=name, seconds=time.perf_counter() - t0, jobs=stats.get("jobs", 1),
                                 lang=args.lang, errors=stats.get("errors"), reason=lambda e: error(e, args.lang)))
    print(json.dumps(report, ensure_ascii=False, indent=2))
    return _load_status(args, report, strict=args.strict or args.on_error == "abort")


def _load_status(args, report: dict, *, strict: bool) -> int:
    """2 when records were given and every one was rejected (nothing stored: bad input); with `strict`, 1 when
    any was; else 0. Said on stderr, --quiet or not: it is why the status is not 0."""
    rejected, n = len(report["rejected"]), sum(len(report[k]) for k in ("loaded", "skipped", "rejected"))
    if rejected and rejected == n:
        _refuse(args, "nothing_loaded", n=n)
        return 2
    if rejected and strict:
        _refuse(args, "rejected_strict", n=n, rejected=rejected, kept=n - rejected)
        return 1
    return 0


def _check_load_options(args) -> None:
    """Refuse `liuyao load` options that do not go together, naming them, before the store is opened."""
    from liuyao_kg.loaders.errors import CastInputError

    if args.partition is not None and args.partition < 1:
        raise _refusal(CastInputError, "partition", f"--partition {args.partition}: a number of casts ≥ 1",
                       field="partition", value=args.partition)
    if args.cluster and (not args.parquet or args.store or args.endpoint):
        raise _refusal(CastInputError, "cluster_parquet", "--cluster needs --parquet DIR and writes Parquet only: its "
                       "workers cannot write into this process's store (no --store/--endpoint)", field="cluster")
    if args.cluster and args.jobs is not None:
        raise _refusal(CastInputError, "jobs_with_cluster", "--jobs with --cluster: the cluster's workers derive the "
                       "partitions (--jobs is for worker processes of this machine)", field="jobs", value=args.jobs)
    if args.jobs is not None and args.jobs < 1:
        raise _refusal(CastInputError, "jobs", f"--jobs {args.jobs}: a number of jobs ≥ 1", field="jobs",
                       value=args.jobs)


def _cmd_upgrade(args) -> int:
    from liuyao_kg.loaders.errors import CastInputError
    from liuyao_kg.progress import Progress
    from liuyao_kg.load.pipeline import progress_names, say
    from liuyao_kg.load.upgrade import upgrade

    if args.partition is not None and args.partition < 1:
        raise _refusal(CastInputError, "partition", f"--partition {args.partition}: a number of casts ≥ 1",
                       field="partition", value=args.partition)
    bar = Progress(say("upgrade", args.lang), quiet=args.quiet, names=progress_names(args.lang))
    report = upgrade(args.store, force=args.force, partition=args.partition,
                     on_progress=lambda done, total: bar.update(done, total))
    bar.close()
    print(json.dumps(report, ensure_ascii=False, indent=2))
    return 0


def _cmd_corpus(args) -> int:
    from liuyao_kg.corpus.cli import corpus_command

    return corpus_command(args, _graph(args))


def _cmd_serve(args) -> int:
    from liuyao_kg.serve.endpoint import Limits, serve

    limits = Limits(query_timeout=args.query_timeout, update_timeout=args.update_timeout,
                    max_result_bytes=args.max_result_bytes, max_body_bytes=args.max_body_bytes,
                    idle_timeout=args.idle_timeout, header_timeout=args.header_timeout,
                    body_timeout=args.body_timeout, send_timeout=args.send_timeout,
                    allow_service=tuple(args.allow_service), **({"isolate": args.isolate} if args.isolate else {}))
    kg = _graph(args)  # embedded, or remote: `serve --endpoint URL` fronts that endpoint
    serve(kg, args.host, args.port, allow_update=args.allow_update, limits=limits, kg=kg)
    return 0


def _cmd_mcp(args) -> int:
    try:
        from liuyao_kg.serve.mcp import serve_stdio
    except ModuleNotFoundError as e:
        if e.name not in ("mcp", "mcp_types"):
            raise
        _refuse(args, "mcp_sdk")
        return 1
    serve_stdio(_graph(args))  # stdout carries the protocol: nothing else is printed there
    return 0


#: commands that hold at most one store, closed by `main`, and start no other process or thread
_QUICK_EXIT = {"cast", "why", "query", "topics", "show"}


def entry(argv: list[str] | None = None) -> None:
    """The console script: `main`, then, for the commands of _QUICK_EXIT, leave without tearing the interpreter
    down. Freeing an in-memory store and the engine's working store (~130,000 quads) took a noticeable share of
    every `liuyao cast` after its output was written (benchmarks/cold_start.py). Output is flushed first; if that fails (a closed pipe), the
    normal exit reports it as before."""
    args = sys.argv[1:] if argv is None else argv
    code = main(args)
    if next((a for a in args if not a.startswith("-")), None) in _QUICK_EXIT:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except OSError:
            sys.exit(code)
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    entry()
