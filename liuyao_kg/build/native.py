"""Write the compiled rules: `python -m liuyao_kg.build native` (`--check`: exit 1 when out of date).

Reads the rules from the package's rules graph, compiles each (`compiler.RuleCompiler`) and writes `compiled.py`,
headed by the hash of the rule base and of the compiler's own sources (`current()` compares both, and a test
fails when the shipped file is stale). A rule the compiler cannot take is listed in it with the reason, and runs on
pyoxigraph. The join orders come from statistics of the kept reference and of casts derived by the reference
Engine from fixed seeds (`sample_inputs`), so the file is a function of the rules and the compiler alone.

The named SELECTs a chart reads (`liuyao_kg.chart.NATIVE_QUERIES`, read from `liuyao_kg.queries`) are compiled into
the same module (`QUERIES`, `compiler.QueryCompiler`), ordered by statistics that also count the package's layers;
the header's QUERY_TEXTS hash covers their texts, so a changed .rq makes the file stale too.
"""
from __future__ import annotations

import hashlib
import random
import re
import sys
import time
from pathlib import Path

from liuyao_kg.build.paths import REASONER

HERE = REASONER / "native"
OUTPUT = HERE / "compiled.py"
#: the modules whose code decides what is generated: this generator, and the compiler's in reasoner/native
SOURCES = (Path(__file__).resolve(), *(HERE / name for name in ("algebra.py", "compiler.py", "planner.py",
                                                                 "runtime.py", "stats.py", "terms.py")))


def compiler_hash() -> str:
    h = hashlib.sha256()
    for path in SOURCES:
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def query_texts_hash() -> str:
    """The hash of the named queries compiled (their names, parameters and texts)."""
    h = hashlib.sha256()
    for name, q in named_queries():
        h.update(f"{name}\0{[(p.name, p.kind) for p in q.params]}\0{q.text}\0".encode())
    return h.hexdigest()


def named_queries() -> list:
    """[(name, NamedQuery)] of the queries a chart reads (build time only: the reasoner imports no queries)."""
    from liuyao_kg import queries
    from liuyao_kg.chart import NATIVE_QUERIES

    return [(name, queries.get(name)) for name in NATIVE_QUERIES]


def query_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def rule_base_hash(rules) -> str:
    from liuyao_kg.reasoner.dependencies import rules_key

    return rules_key({r.iri: r.construct for r in rules})


def package_rules():
    """The rules and the whole ontology and reference (N-Triples) of the package's layers."""
    import pyoxigraph as ox

    from liuyao_kg import namespaces as ns
    from liuyao_kg.ontology import layer_quads
    from liuyao_kg.reasoner.engine import load_rules

    layers = layer_quads((ns.GRAPH_ONTOLOGY, ns.GRAPH_REFERENCE, ns.GRAPH_RULES))
    store = ox.Store()
    store.extend(layers[ns.GRAPH_RULES])
    rules = load_rules(store, ns.GRAPH_RULES)
    reference = ox.serialize([q.triple for g in (ns.GRAPH_ONTOLOGY, ns.GRAPH_REFERENCE) for q in layers[g]],
                             format=ox.RdfFormat.N_TRIPLES)
    return rules, reference


def sample_inputs(seed: int = 39):
    """Seeded casts over every question, dated and undated, with and without sex, birth and year."""
    from liuyao_kg.loaders.cast_input import make_cast_input
    from liuyao_kg.ontology import tables

    rnd = random.Random(seed)
    branches = "子丑寅卯辰巳午未申酉戌亥"
    jiazi = ["甲乙丙丁戊己庚辛壬癸"[i % 10] + branches[i % 12] for i in range(60)]
    out = []
    for i, (topic, *_rest) in enumerate(tables.QUESTIONS):
        values = "".join(rnd.choice("6789") for _ in range(6))
        kwargs: dict = {"topic": topic}
        if i % 5 != 4:
            kwargs.update(month=rnd.choice(branches), day=rnd.choice(jiazi))
        if i % 3 == 0:
            kwargs["year"] = rnd.choice(jiazi)
        if i % 4 == 1:
            kwargs["sex"] = rnd.choice("男女")
        if i % 4 == 2:
            kwargs["birth"] = rnd.choice(branches)
        out.append(make_cast_input(values, **kwargs))
    return out


def statistics(rules, reference: bytes, layers: bool = False):
    """Join-order statistics: the kept reference, and the sample casts as the reference Engine derives them; with
    `layers`, (those, the same with every triple of the package's layers: what the named queries read)."""
    import pyoxigraph as ox

    from liuyao_kg.loaders.rdf import cast_quads
    from liuyao_kg.reasoner.engine import Engine
    from liuyao_kg.reasoner.native.stats import Stats
    from liuyao_kg.reasoner.native.terms import from_ox

    engine = Engine(rules, reference, threads=1)
    native = lambda ts: [(from_ox(t.subject), from_ox(t.predicate), from_ox(t.object)) for t in ts]  # noqa: E731
    kept = native(ox.parse(engine._reference, format=ox.RdfFormat.N_TRIPLES))
    casts = []
    for ci in sample_inputs():
        quads = cast_quads(ci)
        casts.append(native(quads) + native(engine.derive(quads)))
    if not layers:
        return Stats(kept, casts)
    from liuyao_kg.ontology import layer_quads

    every = [(from_ox(q.subject), from_ox(q.predicate), from_ox(q.object)) for qs in layer_quads().values() for q in qs]
    return Stats(kept, casts), Stats(list(dict.fromkeys(kept + every)), casts)


def _function_name(index: int, iri: str) -> str:
    local = re.sub(r"[^0-9A-Za-z_]", "_", iri.rsplit("/", 1)[-1].rsplit("#", 1)[-1])[:40]
    return f"r{index:04d}_{local}"


def compile_rules(rules, stats, progress: bool = False, query_stats=None, queries=None) -> tuple[str, dict[str, str]]:
    """The source of a module of compiled rules (what compiled.py holds), and {rule IRI: why it is not compiled};
    with `queries` ([(name, NamedQuery)]), the queries too, ordered by `query_stats` (an Unsupported one fails)."""
    from liuyao_kg.namespaces import sparql_prologue
    from liuyao_kg.reasoner.native import runtime
    from liuyao_kg.reasoner.native.algebra import Unsupported
    from liuyao_kg.reasoner.native.compiler import Module, QueryCompiler, RuleCompiler
    from liuyao_kg.reasoner.native.engine import rule_digest

    start = time.perf_counter()
    module = Module()
    functions: list[str] = []
    table: list[str] = []
    fallback: dict[str, str] = {}
    prologue = sparql_prologue()
    for i, rule in enumerate(rules):
        name = _function_name(i, rule.iri)
        text = f"{prologue}{rule.construct}\nVALUES ?rule {{ <{rule.iri}> }}"
        mark = len(module.helpers)
        try:
            source = RuleCompiler(module, stats, name).compile(text)
        except Unsupported as e:
            del module.helpers[mark:]
            fallback[rule.iri] = str(e)
            continue
        functions.append(source)
        table.append(f"    {rule.iri!r}: ({rule_digest(rule)!r}, {name}),")
        if progress and i % 100 == 0:
            print(f"  {i}/{len(rules)} rules, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    module.reads = set()  # from here: what the queries read
    query_table: list[str] = []
    for name, q in queries or []:
        fn = "q_" + re.sub(r"[^0-9A-Za-z_]", "_", name)
        kinds = {p.name: "iri" if p.kind in ("iri", "state") else "lit" for p in q.params}
        source, cols = QueryCompiler(module, query_stats or stats, fn).compile(q.text, kinds)
        functions.append(source)
        query_table.append(f"    {name!r}: ({query_digest(q.text)!r}, {fn}, {tuple(cols)!r}),")
    query_reads = module.reads
    lines = [
        "# GENERATED by python -m liuyao_kg.build native from the rules graph: do not edit.",
        "# One function per rule, compiled from its SPARQL CONSTRUCT (reasoner/native/compiler.py).",
        f"# rules: {len(rules)} ({len(rules) - len(fallback)} compiled, {len(fallback)} on pyoxigraph)",
        f"RULE_BASE = {rule_base_hash(rules)!r}",
        f"COMPILER = {compiler_hash()!r}",
        f"QUERY_TEXTS = {query_texts_hash()!r}",
        "# ruff: noqa",
        "from liuyao_kg.reasoner.native.runtime import (",
        *(f"    {n}," for n in runtime.GENERATED_NAMES),
        ")",
        "",
        *module.constant_lines(),
        "",
        "",
        *module.helpers,
        *functions,
        "#: {rule IRI: (digest of the IRI and text it was compiled from, function)}",
        "RULES = {",
        *table,
        "}",
        "#: the predicates some rule looks up by object, and scans whole (None: any): the indexes a cast keeps",
        f"LOOKUPS = {_lookups_source(module.lookups)}",
        "#: {named query: (digest of its text, function (index, *parameters) -> rows, projected variables)}",
        "QUERIES = {",
        *query_table,
        "}",
        "#: the predicates the queries read (None: any): the triples of the package's layers they may see",
        "QUERY_READS = " + ("None" if query_reads is None else
                            f"frozenset({{{', '.join(repr(p) for p in sorted(query_reads))}}})"),
        "#: {rule IRI: (digest, why it runs on pyoxigraph)}",
        "FALLBACK = {",
        *(f"    {r.iri!r}: ({rule_digest(r)!r}, {fallback[r.iri]!r})," for r in rules if r.iri in fallback),
        "}",
        "",
    ]
    return "\n".join(lines), fallback


def _lookups_source(lookups: dict) -> str:
    parts = []
    for name, preds in lookups.items():
        parts.append(f"{name!r}: None" if preds is None else
                     f"{name!r}: frozenset({{{', '.join(repr(p) for p in sorted(preds))}}})")
    return "{" + ", ".join(parts) + "}"


def load(source: str, name: str = "liuyao_kg.reasoner.native.compiled_in_memory"):
    """A module of compiled rules from its source (what `compile_rules` gives), not written anywhere."""
    import types

    module = types.ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    return module


def build(progress: bool = False) -> tuple[str, dict]:
    """The source of compiled.py, and a report: how many rules of each kind compile, which do not and why."""
    start = time.perf_counter()
    rules, reference = package_rules()
    stats, query_stats = statistics(rules, reference, layers=True)
    source, fallback = compile_rules(rules, stats, progress, query_stats, named_queries())
    report = {"rules": len(rules),
              "native": {"state and reading": sum(1 for r in rules if r.iri not in fallback and not r.chapter),
                         "chapter": sum(1 for r in rules if r.iri not in fallback and r.chapter)},
              "fallback": fallback, "seconds": round(time.perf_counter() - start, 1)}
    return source, report


def current() -> bool:
    """Whether the shipped compiled.py was built from the package's rules by this compiler."""
    text = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
    rules, _ = package_rules()
    return (f"RULE_BASE = {rule_base_hash(rules)!r}" in text) and (f"COMPILER = {compiler_hash()!r}" in text) and (
        f"QUERY_TEXTS = {query_texts_hash()!r}" in text)


def stale() -> list[Path]:
    """The compiled module, when it was not built from these rules, queries and compiler (liuyao_kg.build)."""
    return [] if current() else [OUTPUT]


def outputs() -> dict[Path, bytes]:
    """{file: bytes} this step writes (liuyao_kg.build): every rule and query compiled (~90 s)."""
    source, report = build(progress=True)
    for iri, reason in report["fallback"].items():
        print(f"  fallback {iri}: {reason}")
    return {OUTPUT: source.encode("utf-8")}
