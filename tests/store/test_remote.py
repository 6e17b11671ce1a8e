"""A SPARQL 1.1 endpoint as the store, against a real (private) Virtuoso: marked `server`.

The same named queries give the same rows on the embedded store and on the endpoint; a cast is written
whole or not at all, once; credentials never appear in an error.
"""
from __future__ import annotations

import json

import pyoxigraph as ox
import pytest

import liuyao_kg
from liuyao_kg import queries
from liuyao_kg.store.embedded import KnowledgeGraph
from liuyao_kg.namespaces import inferred_graph
from liuyao_kg.store.remote import Endpoint, RemoteKnowledgeGraph, RemoteStoreError, prepare
from liuyao_kg.load import add_casts, engine_for

XSD = "http://www.w3.org/2001/XMLSchema#"
CASTS = [
    dict(spec="節之中孚", month="寅", day="辛亥", topic="求財"),
    dict(spec="大畜之小畜", month="午", day="己巳", topic="疾病"),
    dict(spec="大畜之小畜", month="子", day="己巳", topic="求財"),
    dict(spec="否之臨", month="寅", day="己亥", birth="寅", topic="求財", use_god="官鬼"),  # chosen by the user
    dict(spec="乾之姤", date="2024-03-15T10:30:00+08:00", topic="婚姻", sex="女"),  # an instant; 女占夫
]
PASSAGE = "https://w3id.org/liuyao-kg/passage/"

# --- without a server: how parameters and the dataset reach the query text ------------------------------


def test_parameters_become_a_values_block_of_escaped_rdf_terms():
    text = 'PREFIX x: <http://x/>\nSELECT ?a ?n # WHERE { in a comment\nWHERE { ?s x:p "{ WHERE" ; x:q ?a . FILTER(?n > 1) }'
    out = prepare(text, {"a": ox.Literal('x" } UNION { ?p ?q ?r } #\\'),
                         "n": ox.Literal("5", datatype=ox.NamedNode(XSD + "integer"))}, ["http://g/1", "http://g/2"])
    head, _, body = out.rpartition("WHERE {")
    assert head.endswith("FROM <http://g/1>\nFROM <http://g/2>\n")
    assert body.lstrip().startswith('VALUES (?a ?n) { ("x\\" } UNION { ?p ?q ?r } #\\\\" '
                                    '"5"^^<http://www.w3.org/2001/XMLSchema#integer>) }')
    assert body.rstrip().endswith('x:q ?a . FILTER(?n > 1) }')
    # the bound value parses back as one literal: pyoxigraph reads the prepared query and finds one row
    store = ox.Store()
    store.add(ox.Quad(ox.NamedNode("http://s"), ox.NamedNode("http://x/p"), ox.Literal("{ WHERE"), ox.NamedNode("http://g/1")))
    store.add(ox.Quad(ox.NamedNode("http://s"), ox.NamedNode("http://x/q"), ox.Literal('x" } UNION { ?p ?q ?r } #\\'),
                      ox.NamedNode("http://g/1")))
    rows = list(store.query(out.replace("FROM <http://g/2>\n", "")))
    assert len(rows) == 1 and rows[0]["a"].value == 'x" } UNION { ?p ?q ?r } #\\'


def test_a_variable_named_where_is_not_the_where_keyword():
    out = prepare("SELECT ?where { ?where ?p ?o }", {"p": ox.NamedNode("http://x/p")}, ["http://g"])
    assert out == "SELECT ?where FROM <http://g>\n{\n  VALUES (?p) { (<http://x/p>) }\n ?where ?p ?o }"


def test_a_blank_node_or_a_bad_name_is_not_a_parameter():
    with pytest.raises(TypeError):
        prepare("SELECT ?a WHERE { ?a ?b ?c }", {"a": ox.BlankNode()})
    with pytest.raises(ValueError):
        prepare("SELECT ?a WHERE { ?a ?b ?c }", {"a) {} #": ox.Literal("x")})
    with pytest.raises(ValueError):  # a name is anchored at its very end: `$` let a final newline through
        prepare("SELECT ?a WHERE { ?a ?b ?c }", {"a\n": ox.Literal("x")})


def test_credentials_come_from_the_environment_or_the_url_and_are_never_shown():
    env = {"LIUYAO_ENDPOINT_USER": "u", "LIUYAO_ENDPOINT_PASSWORD": "s3cr3t!", "LIUYAO_UPDATE_ENDPOINT": "http://h/upd"}
    e = Endpoint.from_env("http://h/sparql", env=env)
    assert (e.query_url, e.update_url, e.user, e.password) == ("http://h/sparql", "http://h/upd", "u", "s3cr3t!")
    assert "s3cr3t" not in repr(e) and "s3cr3t" not in str(e)
    e = Endpoint.from_env("http://bob:pa%3Ass@h:8890/sparql-auth", env={})
    assert (e.query_url, e.user, e.password) == ("http://h:8890/sparql-auth", "bob", "pa:ss")
    assert e.redact("at http://bob:pa%3Ass@h:8890/x with pa:ss and bob:pa:ss") == "at http://h:8890/x with *** and ***"


# --- against Virtuoso -------------------------------------------------------------------------------------


def _endpoint(v, password=None) -> Endpoint:
    return Endpoint(v.sparql, v.sparql_auth, v.user, password or v.password, "digest")


@pytest.fixture(scope="module")
def stores(virtuoso):
    """The same casts on the embedded store and on Virtuoso: (embedded, remote, cast IRIs)."""
    embedded = KnowledgeGraph()
    remote = RemoteKnowledgeGraph(_endpoint(virtuoso))
    iris = []
    for c in CASTS:
        iris.append(liuyao_kg.cast(**c, kg=embedded)["cast"])
        liuyao_kg.cast(**c, kg=remote)
    return embedded, remote, iris


@pytest.mark.server
@pytest.mark.parametrize("i", range(len(CASTS)))
def test_the_chart_read_from_virtuoso_is_the_embedded_chart(stores, i):
    from liuyao_kg.chart import chart

    embedded, remote, iris = stores
    a, b = chart(embedded, iris[i]), chart(remote, iris[i])
    # as JSON, so True and 1 differ: the whole chart, with facts, states, judgments and sources
    assert json.dumps(a, ensure_ascii=False, sort_keys=True) == json.dumps(b, ensure_ascii=False, sort_keys=True)


@pytest.mark.server
def test_a_cast_reads_back_from_virtuoso_as_the_same_quads(stores):
    embedded, remote, iris = stores
    for iri in iris:
        here, there = set(embedded.cast_graph(iri)), set(remote.cast_graph(iri))
        assert here == there and len(there) > 300


def _norm(term):
    """A term as comparable across stores: integers by value, booleans by truth, language tags lower-case,
    blank nodes as one placeholder (their labels are the store's own)."""
    if term is None:
        return None
    if isinstance(term, ox.NamedNode):
        return ("iri", term.value)
    if isinstance(term, ox.BlankNode):
        return ("bnode",)
    if term.language:
        return ("lang", term.value, term.language.lower())
    dt = term.datatype.value
    if dt.startswith(XSD) and dt[len(XSD):] in ("integer", "int", "long", "short", "byte", "nonNegativeInteger",
                                                 "positiveInteger", "unsignedInt"):
        return ("int", int(term.value))
    if dt == XSD + "boolean":
        return ("bool", term.value in ("true", "1"))
    return ("lit", term.value, dt)


def _embedded_terms(kg: KnowledgeGraph, text: str, bindings: dict) -> set:
    subs = {ox.Variable(k): v for k, v in bindings.items()}
    cast = bindings.get("cast")
    if isinstance(cast, ox.NamedNode):
        dataset = {"default_graph": [cast, ox.NamedNode(inferred_graph(cast.value))] + kg._layer_graphs}
    else:
        dataset = {"use_default_graph_as_union": True}
    result = kg.store.query(text, substitutions=subs or None, **dataset)
    names = [v.value for v in result.variables]
    return {tuple((n, _norm(row[n])) for n in names) for row in result}


def _remote_terms(kg: RemoteKnowledgeGraph, text: str, bindings: dict) -> set:
    names, rows = kg.select_terms(text, bindings)
    return {tuple((n, _norm(row.get(n))) for n in names) for row in rows}


def _param_sets(iris: list[str], fired_rule: str) -> dict[str, list[dict]]:
    casts = [{"cast": i} for i in iris]
    return {
        "branch-relations": [{"a": "未", "b": "午"}, {"a": "子", "b": "卯"}, {"a": "辰", "b": "辰"}],
        "cast-judgments": casts, "cast-states": casts, "chart-hexagrams": casts, "chart-lines": casts,
        "chart-pillars": casts, "chart-relations": casts, "chart-roles": casts, "chart-question": casts,
        "casts-where-rule-fired": [{"rule": fired_rule}],
        "casts-where-use-god": [{"first": "月破", "second": "化絕"}, {"first": "MonthBroken", "second": "MonthBroken"}],
        "line-states": [{"cast": i, "position": p} for i in iris for p in (1, 5)],
        "nayin": [{"gz": "甲子"}, {"gz": '甲子" } UNION { ?p ?q ?r } #'}],
        "passage-terms": [{"passage": PASSAGE + "GuaShen"}],
        "passages-for-term": [{"term": "SixClashHexagram"}, {"term": "MonthBroken"}],
        "rule-condition": [{"rule": fired_rule}],
        "rules-by-school": [{"school": "TianXuan"}, {"school": "HuoZhuLinSeasons"}],
        "rules-by-topic": [{"topic": "婚姻"}],
        "rules-citing-passage": [{"passage": PASSAGE + "MonthBroken"}, {"passage": PASSAGE + "GuaShen"}],
        "rules-conflicting": [{}], "rules-coverage": [{}], "rules-not-executable": [{}],
        "rules-in-chapter": [{"chapter": "疾病章"}],
        "rules-mentioning": [{"text": "六沖"}, {"text": "旬空"}],
        "rules-never-fired": [{}],
        "labels": [{}], "school-labels": [{}], "rules-catalogue": [{}],
        "passage-in-chapter": [{"passage": PASSAGE + "MonthBroken"}, {"passage": PASSAGE + "GuaShen"}],
        # the corpus layer (no edition added on either store: the seed editions the passages are quoted from)
        "judgment-editions": [{"judged": i} for i in iris],
        "parallels": [{"passage": PASSAGE + "SixClashHexagram"}],
        "passage-in-edition": [{"passage": PASSAGE + "EightPalaces",
                                "edition": "https://w3id.org/liuyao-kg/seed/002_27074fab81f0590e.txt"}],
        "passage-editions": [{"passage": PASSAGE + "EightPalaces"}, {"passage": PASSAGE + "MonthBroken"}],
        "work-passages-cited": [{"work": "火珠林"}],
        "edition-variants": [{"first": "https://w3id.org/liuyao-kg/seed/002_27074fab81f0590e.txt",
                              "second": "https://w3id.org/liuyao-kg/seed/002_27074fab81f0590e.txt"}],
        "term-across-works": [{"term": "SixClashHexagram"}],
        # the question, the reading and the interfaces' lookups
        "chart-use-god": casts, "cast-instant": casts,
        "casts-by-id": [{"id": i.rsplit("/", 1)[1][:6]} for i in iris],
        "reading-factors": casts, "reading-verdict": casts, "reading-timing": casts,
        "topics": [{}],
        "rule-label": [{"rule": fired_rule}],
        "passage": [{"source": PASSAGE + "MonthBroken"}, {"source": PASSAGE + "GuaShen"}],
        # the register of the schools' conflicts (docs/schools.md)
        "school-conflicts": [{}], "rule-conflicts": [{}],
        "conflict-sides": [{"conflict": "ClashScatter"}, {"conflict": "HiddenUseGod"}],
        "conflict-passages": [{"conflict": "HiddenLines"}, {"conflict": "WeatherUseGod"}],
        # citations (docs/citation.md) and collations (docs/collation.md; none on either store: no rows)
        "passage-urn": [{"passage": PASSAGE + "EightPalaces"}, {"passage": PASSAGE + "MonthBroken"}],
        "passage-by-urn": [{"urn": "urn:liuyao:HuoZhuLin:seed002:3.3@1-8"}, {"urn": "urn:liuyao:Nope:x:1.1"}],
        "collation-differences": [{"collation": "https://w3id.org/liuyao-kg/collation/HuoZhuLin-seed--HuoZhuLin-wikisource"}],
    }


#: queries whose answer shrinks as the store holds more casts: the server also holds other tests' casts,
#: so its rows must be a subset of the embedded store's
SHRINKING = {"rules-never-fired"}


@pytest.mark.server
def test_every_named_query_gives_the_same_rows_on_the_embedded_store_and_on_virtuoso(stores):
    embedded, remote, iris = stores
    fired = queries.run(embedded, "cast-judgments", cast=iris[0])[0]["rule"]
    params = _param_sets(iris, fired)
    assert set(params) == set(queries.catalogue())
    ours = set(iris)
    differing, compared = [], 0
    for name, sets in params.items():
        q = queries.get(name)
        for values in sets:
            b = queries.bindings(q, values)
            here, there = _embedded_terms(embedded, q.text, b), _remote_terms(remote, q.text, b)
            # queries over every cast in the store: the server also holds other tests' casts
            there = {r for r in there if dict(r).get("cast", ("iri", next(iter(ours))))[1] in ours}
            compared += 1
            if name in SHRINKING:  # (compared by rule: GROUP_CONCAT's order is the server's choice)
                rules_here, rules_there = ({dict(r)["rule"] for r in rows} for rows in (here, there))
                assert rules_there <= rules_here and rules_there, name
                continue
            if here != there:
                only_here, only_there = sorted(here - there, key=str), sorted(there - here, key=str)
                columns = ([(k, v, dict(only_there[0]).get(k)) for k, v in only_here[0] if v != dict(only_there[0]).get(k)]
                           if only_here and only_there else (only_here or only_there)[:2])
                differing.append((name, values, len(here), len(there), columns))
            # and through the public API, python values
            a = queries.run(embedded, name, **values)
            b_rows = [r for r in queries.run(remote, name, **values) if r.get("cast", iris[0]) in ours]
            assert sorted(map(repr, a)) == sorted(map(repr, b_rows)) or here != there, name
    assert compared > 40
    assert differing == [], "\n".join(f"{n} {v}: {a} rows here, {b} there; differing (column, here, there): {d}" for n, v, a, b, d in differing)


@pytest.mark.server
def test_the_fixed_layers_are_written_once(stores, virtuoso):
    _, remote, _ = stores
    again = RemoteKnowledgeGraph(_endpoint(virtuoso))
    assert again.layers_written == []
    sizes = again.graph_sizes(again._layer_graphs)
    assert all(n > 1000 for n in sizes.values())


def _size(remote, iri) -> tuple[int, int]:
    s = remote.graph_sizes([iri, inferred_graph(iri)])
    return s[iri], s[inferred_graph(iri)]


@pytest.mark.server
def test_loading_a_cast_again_adds_nothing(stores):
    _, remote, iris = stores
    before = _size(remote, iris[0])
    assert before[0] > 0 and before[1] > before[0]
    chart = liuyao_kg.cast(**CASTS[0], kg=remote)
    assert chart["cast"] == iris[0] and _size(remote, iris[0]) == before
    assert len(remote.cast_graph(iris[0])) == sum(before)


def _fresh_quads(**spec):
    from liuyao_kg.loaders.cast_input import make_cast_input
    from liuyao_kg.loaders.rdf import cast_quads

    ci = make_cast_input(**spec)
    return ci.iri, cast_quads(ci)


@pytest.mark.server
def test_a_cast_write_is_atomic_when_the_server_rejects_the_request(stores, monkeypatch):
    _, remote, _ = stores
    iri, quads = _fresh_quads(spec="乾之姤", month="卯", day="甲子", topic="求財")
    real = remote.client.update
    sent = []

    def broken(text):  # the request fails at its very end, after every triple of the cast has been sent
        sent.append(text)
        real(text[:-1] + '<urn:x> <urn:y> "unterminated }')

    monkeypatch.setattr(remote.client, "update", broken)
    with pytest.raises(RemoteStoreError):
        add_casts(remote, quads)
    assert len(sent) == 1 and inferred_graph(iri) in sent[0]  # one request held both graphs
    assert not remote.has_cast(iri) and _size(remote, iri) == (0, 0)
    monkeypatch.setattr(remote.client, "update", real)
    add_casts(remote, quads)
    assert remote.has_cast(iri) and _size(remote, iri)[1] > 0


@pytest.mark.server
def test_a_failed_derivation_writes_nothing(stores, monkeypatch):
    _, remote, _ = stores
    iri, quads = _fresh_quads(spec="坤之復", month="酉", day="丙寅")

    def fail(_):
        raise RuntimeError("derivation failed")

    monkeypatch.setattr(engine_for(remote), "derive", fail)
    with pytest.raises(RuntimeError):
        add_casts(remote, quads)
    assert _size(remote, iri) == (0, 0)


@pytest.mark.server
def test_credentials_never_appear_in_errors(virtuoso):
    wrong = "Wr0ng-" + virtuoso.password
    with pytest.raises(RemoteStoreError) as e:
        RemoteKnowledgeGraph(_endpoint(virtuoso, wrong)).client.update("CLEAR SILENT GRAPH <urn:nothing>")
    assert wrong not in str(e.value) and "Unauthorized" in str(e.value)
    # a server error with the right credentials in the URL
    url = f"http://{virtuoso.user}:{virtuoso.password}@127.0.0.1:{virtuoso.http_port}/sparql-auth"
    ep = Endpoint.from_env(url, env={"LIUYAO_ENDPOINT_AUTH": "digest"})
    kg = RemoteKnowledgeGraph(ep)
    with pytest.raises(RemoteStoreError) as e:
        kg.select("SELECT ?x WHERE { ?x <urn:p> }")
    msg = str(e.value)
    assert virtuoso.password not in msg and f"{virtuoso.user}:" not in msg and "127.0.0.1" in msg
    assert e.value.__cause__ is None and e.value.__context__ is None  # the original error is not kept


@pytest.mark.server
def test_a_parameter_value_cannot_change_a_remote_query(stores):
    _, remote, _ = stores
    assert queries.run(remote, "nayin", gz='甲子" } UNION { ?p ?q ?r } #') == []
    assert queries.run(remote, "nayin", gz="甲子\\") == []
    assert queries.run(remote, "nayin", gz="甲子")[0]["nayin"] == "海中金"


# --- the CLI with --endpoint ------------------------------------------------------------------------------


@pytest.fixture
def endpoint_env(virtuoso, monkeypatch):
    monkeypatch.setenv("LIUYAO_ENDPOINT_USER", virtuoso.user)
    monkeypatch.setenv("LIUYAO_ENDPOINT_PASSWORD", virtuoso.password)
    monkeypatch.setenv("LIUYAO_ENDPOINT_AUTH", "digest")
    return ["--endpoint", virtuoso.sparql, "--update-endpoint", virtuoso.sparql_auth]


def _cli(capsys, *argv):
    from liuyao_kg.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.server
def test_cli_cast_query_and_why_with_endpoint(capsys, endpoint_env):
    code, out, _ = _cli(capsys, "cast", "大畜之小畜", "--month", "午", "--day", "己巳", "--topic", "求財",
                        "--format", "json", *endpoint_env)
    assert code == 0
    chart = json.loads(out)
    assert chart == liuyao_kg.cast("大畜之小畜", month="午", day="己巳", topic="求財")
    code, out, _ = _cli(capsys, "query", "line-states", "--param", f"cast={chart['cast']}", "--param", "position=5",
                        "--format", "json", *endpoint_env)
    assert code == 0 and "月破" in {r["term"] for r in json.loads(out)}
    code, out, _ = _cli(capsys, "why", "大畜之小畜", "--month", "午", "--day", "己巳", "--topic", "求財",
                        "--line", "5", *endpoint_env)
    assert code == 0 and "月破 ← 規則 https://w3id.org/liuyao-kg/rule/MonthBroken" in out
    code, out, _ = _cli(capsys, "cast", "大畜之小畜", "--month", "午", "--day", "己巳", "--topic", "求財",
                        "--format", "trig", *endpoint_env)
    assert code == 0 and "@prefix lyo:" in out and "/inferred" in out and "MonthBroken" in out


@pytest.mark.server
def test_cli_load_with_endpoint_reports_then_skips(capsys, endpoint_env, tmp_path):
    batch = tmp_path / "casts.jsonl"
    batch.write_text("\n".join([
        json.dumps({"id": "a", "spec": "既濟之未濟", "month": "寅", "day": "辛亥"}, ensure_ascii=False),
        json.dumps({"id": "b", "spec": "787985", "month": "寅", "day": "辛亥"}),
    ]), encoding="utf-8")
    code, out, _ = _cli(capsys, "load", str(batch), *endpoint_env)
    report = json.loads(out)
    assert code == 0 and report["loaded"] == ["a"] and [r["id"] for r in report["rejected"]] == ["b"]
    code, out, _ = _cli(capsys, "load", str(batch), *endpoint_env)
    assert json.loads(out)["skipped"] == ["a"]


@pytest.mark.server
def test_cli_endpoint_errors_exit_1_without_the_password(capsys, endpoint_env, virtuoso, monkeypatch):
    monkeypatch.setenv("LIUYAO_ENDPOINT_PASSWORD", "not-" + virtuoso.password)
    monkeypatch.setenv("LIUYAO_ENDPOINT_USER", virtuoso.user)
    code, out, err = _cli(capsys, "cast", "節之中孚", "--month", "寅", "--day", "壬子", *endpoint_env[:2],
                          "--update-endpoint", virtuoso.sparql_auth, "--lang", "en")
    assert code == 1 and out == "" and "liuyao: error:" in err and virtuoso.password not in err
