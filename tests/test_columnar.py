"""The columnar back end (reasoner/columnar) derives exactly what the pyoxigraph engine derives, on DuckDB
(ColumnarEngine) and on SQLite (SqliteEngine) alike: every test here runs on both.

The SPARQL semantics is the reference: per cast the sorted N-Quads of both engines (IRIs, graphs and
prov:wasDerivedFrom included) must be equal. Quick here: the rule witnesses (every executable chapter
rule fires on one of them), a seeded sample with years, sexes, subjects and dates (an xsd:dateTime in
the batch), and the translator's own semantics on small hand-made rules. The 64×64 pairs and 2,000
casts are in test_columnar_full.py (marker `columnar_full`).
"""
from __future__ import annotations

import random
import re
from pathlib import Path

import pyoxigraph as ox
import pytest
import yaml

from liuyao_kg import namespaces as ns
from liuyao_kg.graph import layer_quads
from liuyao_kg.loaders.cast_input import make_cast_input
from liuyao_kg.loaders.rdf import cast_quads
from liuyao_kg.reasoner.columnar.engine import ColumnarEngine
from liuyao_kg.reasoner.columnar.sqlite import SqliteEngine
from liuyao_kg.reasoner.columnar.translate import Unsupported, translate
from liuyao_kg.reasoner.columnar.wide import chapter_conditions
from liuyao_kg.reasoner.engine import Engine, Rule, load_rules
from liuyao_kg.reasoner.dependencies import rule_io
from samples import JIAZI, sample_casts

WITNESSES = yaml.safe_load((Path(__file__).parent / "data" / "rule_witnesses.yaml").read_text(encoding="utf-8"))


#: the databases the generated SQL runs on; "-wide": the chapter rules compiled from their conditions (wide.py)
BACKENDS = {"duckdb": ColumnarEngine, "sqlite": SqliteEngine, "duckdb-wide": ColumnarEngine, "sqlite-wide": SqliteEngine}


@pytest.fixture(scope="module")
def package_rules():
    """The package's rules and reference quads, and its layers."""
    layers = layer_quads()
    store = ox.Store()
    store.extend(layers[ns.GRAPH_RULES])
    return load_rules(store, ns.GRAPH_RULES), layers[ns.GRAPH_ONTOLOGY] + layers[ns.GRAPH_REFERENCE], layers


@pytest.fixture(scope="module", params=sorted(BACKENDS))
def engines(request, package_rules):
    rules, reference, layers = package_rules
    conditions = chapter_conditions(layers[ns.GRAPH_RULES]) if request.param.endswith("-wide") else None
    col = BACKENDS[request.param](rules, reference, conditions=conditions)
    yield Engine(rules, reference), col
    col.close()


def per_cast(quads) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for q in quads:
        out.setdefault(q.graph_name.value, []).append(str(q))
    return {g: sorted(v) for g, v in out.items()}


def reference_quads(ref: Engine, inputs) -> list[ox.Quad]:
    """The reference's inferred quads, derived as `liuyao load` derives: one-topic chunks of CHUNK casts
    (one pyoxigraph batch of a few hundred mixed casts is many times slower; no rule joins two casts,
    so a cast's quads do not depend on its batch)."""
    from liuyao_kg.batch import CHUNK

    ordered = sorted(inputs, key=lambda ci: str(ci.topic or ""))
    return [q for k in range(0, len(ordered), CHUNK)
            for q in ref.derive([q for ci in ordered[k:k + CHUNK] for q in cast_quads(ci)])]


def assert_same(engines, inputs):
    ref, col = engines
    asserted = [q for ci in inputs for q in cast_quads(ci)]
    expected, got = per_cast(reference_quads(ref, inputs)), per_cast(col.derive(asserted))
    assert expected.keys() == got.keys()
    bad = [g for g in expected if expected[g] != got[g]]
    detail = ""
    if bad:
        e, c = set(expected[bad[0]]), set(got[bad[0]])
        detail = f"missing {sorted(e - c)[:3]} extra {sorted(c - e)[:3]}"
    assert bad == [], f"{len(bad)} of {len(expected)} casts differ; first {bad[0] if bad else ''}: {detail}"
    return sum(len(v) for v in got.values())


def test_every_rule_of_the_package_is_translated_to_sql_or_named_with_its_reason(engines):
    _ref, col = engines
    paths = col.paths
    assert sum(paths.values()) == len(col.rules)
    assert all(isinstance(r, str) and r for r in col.fallback_reasons().values())


def test_the_rule_witnesses_derive_identically_on_both_engines(engines):
    inputs = []
    for c in WITNESSES["casts"].values():
        extra = {k: c[k] for k in ("sex", "about") if c.get(k)}
        inputs.append(make_cast_input(str(c["values"]), month=c["month"], day=c["day"], topic=c["topic"],
                                      year=c["year"], birth=c.get("birth"), **extra))
    assert assert_same(engines, inputs) > 50_000


def test_a_seeded_sample_with_years_births_sexes_and_dates_derives_identically(engines):
    rnd = random.Random(12)
    inputs = []
    for i, (values, month, day, topic) in enumerate(sample_casts(40, seed=12)):
        kw = {"year": rnd.choice(JIAZI)} if i % 2 else {}
        if i % 3 == 0:
            kw["birth"] = rnd.choice("子丑寅卯辰巳午未申酉戌亥")
        if i % 4 == 0:
            kw["sex"] = rnd.choice("男女")
        if i % 5 == 0:  # an xsd:dateTime in the batch: rules ordering stored terms run on pyoxigraph
            inputs.append(make_cast_input(values, date=f"2024-0{1 + i % 9}-1{i % 10}T10:00:00+08:00", topic=topic))
            continue
        inputs.append(make_cast_input(values, month=month, day=day, topic=topic, **kw))
    assert_same(engines, inputs)


def test_the_output_read_back_a_few_keys_a_statement_is_the_whole_output(engines, monkeypatch):
    """A batch's derived rows are read back from the key tables (`_out`), in statements of at most
    OUT_KEYS_PER_STATEMENT keys; a dated cast sends rules to the pyoxigraph mirror, which reads them by level."""
    _ref, col = engines
    inputs = [make_cast_input(v, month=m, day=d, topic=t) for v, m, d, t in sample_casts(2, seed=5)]
    inputs.append(make_cast_input("787986", date="2024-02-04T16:28:00+08:00", topic="求財"))
    asserted = [q for ci in inputs for q in cast_quads(ci)]
    whole = col.derive(asserted)
    monkeypatch.setattr(col, "OUT_KEYS_PER_STATEMENT", 7)
    assert sorted(map(str, col.derive(asserted))) == sorted(map(str, whole))


def test_one_cast_alone_derives_what_it_derives_in_a_batch(engines):
    _ref, col = engines
    inputs = [make_cast_input(v, month=m, day=d, topic=t) for v, m, d, t in sample_casts(3, seed=4)]
    alone = {q for ci in inputs for q in col.derive(cast_quads(ci))}
    together = set(col.derive([q for ci in inputs for q in cast_quads(ci)]))
    assert alone == together


# --- the translator on hand-made rules: each construct against pyoxigraph on a tiny graph ---------

DATA = """
@prefix ex: <http://example.org/> .
<https://w3id.org/liuyao-kg/cast/c1> ex:n 3 ; ex:m 3 ; ex:s "a" ; ex:l "a"@en ; ex:b true ; ex:k <http://example.org/x> .
<https://w3id.org/liuyao-kg/cast/c2> ex:n 5 ; ex:s "b\\"q" ; ex:k <http://example.org/y> ; ex:d "2024-01-01T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
<https://w3id.org/liuyao-kg/cast/c3> ex:n 7 , 9 , "x" ; ex:e <http://example.org/fire> ; ex:s "c"@zh ; ex:k <http://example.org/x> .
<https://w3id.org/liuyao-kg/cast/c4> ex:n 2 ; ex:e <http://example.org/fire> .
<http://example.org/x> ex:v 1 .
"""
CASES = {
    "union and bind": "{ ?c ex:n ?x } UNION { ?c ex:s ?x } BIND(IRI(CONCAT(STR(?c), '/u')) AS ?o)",
    "numeric filter": "?c ex:n ?x . FILTER(?x >= 4)",
    "arithmetic": "?c ex:n ?x . BIND(?x + 1 - 2 AS ?o)",
    "if": "?c ex:n ?x . BIND(IF(?x = 3, ex:three, ex:other) AS ?o)",
    "not exists with outer filter": "?c ex:n ?x . FILTER NOT EXISTS { ?c ex:m ?y FILTER(?y = ?x) }",
    "minus": "?c ex:k ?x . MINUS { ?x ex:v ?y }",
    "exists in bind": "?c ex:k ?x . BIND(IF(EXISTS { ?x ex:v 1 }, ex:yes, ex:no) AS ?o)",
    "count": "{ SELECT ?c (COUNT(?p) AS ?x) WHERE { ?c ?p0 ?p . VALUES ?p0 { ex:n ex:s ex:k } } GROUP BY ?c }",
    "str of literal with escape": "?c ex:s ?s . BIND(IRI(CONCAT(STR(?c), '/', STRAFTER(STR(?s), 'b'))) AS ?o)",
    "in": "?c ex:k ?x . FILTER(?x IN (ex:x, ex:z))",
    "equality of mixed terms": "?c ex:s ?x . ?c ex:n ?y . FILTER(?x != ?y)",
    "language literal ebv": "?c ex:l ?x . FILTER(?x)",
    "boolean ebv": "?c ex:b ?x . FILTER(?x)",
    # MAX of integers in SQL; c3 mixes an integer and a string: the statement refuses, pyoxigraph answers
    "max": "{ SELECT ?c (MAX(?y) AS ?x) WHERE { ?c ex:n ?y } GROUP BY ?c }",
    "min": "{ SELECT ?c (MIN(?y) AS ?x) WHERE { ?c ex:n ?y } GROUP BY ?c }",
    "concat of a bound string": "?c ex:s ?s . BIND(IRI(CONCAT(STR(?c), '/', ?s)) AS ?o)",
    "concat of a bound non-string": "?c ex:n ?s . BIND(IRI(CONCAT(STR(?c), '/', ?s)) AS ?o)",
    "bind of a bound variable joins on it": "?c ex:k ?y . BIND(?c AS ?x) ?x ex:n ?z",
    "minus through a shared term": "?c ex:k ?x . MINUS { ?c ex:e ?e . ?d ex:e ?e . FILTER(?d != ?c) }",
    "groups joined through a shared term": "{ ?c ex:e ?e } UNION { ?c ex:s ?e } { ?x ex:e ?e } UNION { ?x ex:k ?e }",
    # operands computed once beneath the expression (translate._Translator.let), nested two levels deep
    "string functions of string functions": "?c ex:k ?k . ?c ex:s ?s . "
                                            "BIND(IRI(CONCAT(STR(?c), '/', STRAFTER(STR(?k), 'org/'), '-', STRAFTER(STR(?s), 'b'))) AS ?o)",
    "ordering two stored terms": "?c ex:n ?x . ?c ex:n ?y . FILTER(?x < ?y)",
    "if of an equality of terms": "?c ex:n ?x . ?c ex:s ?s . BIND(IF(?x = ?s || STR(?x) = '3', ex:yes, ex:no) AS ?o)",
    # a cast's IRI is stored short (terms.compact): STR() reads it in full, IRI() of the full text is the stored
    # node, which a pattern then joins
    "str of a cast iri in full": "?c ex:n ?x . BIND(IRI(CONCAT('http://example.org/of/', STRAFTER(STR(?c), 'w3id.org/'))) AS ?o)",
    "an iri made in the cast namespace joins the stored node": "?c ex:n ?x . "
                                                              "BIND(IRI(CONCAT('https://w3id.org/liuyao-kg/cast/c', STR(?x))) AS ?o) ?o ex:n ?y",
    "an iri made in the cast namespace is written in full": "?c ex:n ?x . BIND(IRI(CONCAT('https://w3id.org/liuyao-kg/cast/', STR(?x))) AS ?o)",
}


@pytest.mark.parametrize("backend", ["duckdb", "sqlite"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_each_translated_construct_gives_pyoxigraphs_answer(name, backend):
    where = CASES[name].replace("'", '"')
    template = "?c ex:out ?o" if "?o)" in where else "?c ex:out ?x"
    text = f"PREFIX ex: <http://example.org/>\nCONSTRUCT {{ {template} }} WHERE {{ {where} }}"
    iri = "http://example.org/rule/" + name.replace(" ", "-")
    try:
        translate(text, iri, "")
    except Unsupported:
        pytest.skip("not translated: runs on pyoxigraph, which is the reference itself")
    rule = Rule(iri=iri, construct=text, io=rule_io(text))
    quads = [ox.Quad(t.subject, t.predicate, t.object, ox.NamedNode(t.subject.value.split("/cast/")[0] + "/cast/"
                                                                     + t.subject.value.split("/cast/")[1][:2]))
             for t in ox.parse(DATA, format=ox.RdfFormat.TURTLE) if "/cast/" in t.subject.value]
    reference = [ox.Quad(t.subject, t.predicate, t.object) for t in ox.parse(DATA, format=ox.RdfFormat.TURTLE)
                 if "/cast/" not in t.subject.value]
    expected = sorted(map(str, Engine([rule], reference).derive(quads)))
    got = sorted(map(str, BACKENDS[backend]([rule], reference).derive(quads)))
    assert got == expected


# --- recursive strata: a round is run again only when a row of the last one can reach a rule ------------

CHAIN = """
@prefix ex: <http://example.org/> .
<https://w3id.org/liuyao-kg/cast/c1/1> ex:next <https://w3id.org/liuyao-kg/cast/c1/2> ; ex:br ex:zi .
<https://w3id.org/liuyao-kg/cast/c1/2> ex:next <https://w3id.org/liuyao-kg/cast/c1/3> ; ex:br ex:chou .
<https://w3id.org/liuyao-kg/cast/c1/3> ex:next <https://w3id.org/liuyao-kg/cast/c1/4> ; ex:br ex:zi .
<https://w3id.org/liuyao-kg/cast/c1/4> ex:next <https://w3id.org/liuyao-kg/cast/c1/5> .
<https://w3id.org/liuyao-kg/cast/c1/5> ex:last true .
ex:zi ex:el ex:water .
ex:chou ex:el ex:earth .
"""
#: rule sets recursive through a cast's own nodes, each needing one round per link of the chain: in a plain
#: pattern, an EXISTS, an OPTIONAL's right side; and one recursive only by its keys (reference nodes)
RECURSIVE = {
    "transitive": ["CONSTRUCT { ?a ex:next ?c } WHERE { ?a ex:next ?b . ?b ex:next ?c }"],
    "through exists": ["CONSTRUCT { ?a ex:reach ex:end } WHERE { ?a ex:last true }",
                       "CONSTRUCT { ?a ex:reach ex:end } WHERE { ?a ex:next ?b . FILTER EXISTS { ?b ex:reach ex:end } }"],
    "through optional": ["CONSTRUCT { ?a ex:tail ?a } WHERE { ?a ex:last true }",
                         "CONSTRUCT { ?a ex:tail ?t } WHERE { ?a ex:next ?b . OPTIONAL { ?b ex:tail ?t } }"],
    "through reference nodes only": ["CONSTRUCT { ?l ex:el ?e } WHERE { ?l ex:br ?b . ?b ex:el ?e }"],
}


def _chain_rules(texts: list[str]) -> list[Rule]:
    rules = []
    for i, body in enumerate(texts):
        text = f"PREFIX ex: <http://example.org/>\n{body}"
        rules.append(Rule(iri=f"http://example.org/rule/r{i}", construct=text, io=rule_io(text)))
    return rules


def _chain_data():
    triples = list(ox.parse(CHAIN, format=ox.RdfFormat.TURTLE))
    cast = ox.NamedNode("https://w3id.org/liuyao-kg/cast/c1")
    quads = [ox.Quad(t.subject, t.predicate, t.object, cast) for t in triples if "/cast/" in t.subject.value]
    return quads, [ox.Quad(t.subject, t.predicate, t.object) for t in triples if "/cast/" not in t.subject.value]


@pytest.mark.parametrize("backend", ["duckdb", "sqlite"])
@pytest.mark.parametrize("name", sorted(RECURSIVE))
def test_a_recursive_stratum_reaches_pyoxigraphs_fixpoint(name, backend):
    rules = _chain_rules(RECURSIVE[name])
    quads, reference = _chain_data()
    engine = BACKENDS[backend](rules, reference)
    assert engine.plan.groups[-1][1]  # the last rule is a recursive stratum
    expected = sorted(map(str, Engine(rules, reference).derive(quads)))
    assert sorted(map(str, engine.derive(quads))) == expected
    assert len(expected) == {"transitive": 6, "through exists": 5, "through optional": 5,
                             "through reference nodes only": 3}[name]


@pytest.mark.parametrize("backend", ["duckdb", "sqlite"])
def test_a_stratum_recursive_only_through_reference_nodes_runs_one_round(backend, monkeypatch):
    # `?b ex:el ?e` reads what the rule writes, but of a line's branch: a reference node, which no derived row
    # is about; the round after the first would find nothing, and is not run
    engine = BACKENDS[backend](_chain_rules(RECURSIVE["through reference nodes only"]), _chain_data()[1])
    rounds = []
    apply = engine._apply
    monkeypatch.setattr(engine, "_apply", lambda iris, *a: rounds.append(iris) or apply(iris, *a))
    assert len(engine.derive(_chain_data()[0])) == 3
    assert len(rounds) == 1


@pytest.mark.parametrize("backend", ["duckdb", "sqlite"])
def test_a_chain_runs_a_round_per_link_and_one_finding_nothing(backend, monkeypatch):
    engine = BACKENDS[backend](_chain_rules(RECURSIVE["through exists"]), _chain_data()[1])
    rounds = []
    apply = engine._apply
    monkeypatch.setattr(engine, "_apply", lambda iris, *a: rounds.append(n := apply(iris, *a)) or n)
    engine.derive(_chain_data()[0])
    assert rounds == [1, 1, 1, 1, 1, 0]  # the last round runs: a row of the one before can reach the rule


def test_the_packages_strata_recursive_through_reference_nodes_run_one_round(package_rules, monkeypatch):
    # the hexagram's lines and their changes (stemBranch read on a reference position) and the reading's
    # timing and verdict rules (readingOf read on a ReadLine) each once, with the same quads as pyoxigraph
    rules, reference, _layers = package_rules
    engine = SqliteEngine(rules, reference)
    rounds: dict[str, int] = {}
    apply = engine._apply

    def counted(iris, *a):
        for iri in iris:
            rounds[iri.rsplit("/", 1)[-1]] = rounds.get(iri.rsplit("/", 1)[-1], 0) + 1
        return apply(iris, *a)

    monkeypatch.setattr(engine, "_apply", counted)
    quads = cast_quads(make_cast_input("節之中孚", month="寅", day="辛亥", topic="求財"))
    got = sorted(map(str, engine.derive(quads)))
    engine.close()
    assert got == sorted(map(str, Engine(rules, reference).derive(quads)))
    assert {rounds[r] for r in ("ChangedLine", "LineNajia", "PalaceHidden", "TimingMovingNow", "VerdictJi")} == {1}


def test_a_variable_predicate_is_not_translated_but_named():
    with pytest.raises(Unsupported, match="variable predicate"):
        translate("CONSTRUCT { ?s <http://example.org/p> ?o } WHERE { ?s ?p ?o }", "http://example.org/r", "")


def test_the_state_rules_alone_derive_on_duckdb_what_they_derive_on_pyoxigraph():
    # liuyao_kg.parquet_load.columnar_engine(chapter_rules=False): benchmarks/bench.py's columnar-states-batch
    from liuyao_kg.graph import KnowledgeGraph
    from liuyao_kg.parquet_load import columnar_engine

    col = columnar_engine(threads=1, chapter_rules=False)
    try:
        assert col.paths["wide"] == 0 and not any(r.chapter for r in col.rules.values())
        inputs = [make_cast_input(v, month=m, day=d, topic=t) for v, m, d, t in sample_casts(30, seed=17)]
        quads = [q for ci in inputs for q in cast_quads(ci)]
        expected = KnowledgeGraph(chapter_rules=False).engine.derive(quads)
        assert per_cast(col.derive(quads)) == per_cast(expected)
    finally:
        col.close()


# --- the join order (it steers the cost only: the tests above hold every order to pyoxigraph's answer) ----


@pytest.fixture(scope="module")
def package_layout(package_rules):
    from liuyao_kg.reasoner.columnar.layout import read_layout

    rules, reference, _ = package_rules
    return {r.iri: r for r in rules}, read_layout(rules, reference)  # read, not the shipped copy of it


def _join_position(where: str, predicate: str) -> int:
    from liuyao_kg.reasoner.columnar.translate import table_id

    return where.index("{T:" + table_id(("p", ns.LYO + predicate)) + "}")


def test_the_layout_counts_the_rows_a_reference_table_holds_per_object(package_layout):
    _, lay = package_layout
    # lyo:index 1..6 names a position of each of the 64 hexagrams
    assert lay.fanout_of[("p", ns.LYO + "index")] == 64.0


def test_a_repeated_reference_object_is_stepped_into_after_the_casts_own_links(package_layout):
    """ChangedLine: from a moving line to its cast and the cast's changed hexagram, then that hexagram's
    position — not through `?pos lyo:index ?n` first, which pairs the line with a position of every hexagram."""
    rules, lay = package_layout
    rule = rules[ns.LYRULE + "ChangedLine"]
    where = translate(rule.construct, rule.iri, ns.sparql_prologue(), lay).where
    assert _join_position(where, "hasLine") < _join_position(where, "index")


def test_of_two_reference_steps_the_one_adding_fewer_rows_comes_first(package_layout):
    """StageByDay: a stage entry found by its branch (15 entries a branch) before its element (36)."""
    rules, lay = package_layout
    assert lay.fanout_of[("p", ns.LYO + "atBranch")] < lay.fanout_of[("p", ns.LYO + "forElement")]
    rule = rules[ns.LYRULE + "StageByDay"]
    where = translate(rule.construct, rule.iri, ns.sparql_prologue(), lay).where
    assert _join_position(where, "atBranch") < _join_position(where, "forElement")


def test_a_boolean_compared_with_a_term_answers_as_the_generic_equality_on_every_term():
    """`(?pol = "for") = ?fav`: the translator's short form, on every term of the macro corpus (canonical,
    edge and malformed) and a true, false and error boolean, equals nt_eq(bool_term(x), t)."""
    import duckdb

    from liuyao_kg.reasoner.columnar import terms
    from liuyao_kg.reasoner.columnar.translate import _Translator
    from test_sqlite_terms import TERMS

    con = duckdb.connect()
    terms.install(con)
    con.execute("CREATE TABLE t (t VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?)", [(x,) for x in TERMS])
    for x in ("TRUE", "FALSE", "CAST(NULL AS BOOLEAN)"):
        short = _Translator._bool_eq(x, "t")
        differ = con.execute(f"SELECT t, {short}, nt_eq(bool_term({x}), t) FROM t "
                             f"WHERE {short} IS DISTINCT FROM nt_eq(bool_term({x}), t)").fetchall()
        assert differ == [], (x, differ[:5])


#: a term macro's call in generated SQL, and an operand that is a column or a constant
_MACRO = re.compile(r"\b(nt_lex|iri_of|nt_iri|nt_strlex|nt_int|nt_eq|nt_simple|nt_ebv|int_term|bool_term)\(")
_OPERANDS = re.compile(r"(\w+\.\w+|'(?:[^']|'')*'|-?\d+)(, (\w+\.\w+|'(?:[^']|'')*'|-?\d+))*")


def _operands(sql: str, start: int) -> str:
    """The text between the parenthesis before `start` and the one closing it (string constants skipped)."""
    depth, i = 1, start
    while depth:
        c = sql[i]
        if c == "'":
            i = sql.index("'", i + 1)
            while sql[i + 1:i + 2] == "'":
                i = sql.index("'", i + 2)
        depth += {"(": 1, ")": -1}.get(c, 0)
        i += 1
    return sql[start:i - 1]


def test_every_term_macro_of_the_package_reads_columns_or_constants():
    """DuckDB expands a macro textually and a macro names its operand many times, so a macro of a macro's
    result grows multiplicatively (TimingWeak took ~75 ms to bind, every batch): the translator computes a
    compound operand once, as a column of a projection beneath (translate._Translator.let). The package's
    translations (held up to date by test_precomputed) have no other operand than a column or a constant,
    but the count an aggregate makes a term of."""
    import json

    from liuyao_kg.reasoner.columnar.engine import PACKAGED

    calls, compound = 0, []
    for entry in json.loads(PACKAGED.read_text(encoding="utf-8")).values():
        where = entry.get("where") or ""
        for m in _MACRO.finditer(where):
            calls += 1
            arg = _operands(where, m.end())
            if not _OPERANDS.fullmatch(arg) and not (m.group(1) == "int_term" and arg.startswith("COUNT(")):
                compound.append(f"{m.group(1)}({arg[:80]})")
    assert calls > 300 and compound == []


def test_the_one_thread_engines_of_a_process_share_one_database_with_the_block_cache_so_it_can_still_fork():
    # each DuckDB database with a block cache maps 80 % of the machine's memory as accountable address space; three
    # of them made os.fork fail with ENOMEM, and `liuyao serve` forks for every query. A fresh process: no engine of
    # this test run is in its shared database. Under strict overcommit no engine has the cache.
    from liuyao_kg.reasoner.columnar.engine import _strict_overcommit

    cached = not _strict_overcommit()
    script = """if True:
        import os
        from liuyao_kg.parquet_load import columnar_engine
        from liuyao_kg.reasoner.columnar.engine import _SharedDatabase
        def cache(e):
            return e.con.execute("SELECT current_setting('block_allocator_memory')").fetchone()[0] != '0 bytes'
        engines = [columnar_engine(threads=1, chapter_rules=False) for _ in range(3)]
        engines.append(columnar_engine(threads=2, chapter_rules=False))  # a database of its own, no cache
        print([cache(e) for e in engines])
        pid = os.fork()
        if pid == 0:
            os._exit(7)
        print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
        for e in engines:
            e.close()
        print(_SharedDatabase._con is None)  # closed with its last engine
    """
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:3] == [str([cached, cached, cached, False]), "7", "True"]
