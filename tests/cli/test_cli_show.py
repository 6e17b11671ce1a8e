"""`liuyao show ID --store DIR`: a stored cast's chart again, by the record id it had in `liuyao load`, its hash
(or the hash's first characters) or its IRI; an id naming no cast, or several, exits 2 saying so."""
from __future__ import annotations

import json

import pytest

from liuyao_kg.cli import main

JIE = "https://w3id.org/liuyao-kg/cast/badf40c86ea611f9"  # 節之中孚, 寅月 辛亥日, 求財 (docs/cli.md)
A = {"id": "a", "spec": "節之中孚", "month": "寅", "day": "辛亥", "topic": "求財"}
B = {"id": "b", "spec": "大畜之小畜", "month": "午", "day": "己巳"}
AGAIN_B = {"id": "b", "spec": "否之臨", "month": "寅", "day": "己亥"}  # a second batch re-using the id "b"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    where = tmp_path_factory.mktemp("show")
    for n, batch in enumerate(([A, B], [AGAIN_B])):
        path = where / f"batch{n}.jsonl"
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in batch), encoding="utf-8")
        assert main(["load", str(path), "--store", str(where / "kg"), "--quiet"]) == 0
    return str(where / "kg")


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("key", ["a", "badf40c86ea611f9", "badf40", JIE])
def test_show_finds_a_cast_by_record_id_hash_prefix_or_iri(capsys, store, key):
    code, out, _ = run(capsys, "show", key, "--store", store, "--format", "json")
    assert code == 0 and json.loads(out)["cast"] == JIE


def test_show_prints_the_chart_cast_printed(capsys, store):
    _, shown, _ = run(capsys, "show", "a", "--store", store, "--lang", "en")
    _, cast, _ = run(capsys, "cast", "節之中孚", "--month", "寅", "--day", "辛亥", "--topic", "求財", "--lang", "en")
    assert shown == cast


def test_show_writes_the_stored_graph_the_cast_wrote_with_its_record_id(capsys, store):
    _, shown, _ = run(capsys, "show", "a", "--store", store, "--format", "nquads", "--graphs", "asserted")
    _, cast, _ = run(capsys, "cast", "節之中孚", "--month", "寅", "--day", "辛亥", "--topic", "求財",
                     "--format", "nquads", "--graphs", "asserted")
    label = f'<{JIE}> <http://www.w3.org/2000/01/rdf-schema#label> "a" <{JIE}> .'
    assert set(shown.splitlines()) == set(cast.splitlines()) | {label}


def test_show_writes_json_ld(capsys, store):
    code, out, _ = run(capsys, "show", "a", "--store", store, "--format", "json-ld")
    assert code == 0 and json.loads(out)["@context"]["lyo"].endswith("/ontology#") and '"rdfs:label": "a"' in out


@pytest.mark.parametrize("key, problem", [
    ("zz", "no cast in the store has the record id or a hash starting 'zz'"),
    ("https://w3id.org/liuyao-kg/cast/0000000000000000", "no cast https://w3id.org/liuyao-kg/cast/0000000000000000"),
    ("b", "id 'b' names 2 casts by their record id"),
    ("", "an empty id"),
])
def test_an_id_naming_no_cast_or_several_exits_2_saying_so(capsys, store, key, problem):
    code, out, err = run(capsys, "show", key, "--store", store, "--lang", "en")  # the English detail
    assert code == 2 and out == "" and problem in err


def test_show_needs_a_store(capsys):
    code, _, err = run(capsys, "show", "a", "--lang", "en")
    assert code == 2 and "give --store DIR or --endpoint URL" in err
