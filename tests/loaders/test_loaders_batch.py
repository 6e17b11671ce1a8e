"""Batches in JSON Lines, YAML and CSV: all-or-nothing casts, skip / abort policies, duplicate ids."""
from __future__ import annotations

from pathlib import Path

import pytest

from liuyao_kg.loaders import (BadLineValue, BatchError, CastInput, CastInputError, ImpossibleStemBranch,
                               UnknownTopic, good_casts, make_cast_input, parse_batch, read_batch, rejected)
from liuyao_kg.loaders.errors import DuplicateRecordId

DATA = Path(__file__).resolve().parents[1] / "data" / "batches"

# file → (ids in order, the bad record's id, its line, its error class)
BATCHES = {
    "casts.jsonl": (["jie-pair", "values", "bad-line", "dated"], "bad-line", 4, BadLineValue),
    "casts.yaml": (["jie-pair", "bad-day", "dated"], "bad-day", 7, ImpossibleStemBranch),
    "casts.csv": (["jie-pair", "notation", "bad-topic", "dated"], "bad-topic", 4, UnknownTopic),
}


@pytest.mark.parametrize("name", sorted(BATCHES))
def test_skip_policy_keeps_good_casts_and_reports_the_bad_one(name):
    ids, bad_id, bad_line, cls = BATCHES[name]
    results = read_batch(DATA / name)
    assert [rid for rid, _ in results] == ids
    good = good_casts(results)
    assert len(good) == len(ids) - 1 and all(isinstance(c, CastInput) for c in good)
    (err,) = rejected(results)
    assert isinstance(err, cls)
    assert (err.record_id, err.line) == (bad_id, bad_line)
    assert str(err).startswith(f"record {bad_id!r}, line {bad_line}")


@pytest.mark.parametrize("name", sorted(BATCHES))
def test_abort_policy_raises_listing_every_problem_and_loads_nothing(name):
    ids, bad_id, bad_line, cls = BATCHES[name]
    with pytest.raises(BatchError) as ei:
        read_batch(DATA / name, on_error="abort")
    assert len(ei.value.problems) == 1
    assert isinstance(ei.value.problems[0], cls)
    assert bad_id in str(ei.value) and f"line {bad_line}" in str(ei.value)
    assert "nothing loaded" in str(ei.value)


@pytest.mark.parametrize("name", sorted(BATCHES))
def test_first_record_of_each_format_is_the_same_cast(name):
    results = dict(read_batch(DATA / name))
    ref = make_cast_input("節之中孚", month="寅", day="辛亥", topic="求財")
    assert results["jie-pair"].iri == ref.iri
    assert results["jie-pair"].label == "jie-pair"


def test_jsonl_forms_hexagram_plus_changed_and_dates():
    r = dict(read_batch(DATA / "casts.jsonl"))
    assert r["values"].values == (7, 8, 7, 9, 8, 6) and r["values"].birth_branch == "午"
    assert (r["dated"].primary, r["dated"].changed, r["dated"].month_gz) == (60, 61, "丙寅")
    assert r["dated"].topic == "疾病"


def test_yaml_unquoted_date_and_day_boundary_are_read_correctly():
    r = dict(read_batch(DATA / "casts.yaml"))
    d = r["dated"]
    assert d.day_boundary == "23:00" and d.day_gz == "己亥"  # 23:30 with the 23:00 boundary
    assert d.cast_at == "2024-02-04T23:30:00+08:00"
    assert d.values == (7, 7, 8, 8, 7, 6) and d.birth_branch == "午"


def test_csv_notation_and_utc_date():
    r = dict(read_batch(DATA / "casts.csv"))
    assert r["notation"].values == (7, 7, 8, 9, 8, 6)
    assert r["dated"].month_gz == "丙寅" and r["dated"].cast_at == "2024-02-04T08:28:00+00:00"


def test_duplicate_id_is_an_error_for_the_second_record():
    results = read_batch(DATA / "duplicate_ids.jsonl")
    assert isinstance(results[0][1], CastInput)
    err = results[1][1]
    assert isinstance(err, DuplicateRecordId) and err.line == 2 and "line 1" in str(err)
    with pytest.raises(BatchError, match="duplicate id 'a'"):
        read_batch(DATA / "duplicate_ids.jsonl", on_error="abort")


def test_a_cast_is_all_or_nothing():
    text = '{"id": "x", "spec": "節之中孚", "month": "寅", "day": "辛亥", "topic": "算命"}\n'
    [(rid, res)] = parse_batch(text, "jsonl")
    assert rid == "x" and isinstance(res, UnknownTopic)


def test_records_without_id_get_their_position():
    text = '{"spec": "節", "month": "寅", "day": "辛亥"}\n{"spec": "節", "month": "寅", "day": "甲丑"}\n'
    results = parse_batch(text, "jsonl")
    assert [rid for rid, _ in results] == ["#1", "#2"]
    assert results[1][1].line == 2


def test_invalid_json_line_is_reported_with_its_line():
    text = '{"id": "a", "spec": "節", "month": "寅", "day": "辛亥"}\n{"id": "b", "spec": \n'
    results = parse_batch(text, "jsonl")
    err = results[1][1]
    assert isinstance(err, CastInputError) and err.line == 2 and "not valid JSON" in str(err)


def test_unknown_field_is_rejected_naming_it():
    [(_, err)] = parse_batch('{"id": "a", "spec": "節", "mnth": "寅", "day": "辛亥"}', "jsonl")
    assert isinstance(err, CastInputError) and "mnth" in str(err)


def test_spec_and_hexagram_together_are_rejected():
    [(_, err)] = parse_batch('{"spec": "節", "hexagram": "節", "month": "寅", "day": "辛亥"}', "jsonl")
    assert isinstance(err, CastInputError) and err.field == "spec"
    [(_, err)] = parse_batch('{"changed": "中孚", "month": "寅", "day": "辛亥"}', "jsonl")
    assert isinstance(err, CastInputError) and err.field == "changed"


def test_yaml_that_is_not_a_list_cannot_be_read():
    with pytest.raises(BatchError, match="list of mappings"):
        parse_batch("id: a\nspec: 節\n", "yaml")
    with pytest.raises(BatchError, match="cannot be read"):
        parse_batch("- id: [a\n", "yaml")


def test_yaml_item_that_is_not_a_mapping_is_rejected():
    results = parse_batch("- 節\n- spec: 節\n  month: 寅\n  day: 辛亥\n", "yaml")
    assert isinstance(results[0][1], CastInputError) and isinstance(results[1][1], CastInput)


def test_csv_without_header_cannot_be_read():
    with pytest.raises(BatchError, match="no header"):
        parse_batch("", "csv")


def test_csv_row_with_too_many_cells_is_rejected():
    results = parse_batch("id,spec,month,day\na,節,寅,辛亥,extra\nb,節,寅,辛亥\n", "csv")
    assert isinstance(results[0][1], CastInputError) and results[0][1].line == 2
    assert isinstance(results[1][1], CastInput)


def test_csv_row_with_too_few_cells_is_rejected_naming_the_missing_columns():
    """A short row is not read as one with empty cells: without its day and topic it would load as another cast."""
    text = "id,spec,month,day,topic\ngood,787986,寅,辛亥,求財\nbad-few,787986,寅\n"
    (_, good), (_, err) = parse_batch(text, "csv")
    assert isinstance(good, CastInput) and isinstance(err, CastInputError) and err.line == 3
    assert "3 cells but the header has 5 columns (missing: day, topic)" in str(err)
    with pytest.raises(BatchError, match=r"line 3: .*\(missing: day, topic\)"):
        parse_batch(text, "csv", on_error="abort")


def test_unknown_format_and_policy_are_rejected(tmp_path):
    with pytest.raises(BatchError, match="unknown batch format"):
        parse_batch("", "xml")
    p = tmp_path / "casts.txt"
    p.write_text("")
    with pytest.raises(BatchError, match="cannot tell the batch format"):
        read_batch(p)
    with pytest.raises(ValueError, match="on_error"):
        parse_batch("", "jsonl", on_error="ignore")


def test_format_can_be_forced(tmp_path):
    p = tmp_path / "casts.txt"
    p.write_text('{"spec": "節", "month": "寅", "day": "辛亥"}\n', encoding="utf-8")
    assert isinstance(read_batch(p, format="jsonl")[0][1], CastInput)


def test_clean_batch_passes_under_abort():
    text = '{"id": "a", "spec": "節", "month": "寅", "day": "辛亥"}\n'
    assert len(good_casts(parse_batch(text, "jsonl", on_error="abort"))) == 1
