"""The chart (and reading) read off the native back end equals the chart read by SPARQL, cast by cast.

Differential: `chart(kg, iri)` on a pyoxigraph store whose casts the reference Engine derived (backend=oxigraph)
must be `==` to `native_chart` (the NativeEngine's derivation, the named queries compiled into compiled.py run on
the cast's index chained with the layers), same list orders, on the rule witnesses and seeded casts over every
question. Each compiled query's rows must equal `queries.run`'s (in order when it has an ORDER BY, up to the rows
it leaves tied, else as sorted lists). A mutated query emitter (an OPTIONAL compiled as a required join) must be
caught by the same comparisons.

"""
from __future__ import annotations

import re

import pytest

from liuyao_kg import queries
from liuyao_kg.chart import NATIVE_QUERIES, chart, native_chart
from liuyao_kg.reasoner.engines import build_engine
from liuyao_kg.store.embedded import KnowledgeGraph
from liuyao_kg.loaders.rdf import cast_quads
from liuyao_kg.queries import native as qnative
from liuyao_kg.build import native as build
from liuyao_kg.reasoner.native import compiled
from liuyao_kg.reasoner.native.algebra import Unsupported, Var, read_select
from liuyao_kg.reasoner.native.compiler import Module, QueryCompiler
from liuyao_kg.load import add_casts, derive_with
from samples import seeded_inputs, witness_inputs

SHOWN = 3
SEEDED = 300
CHUNK = 60


@pytest.fixture(scope="module")
def native():
    return build_engine(backend="native")


@pytest.fixture(scope="module")
def kg():
    return derive_with(KnowledgeGraph(), backend="oxigraph")


def _add(kg, inputs) -> list[str]:
    iris = []
    for k in range(0, len(inputs), CHUNK):
        iris += add_casts(kg, [q for ci in inputs[k:k + CHUNK] for q in cast_quads(ci)])
    return iris


def _differences(kg, native, inputs) -> list[str]:
    out = []
    for ci, iri in zip(inputs, _add(kg, inputs)):
        want = chart(kg, iri)
        got, _ = native_chart(native, ci)
        if got != want:
            keys = sorted(k for k in set(want) | set(got) if want.get(k) != got.get(k))
            out.append(f"{iri} {''.join(map(str, ci.values))} {ci.topic}: differs in {keys}")
    return out


def _assert_none(differences: list[str], total: int) -> None:
    if differences:
        pytest.fail(f"{len(differences)}/{total} charts differ:\n  " + "\n  ".join(differences[:SHOWN]), pytrace=False)


# ---- the compiled queries --------------------------------------------------------------------------------------

def test_every_query_a_chart_reads_is_compiled_from_its_text():
    for name in NATIVE_QUERIES:
        digest, fn, cols = compiled.QUERIES[name]
        assert digest == build.query_digest(queries.get(name).text), name
        assert list(cols) == read_select(queries.get(name).text).project
    assert f"QUERY_TEXTS = {build.query_texts_hash()!r}" in build.OUTPUT.read_text("utf-8")


def test_the_queries_look_up_only_what_the_cast_index_keeps():
    assert compiled.LOOKUPS["po"] is not None and compiled.LOOKUPS["pp"] is not None
    assert compiled.QUERY_READS is not None


class _Flat:
    def estimate(self, *args) -> float:
        return 1.0


@pytest.mark.parametrize("where", [
    "?cast (lyo:hasLine|lyo:hasDay) ?x",  # an alternative path
    "?cast lyo:hasLine+ ?x",  # one or more
    "?cast ^lyo:hasLine ?x",  # an inverse path
    "?cast ?p ?x",  # a variable predicate bound by no VALUES
    "?x lyo:hasLine* ?y",  # a path with neither end bound
])
def test_what_the_query_compiler_cannot_take_it_refuses(where):
    text = queries.get("cast-instant").text.replace("?cast lyo:castAt ?at .", where + " . ?cast lyo:castAt ?at .")
    with pytest.raises(Unsupported):
        QueryCompiler(Module(), _Flat(), "q").compile(text, {"cast": "iri"})


# ---- the charts --------------------------------------------------------------------------------------------------

WITNESS_CHUNKS = 2


@pytest.mark.parametrize("chunk", range(WITNESS_CHUNKS))
def test_the_rule_witnesses_chart_identically(kg, native, chunk):
    inputs = witness_inputs()[chunk::WITNESS_CHUNKS]
    _assert_none(_differences(kg, native, inputs), len(inputs))


@pytest.mark.parametrize("chunk", range(SEEDED // 100))
def test_seeded_casts_chart_identically(kg, native, chunk):
    inputs = seeded_inputs(100, seed=3950 + chunk)
    _assert_none(_differences(kg, native, inputs), len(inputs))


@pytest.mark.exhaustive
@pytest.mark.parametrize("chunk", range(3, 20))
def test_more_seeded_casts_chart_identically(kg, native, chunk):
    inputs = seeded_inputs(100, seed=3950 + chunk)
    _assert_none(_differences(kg, native, inputs), len(inputs))


def test_a_store_s_casts_chart_as_the_reference_store_s(kg):
    """liuyao_kg.cast's path: a new cast in a store of the package's layers, derived natively, written, and its
    chart's queries answered off the native result with the layers read out of that store (queries.native.
    StoreLayers), a deferred part parsed when a query reads it."""
    import liuyao_kg

    store = KnowledgeGraph()  # native, layers untouched: lazily parsed parts deferred
    inputs = witness_inputs()[::4] + seeded_inputs(100, seed=3999)
    differences = []
    for ci, iri in zip(inputs, _add(kg, inputs)):
        quads = cast_quads(ci)
        answers = liuyao_kg._native_answers(store, ci.iri, quads)
        assert answers is not None, "the native path was not taken"
        got, want = chart(store, ci.iri, answers=answers), chart(kg, iri)
        if got != want:
            differences.append(f"{iri} {ci.topic}: differs in {sorted(k for k in want if want[k] != got.get(k))}")
        assert store.has_cast(ci.iri)  # and it is stored: the SPARQL path reads the same chart from it
        assert chart(store, ci.iri) == want
    _assert_none(differences, len(inputs))


# ---- each query ------------------------------------------------------------------------------------------------

def _sample():
    return witness_inputs()[::6] + seeded_inputs(60, seed=3990)


def _order_keys(name: str) -> list[str] | None:
    """The projected variables a query orders by (None: no ORDER BY)."""
    q = read_select(queries.get(name).text)
    if not q.order:
        return None
    return [e.name for e, _ in q.order if isinstance(e, Var) and e.name in q.project]


def _query_differences(kg, native, inputs, module=None) -> list[str]:
    out = []
    ordered = {name: _order_keys(name) for name in NATIVE_QUERIES}
    for ci, iri in zip(inputs, _add(kg, inputs)):
        _, index = native.derive_cast(cast_quads(ci))
        answers = qnative.answers_for(native, index, module)
        for name in NATIVE_QUERIES:
            params = {p.name: iri for p in queries.get(name).params}
            want, got = queries.run(kg, name, **params), answers.ask(name, **params)
            if ordered[name] is not None:  # the ORDER BY keys in order, the rows tied by them in any
                keys = ordered[name]
                same = [[r[k] for k in keys] for r in want] == [[r[k] for k in keys] for r in got]
            else:
                same = True
            if not same or sorted(map(repr, want)) != sorted(map(repr, got)):
                out.append(f"{name} on {iri}: {len(want)} rows expected, {len(got)} given")
    return out


def test_each_compiled_query_answers_as_sparql(kg, native):
    inputs = _sample()
    _assert_none(_query_differences(kg, native, inputs), len(inputs) * len(NATIVE_QUERIES))


def test_the_row_conversion_is_graph_py():
    xsd = "http://www.w3.org/2001/XMLSchema#"
    assert qnative.py(("7", xsd + "nonNegativeInteger")) == 7
    assert qnative.py(("true", xsd + "boolean")) is True and qnative.py(("0", xsd + "boolean")) is False
    assert qnative.py(("甲", "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString", "zh-Hant")) == "甲"
    assert qnative.py(("1.0", xsd + "decimal")) == "1.0"
    assert qnative.py("https://w3id.org/x") == "https://w3id.org/x" and qnative.py(None) is None


def test_parameters_are_checked_as_on_the_sparql_path(native):
    _, index = native.derive_cast(cast_quads(seeded_inputs(1, seed=1)[0]))
    answers = qnative.answers_for(native, index)
    with pytest.raises(queries.QueryParameterError):
        answers.ask("chart-lines", cast="not an iri")
    with pytest.raises(queries.QueryParameterError):
        answers.ask("chart-lines")
    with pytest.raises(queries.QueryParameterError):
        answers.ask("chart-lines", cast="urn:x", other="urn:y")


# ---- a broken emitter is caught ----------------------------------------------------------------------------------

def test_an_optional_compiled_as_a_required_join_is_caught(kg, native):
    source = build.OUTPUT.read_text("utf-8")
    inputs = _sample()[:25]
    broken, n = re.subn(r" or \(_c\d+,\):", ":", source)  # no row of Nones when the OPTIONAL matches nothing
    assert n > 0
    mutant = build.load(broken, "liuyao_kg.reasoner.native.test_mutant")
    assert _query_differences(kg, native, inputs, mutant)
    charts_differ = 0
    for ci, iri in zip(inputs, _add(kg, inputs)):
        _, index = native.derive_cast(cast_quads(ci))
        charts_differ += chart(kg, iri, answers=qnative.answers_for(native, index, mutant)) != chart(kg, iri)
    assert charts_differ


def test_a_use_god_of_two_relatives_reads_alike(kg, native):
    """A cast state of two relatives (用神兩現 of 天時 by 黃金策: 父母 and 妻財): cast-states orders its rows by the
    relative too, so the chart shows the same one either way."""
    ci = next(c for c in seeded_inputs(100, seed=3952) if c.iri.endswith("cb4d08344164c80c"))
    iri = _add(kg, [ci])[0]
    assert chart(kg, iri) == native_chart(native, ci)[0]


def test_a_helper_keeps_answers_only_for_nodes_of_no_cast():
    """The compiled queries' memos (compiler.RuleCompiler._memoized) keep what a helper answers for the layers' nodes
    and literals, which no cast changes; never for a cast's node."""
    from liuyao_kg.namespaces import CAST, LYR
    from liuyao_kg.reasoner.native.runtime import _layers_only

    assert _layers_only(LYR + "BranchZi", ("子", "http://www.w3.org/2001/XMLSchema#string"), None)
    assert not _layers_only(LYR + "BranchZi", CAST + "0123456789abcdef/line/3")
    assert any(name.startswith("_memo_q_") for name in vars(compiled))


def test_order_by_sorts_by_keys_as_its_comparison_orders():
    """`_rows` sorts a column at a time by keys (`_column_keys`): the same order as ORDER BY's comparison
    (`order_cmp`, spareval's) for columns of IRIs, blank nodes, unbound and literals of one kind, ties kept in
    order; a column mixing literal kinds has no keys, and is sorted by the comparison itself."""
    import random
    from functools import cmp_to_key

    from liuyao_kg.reasoner.native.runtime import BNode, _column_keys, _rows, order_cmp
    from liuyao_kg.reasoner.native.terms import RDF_LANG_STRING, XSD_BOOLEAN, XSD_INTEGER, XSD_STRING

    shared = [None, BNode("b1"), BNode("b2"), "urn:a", "urn:b", "urn:b/2"]
    kinds = [[(t, XSD_STRING) for t in ("", "9", "10", "甲", "乙")],
             [(t, XSD_INTEGER) for t in ("-3", "9", "10", "0")],
             [(t, XSD_BOOLEAN) for t in ("true", "false")],
             [(t, RDF_LANG_STRING, "zh") for t in ("甲", "乙", "a")]]
    rng = random.Random(7)
    for _ in range(300):
        columns = [shared + rng.choice(kinds) for _ in range(2)]
        descending = (rng.random() < 0.5, rng.random() < 0.5)
        rows = [((i,), tuple(rng.choice(c) for c in columns)) for i in range(12)]

        def cmp(a, b):
            for x, y, desc in zip(a[1], b[1], descending):
                c = order_cmp(x, y)
                if c:
                    return -c if desc else c
            return 0

        assert all(_column_keys(c) is not None for c in zip(*(r[1] for r in rows)))
        assert _rows(list(rows), descending, False) == [r[0] for r in sorted(rows, key=cmp_to_key(cmp))]
    assert _column_keys([("1", XSD_INTEGER), ("a", XSD_STRING)]) is None
    assert _column_keys([("a", RDF_LANG_STRING, "zh"), ("a", RDF_LANG_STRING, "en")]) is None
