"""SHACL shapes (ontology/shapes/): every cast's asserted graph, the rule base and the passages conform; a cast that
does not is refused before it is stored, with an error naming the shape."""
from __future__ import annotations

import json

import pyoxigraph as ox
import pytest
import rdflib

import liuyao_kg
from liuyao_kg import namespaces as ns
from liuyao_kg.ontology import layer_quads
from liuyao_kg.store.embedded import KnowledgeGraph
from liuyao_kg.loaders.cast_input import make_cast_input
from liuyao_kg.loaders.rdf import cast_quads
from liuyao_kg.loaders.shapes import ShapeViolation, check_cast, shape_violation, violations
from liuyao_kg.load import derive_with

INT = ox.NamedNode(ns.XSD + "integer")


@pytest.fixture(scope="module")
def jie():
    return cast_quads(make_cast_input("節之中孚", month="寅", day="辛亥", year="壬午", birth="寅", sex="男",
                                      topic="求財", date=None))


def _replace(quads, predicate, subject_suffix, value):
    return [ox.Quad(q.subject, q.predicate, value, q.graph_name)
            if q.predicate.value == ns.LYO + predicate and q.subject.value.endswith(subject_suffix) else q for q in quads]


@pytest.mark.parametrize("spec, extra", [("節之中孚", {}), ("乾", {"date": "2024-02-04T16:28+08:00"}),
                                         ("787986", {"birth": "子", "sex": "女", "topic": "婚姻", "about": "妻"})])
def test_the_loaders_casts_conform(spec, extra):
    fields = {"month": "寅", "day": "辛亥"} if "date" not in extra else {}
    check_cast(cast_quads(make_cast_input(spec, **(fields | extra))))


def test_a_line_value_outside_6_to_9_violates_the_line_shape(jie):
    bad = _replace(jie, "lineValue", "/line/3", ox.Literal("5", datatype=INT))
    with pytest.raises(ShapeViolation, match=r"shape lysh:LineShape .*/line/3 lyo:lineValue: a line's value is one of 6 7 8 9"):
        check_cast(bad)


def test_two_lines_at_one_position_violate_the_cast_shape(jie):
    bad = _replace(jie, "position", "/line/3", ox.Literal("2", datatype=INT))
    with pytest.raises(ShapeViolation, match="shape lysh:CastShape .*positions 1 … 6, each once"):
        check_cast(bad)


def test_a_cast_with_two_day_pillars_violates_the_cast_shape(jie):
    (day,) = [q for q in jie if q.predicate.value == ns.LYO + "hasDay"]
    other = ox.Quad(day.subject, day.predicate, ox.NamedNode(ns.LYR + "Day_甲子"), day.graph_name)
    with pytest.raises(ShapeViolation, match="lysh:CastShape .* lyo:hasDay: a cast has at most one day pillar"):
        check_cast(jie + [other])


def test_a_cast_without_a_date_conforms_to_the_cast_shape(jie):
    check_cast([q for q in jie if q.predicate.value not in (ns.LYO + "hasDay", ns.LYO + "hasMonth")])


def test_a_hexagram_outside_the_64_violates_the_cast_shape(jie):
    bad = _replace(jie, "primaryHexagram", "", ox.NamedNode(ns.LYR + "Hexagram65"))
    with pytest.raises(ShapeViolation, match="lyo:primaryHexagram: a cast has one primary hexagram"):
        check_cast(bad)


def test_a_violating_cast_is_not_stored(jie, monkeypatch):
    from liuyao_kg.loaders import rdf

    kg = derive_with(KnowledgeGraph(), chapter_rules=False)
    monkeypatch.setattr(rdf, "cast_quads", lambda ci: _replace(cast_quads(ci), "lineValue", "/line/3",
                                                               ox.Literal("5", datatype=INT)))
    with pytest.raises(ShapeViolation):
        liuyao_kg.cast("節之中孚", month="寅", day="辛亥", kg=kg)
    assert not kg.has_cast(make_cast_input("節之中孚", month="寅", day="辛亥").iri)


def test_the_cli_reports_a_shape_violation_as_an_input_error(monkeypatch, capsys):
    from liuyao_kg.cli import main
    from liuyao_kg.loaders import rdf

    monkeypatch.setattr(rdf, "cast_quads", lambda ci: [q for q in cast_quads(ci) if q.predicate.value != ns.LYO + "hasLine"
                                                       or not q.object.value.endswith("/line/6")])
    assert main(["cast", "節", "--month", "寅", "--day", "辛亥", "--lang", "en"]) == 2
    assert "liuyao: error: the cast's graph violates shape lysh:CastShape" in capsys.readouterr().err


def _layers(*graphs: str) -> rdflib.Graph:
    quads = layer_quads()
    g = rdflib.Graph()
    data = ox.serialize([ox.Triple(q.subject, q.predicate, q.object) for name in graphs for q in quads[name]],
                        format=ox.RdfFormat.N_TRIPLES)
    g.parse(data=data.decode(), format="nt")
    return g


@pytest.fixture(scope="module")
def rule_data():
    """The rule and passage layers, with the works they belong to (typed in the reference layer)."""
    g = _layers(ns.GRAPH_RULES, ns.GRAPH_PASSAGES)
    work = rdflib.URIRef(ns.LYO + "Work")
    for w in _layers(ns.GRAPH_REFERENCE).subjects(rdflib.RDF.type, work):
        g.add((w, rdflib.RDF.type, work))
    return g


#: rules the shapes find wanting, each with why it is not fixed here; the test fails when one is fixed or a new one appears
KNOWN_GAPS = {
    # the seed's Korean rendering of this passage stops mid-sentence ("밖의 인정에"), so there is no Korean
    # conclusion to transcribe: ontology/chapters/004b-jibing.yaml has ko: null
    ("lysh:KoreanConclusionShape", ns.LYRULE + "ch/004b-jibing/ill-cause-ghost-hidden-under-offspring"),
}


def test_the_rule_base_and_passages_conform_to_their_shapes(rule_data):
    assert {(v["shape"], v["focus"]) for v in violations(rule_data, "rules")} == KNOWN_GAPS


def test_a_chapter_rule_without_the_korean_its_passage_gives_violates_the_rule_shape(rule_data):
    g = rdflib.Graph()
    rule = rdflib.URIRef(ns.LYRULE + "ch/000-yushi/case-wealth-severed-sibling-moves")
    for t in rule_data.triples((rule, None, None)):
        if not (t[1] == rdflib.URIRef(ns.LYO + "conclusion") and t[2].language == "ko"):
            g.add(t)
    for t in rule_data.triples((rdflib.URIRef(ns.LYR + "WorkYiMao"), None, None)):
        g.add(t)
    for t in rule_data.triples((None, None, None)):
        if t[0] in set(g.objects(rule, rdflib.URIRef(ns.LYO + "citesSource"))):
            g.add(t)
    found = violations(g, "rules")
    assert [(v["shape"], v["message"]) for v in found] == [
        ("lysh:KoreanConclusionShape", "a chapter rule whose passage has a Korean rendering gives its conclusion in Korean too")]




# ------------------------------------------------------------------------------------------------
# batch loads: every cast's graph is validated before it is derived, one pySHACL run per chunk
# ------------------------------------------------------------------------------------------------

STEMS, BRANCHES = "甲乙丙丁戊己庚辛壬癸", "子丑寅卯辰巳午未申酉戌亥"


def _day_casts(n: int):
    """n distinct casts of 節之中孚 in 寅 month, on successive days from 乙丑."""
    days = [STEMS[i % 10] + BRANCHES[i % 12] for i in range(1, n + 1)]
    return [make_cast_input("節之中孚", month="寅", day=d, topic="求財") for d in days]


def test_validated_with_its_chunk_a_cast_gets_the_error_it_gets_alone():
    from liuyao_kg.loaders.shapes import cast_graph_violations

    casts = _day_casts(12)
    graphs = {ci.iri: cast_quads(ci) for ci in casts}
    bad = casts[7].iri
    graphs[bad] = _replace(graphs[bad], "lineValue", "/line/3", ox.Literal("5", datatype=INT))
    found = cast_graph_violations(q for quads in graphs.values() for q in quads)
    assert list(found) == [bad]
    assert [(v["shape"], v["focus"], v["path"]) for v in found[bad]] == [("lysh:LineShape", bad + "/line/3", "lyo:lineValue")]
    with pytest.raises(ShapeViolation) as alone:
        check_cast(graphs[bad])
    assert shape_violation(found[bad]).message == alone.value.message


def test_a_chunk_of_the_loaders_casts_conforms():
    from liuyao_kg.loaders.shapes import cast_graph_violations

    assert cast_graph_violations(q for ci in _day_casts(50) for q in cast_quads(ci)) == {}


def test_a_cast_holding_another_casts_line_is_refused_though_the_union_of_both_looks_whole():
    """Over the union, A's sixth line (B's line 6) is a typed line at position 6; in A's own graph it is neither
    typed nor placed. Graphs that share a node are validated one by one, so A is refused as check_cast refuses it."""
    from liuyao_kg.loaders.shapes import cast_graph_violations

    a, b = _day_casts(2)
    b_line6 = ox.NamedNode(b.iri + "/line/6")
    theirs = [ox.Quad(q.subject, q.predicate, b_line6, q.graph_name)
              if q.predicate.value == ns.LYO + "hasLine" and q.object.value.endswith("/line/6") else q
              for q in cast_quads(a) if not q.subject.value.endswith("/line/6")]
    found = cast_graph_violations(theirs + cast_quads(b))
    assert list(found) == [a.iri]
    with pytest.raises(ShapeViolation) as alone:
        check_cast(theirs)
    assert shape_violation(found[a.iri]).message == alone.value.message


def _batch(tmp_path):
    """Three good records; `bad` is the one a corrupted writer (below) gives a line value of 5."""
    records = [{"id": "a", "spec": "節之中孚", "month": "寅", "day": "辛亥"},
               {"id": "bad", "spec": "節之中孚", "month": "寅", "day": "甲子"},
               {"id": "c", "spec": "否之臨", "month": "寅", "day": "己亥"}]
    path = tmp_path / "casts.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n", encoding="utf-8")
    return path, {r["id"]: make_cast_input(r["spec"], month=r["month"], day=r["day"]).iri for r in records}


@pytest.fixture
def corrupt_writer(monkeypatch):
    """loaders.rdf.cast_quads writing line 3 of the 甲子 cast with the value 5: input the Python readers accept,
    a graph the shapes refuse."""
    from liuyao_kg.loaders import rdf

    target = make_cast_input("節之中孚", month="寅", day="甲子").iri
    real = rdf.cast_quads
    monkeypatch.setattr(rdf, "cast_quads", lambda ci: _replace(real(ci), "lineValue", "/line/3",
                                                               ox.Literal("5", datatype=INT)) if ci.iri == target else real(ci))
    return target


def test_a_batch_cast_violating_a_shape_is_rejected_naming_its_record_and_the_shape(tmp_path, corrupt_writer):
    from liuyao_kg.load.pipeline import load_file

    path, iris = _batch(tmp_path)
    kg = derive_with(KnowledgeGraph(), chapter_rules=False)
    report = load_file(path, kg)
    assert report["loaded"] == ["a", "c"] and report["skipped"] == []
    (rejected,) = report["rejected"]
    assert (rejected["id"], rejected["line"]) == ("bad", 2)
    assert rejected["reason"].startswith("record 'bad', line 2, field cast: the cast's graph violates shape "
                                         "lysh:LineShape (ontology/shapes/cast.ttl)")
    assert "lyo:lineValue: a line's value is one of 6 7 8 9" in rejected["reason"]
    assert [kg.has_cast(iris[k]) for k in ("a", "bad", "c")] == [True, False, True]


def test_a_parquet_load_rejects_a_violating_cast_and_its_duplicates_as_a_store_load_does(tmp_path, corrupt_writer):
    """The partition checks its casts where it is derived (derive_partition, in this process here: a worker process
    builds its graphs with its own, uncorrupted writer): the report is load_file's."""
    import pyarrow.parquet as pq

    from liuyao_kg.load.pipeline import load_file
    from liuyao_kg.load.sinks import Parquet

    path, iris = _batch(tmp_path)
    with path.open("a", encoding="utf-8") as f:
        for rid in ("bad-again", "a-again", "bad-thrice"):
            day = "辛亥" if rid.startswith("a") else "甲子"
            f.write(json.dumps({"id": rid, "spec": "節之中孚", "month": "寅", "day": day}, ensure_ascii=False) + "\n")
    store = load_file(path, derive_with(KnowledgeGraph(), chapter_rules=False))
    parquet = load_file(path, Parquet(tmp_path / "pq"), partition=1)  # one record a partition: rejections arrive late
    assert [(r["id"], r["line"]) for r in parquet["rejected"]] == [("bad", 2), ("bad-again", 4), ("bad-thrice", 6)]
    assert parquet["rejected"] == sorted(store["rejected"], key=lambda r: r["line"])
    assert (parquet["loaded"], parquet["skipped"]) == (store["loaded"], store["skipped"]) == (["a", "c"], ["a-again"])
    casts = {c for f in (tmp_path / "pq").glob("states*.parquet") for c in pq.read_table(f, columns=["cast"])["cast"].to_pylist()}
    assert casts == {iris["a"], iris["c"]}


def test_a_duplicate_of_a_violating_batch_cast_is_rejected_too_not_skipped(tmp_path, corrupt_writer):
    from liuyao_kg.load.pipeline import load_file

    path, _ = _batch(tmp_path)
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps({"id": "bad-again", "spec": "節之中孚", "month": "寅", "day": "甲子"}, ensure_ascii=False) + "\n")
    report = load_file(path, derive_with(KnowledgeGraph(), chapter_rules=False))
    assert report["skipped"] == [] and [(r["id"], r["line"]) for r in report["rejected"]] == [("bad", 2), ("bad-again", 4)]
    assert "shape lysh:LineShape" in report["rejected"][1]["reason"]


def test_with_abort_a_batch_cast_violating_a_shape_loads_nothing(tmp_path, corrupt_writer):
    from liuyao_kg.load.pipeline import load_file
    from liuyao_kg.loaders.errors import BatchError

    path, iris = _batch(tmp_path)
    kg = derive_with(KnowledgeGraph(), chapter_rules=False)
    with pytest.raises(BatchError) as ei:
        load_file(path, kg, on_error="abort")
    (problem,) = ei.value.problems
    assert isinstance(problem, ShapeViolation) and (problem.record_id, problem.line) == ("bad", 2)
    assert "1 of 3 record(s) rejected; nothing loaded" in str(ei.value)
    assert "record 'bad', line 2, field cast: the cast's graph violates shape lysh:LineShape" in str(ei.value)
    assert not any(kg.has_cast(iri) for iri in iris.values())


def test_a_good_batch_loads_whole_under_the_shape_check(tmp_path):
    from liuyao_kg.load.pipeline import load_file

    path, iris = _batch(tmp_path)
    kg = derive_with(KnowledgeGraph(), chapter_rules=False)
    assert load_file(path, kg, on_error="abort") == {"loaded": ["a", "bad", "c"], "skipped": [], "rejected": []}
    assert all(kg.has_cast(iri) for iri in iris.values())
