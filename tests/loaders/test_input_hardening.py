"""Hostile and unusual input: encodings, bad bytes, YAML alias bombs, huge values, odd digits, strict dates."""
from __future__ import annotations

import json
import re

import pytest

from liuyao_kg.cli import main
from liuyao_kg.loaders import make_cast_input
from liuyao_kg.loaders.batch import read_batch
from liuyao_kg.loaders.errors import BadDate, BadLineValue, BatchError, CastInputError

GOOD = {"spec": "節之中孚", "month": "寅", "day": "辛亥"}


def _jsonl(records) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def _split(results):
    good = [rid for rid, r in results if not isinstance(r, CastInputError)]
    bad = {rid: str(r) for rid, r in results if isinstance(r, CastInputError)}
    return good, bad


@pytest.mark.parametrize("codec, bom", [("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"), ("utf-16-le", b""),
                                        ("utf-16-be", b""), ("utf-8", b"\xef\xbb\xbf"), ("utf-32-le", b"\xff\xfe\x00\x00")])
def test_utf16_and_utf32_files_with_or_without_a_bom_are_read(tmp_path, codec, bom):
    path = tmp_path / "casts.jsonl"
    path.write_bytes(bom + _jsonl([{"id": "甲", **GOOD}, {"id": "乙", **GOOD, "topic": "求財"}]).encode(codec))
    assert _split(read_batch(path)) == (["甲", "乙"], {})


def test_a_declared_encoding_reads_big5_and_latin1(tmp_path):
    big5 = tmp_path / "big5.csv"
    big5.write_bytes("id,spec,month,day,topic\n節,節之中孚,寅,辛亥,求財\n".encode("big5"))
    assert _split(read_batch(big5, encoding="big5")) == (["節"], {})
    latin = tmp_path / "latin1.jsonl"
    latin.write_bytes(_jsonl([{"id": "café", "spec": "787986", "date": "2024-02-04T16:28:00+08:00"}]).encode("latin-1"))
    assert _split(read_batch(latin, encoding="latin-1")) == (["café"], {})


def test_an_undeclared_big5_file_rejects_its_non_ascii_records_with_the_hint(tmp_path):
    path = tmp_path / "big5.jsonl"
    path.write_bytes(_jsonl([{"id": "ascii", "spec": "787986", "month": "子", "day": "甲子"}]).encode("utf-8")
                     + _jsonl([{"id": "b", **GOOD}]).encode("big5"))
    good, bad = _split(read_batch(path))
    assert good == ["ascii"] and "is not valid utf-8" in bad["b"] and "--encoding" in bad["b"]


def test_one_bad_byte_rejects_only_its_record(tmp_path):
    path = tmp_path / "casts.jsonl"
    lines = _jsonl([{"id": "a", **GOOD}, {"id": "b", **GOOD, "topic": "TOPIC"}, {"id": "c", **GOOD, "topic": "婚姻"}])
    path.write_bytes(lines.encode().replace(b"TOPIC", b"\xff\xfe"))
    good, bad = _split(read_batch(path))
    assert good == ["a", "c"] and "byte 0xff" in bad["b"] and "line 2" in bad["b"]


def test_a_bom_that_contradicts_the_declared_encoding_is_an_error(tmp_path):
    path = tmp_path / "casts.jsonl"
    path.write_bytes(b"\xff\xfe" + _jsonl([GOOD]).encode("utf-16-le"))
    with pytest.raises(BatchError, match="UTF-16"):
        read_batch(path, encoding="big5")


def test_a_yaml_alias_bomb_is_refused_quickly_with_a_short_message(tmp_path):
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i, name in enumerate("bcdefghi"):
        prev = "abcdefghi"[i]
        lines.append(f"{name}: &{name} [{','.join(['*' + prev] * 9)}]")
    path = tmp_path / "bomb.yaml"
    path.write_text("- id: x\n  spec: 乾\n  month: 子\n  day: 甲子\n  topic:\n    " + "\n    ".join(lines) + "\n",
                    encoding="utf-8")
    with pytest.raises(BatchError) as e:
        read_batch(path)
    assert "expands to more than" in str(e.value) and len(str(e.value)) < 500


def test_yaml_anchors_in_moderation_still_work(tmp_path):
    path = tmp_path / "casts.yaml"
    path.write_text("- &base {id: a, spec: 節之中孚, month: 寅, day: 辛亥}\n- {<<: *base, id: b, topic: 求財}\n",
                    encoding="utf-8")
    assert _split(read_batch(path)) == (["a", "b"], {})


def test_huge_values_give_bounded_messages_and_reject_only_their_record(tmp_path):
    path = tmp_path / "casts.jsonl"
    path.write_text(_jsonl([{"id": "long", **GOOD, "day": "辛" * 100_000}, {"id": "ok", **GOOD}])
                    + '{"id": "digits", "spec": ' + "7" * 5000 + ', "month": "寅", "day": "辛亥"}\n'
                    + '{"id": "deep", "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n", encoding="utf-8")
    good, bad = _split(read_batch(path))
    assert good == ["ok"] and set(bad) == {"long", "#3", "#4"}
    assert all(len(m) < 600 for m in bad.values())
    assert "characters omitted" in bad["long"] and "nested too deeply" in bad["#4"]


def test_an_over_long_csv_field_rejects_its_record_only(tmp_path):
    path = tmp_path / "casts.csv"
    path.write_text("id,spec,month,day\na,節之中孚,寅,辛亥\nb,\"" + "x" * 200_000 + "\",寅,辛亥\nc,787986,子,甲子\n",
                    encoding="utf-8")
    good, bad = _split(read_batch(path))
    assert good == ["a", "c"] and "field larger than field limit" in next(iter(bad.values()))


@pytest.mark.parametrize("spec", ["①⁷₇²86", "78798⓻", "٧٨٧٩٨٦"])
def test_circled_superscript_and_other_script_digits_are_refused_by_name(spec):
    with pytest.raises(BadLineValue, match="write digits as 0–9"):
        make_cast_input(spec, month="子", day="甲子")


def test_full_width_digits_are_read_as_ascii_digits():
    assert make_cast_input("７８７９８６", month="子", day="甲子").iri == make_cast_input("787986", month="子", day="甲子").iri
    dated = make_cast_input("787986", date="２０２４-02-04T16:28:00+08:00")
    assert dated.iri == make_cast_input("787986", date="2024-02-04T16:28:00+08:00").iri


def test_a_record_with_odd_digits_mid_batch_does_not_stop_the_batch(tmp_path):
    path = tmp_path / "casts.jsonl"
    path.write_text(_jsonl([{"id": "a", **GOOD}, {"id": "b", "spec": "①⁷₇²86", "month": "子", "day": "甲子"},
                            {"id": "c", **GOOD, "topic": "求財"}]), encoding="utf-8")
    good, bad = _split(read_batch(path))
    assert good == ["a", "c"] and "CIRCLED DIGIT ONE" in bad["b"]


@pytest.mark.parametrize("date, why", [("2024-02-04T16:28+08:99", "minutes 99"), ("2024-02-04T16:28+08:60", "minutes 60"),
                                       ("2024-02-04T16:28+08:00:99", "not seconds"), ("2024-02-04T16:28+15:00", "±14:00")])
def test_impossible_zone_offsets_are_refused(date, why):
    with pytest.raises(BadDate, match=why):
        make_cast_input("787986", date=date)


def test_real_zone_offsets_at_the_edges_are_accepted():
    for date in ("2024-02-04T16:28:00+14:00", "2024-02-04T16:28:00-12:00", "2024-02-04T16:28:00Z",
                 "2024-02-04T16:28+0545"):
        assert make_cast_input("787986", date=date).cast_at


@pytest.mark.parametrize("date", ["2024-02-04T16:28+08:99\x00", "2024-02-04T16:28+08:00\x00", "2024-02-04\x00T16:28+08:00"])
def test_a_nul_in_a_date_is_refused_by_name(date):
    """fromisoformat reads past a NUL, and the offset check did not see an offset before it: +08:99 became +09:39."""
    with pytest.raises(BadDate, match=r"NUL character \(U\+0000\)"):
        make_cast_input("787986", date=date)


def test_a_nul_in_a_date_rejects_its_batch_record(tmp_path):
    """The same through JSON Lines, where the NUL is written \\u0000."""
    path = tmp_path / "casts.jsonl"
    path.write_text('{"id": "nul", "spec": "787986", "date": "2024-02-04T16:28+08:99\\u0000"}\n'
                    + _jsonl([{"id": "ok", **GOOD}]), encoding="utf-8")
    good, bad = _split(read_batch(path))
    assert good == ["ok"] and "NUL character (U+0000)" in bad["nul"]


def test_an_infinite_line_value_is_a_cast_input_error():
    """int(float('inf')) raises OverflowError, which is no CastInputError: callers catching those missed it."""
    import liuyao_kg

    with pytest.raises(BadLineValue, match="line value inf at position 1"):
        liuyao_kg.cast([float("inf"), 8, 7, 9, 8, 6], month="寅", day="辛亥")


@pytest.mark.parametrize("spec, lines, named", [
    ([7.9, 8, 7, 9, 8, 6], None, "line value 7.9 at position 1"),  # was truncated to 787986
    ([7, 8, 7, 9, 8, 6.5], None, "line value 6.5 at position 6"),
    ("787986", [7.2, 8, 7, 9, 8, 6], "line value 7.2 at position 1"),  # agreed with the spec once truncated
    ("887986", [7.2, 8, 7, 9, 8, 6], "line value 7.2 at position 1"),  # a disagreement that never named 7.2
    ([7.0, 8, 7, 9, 8, 6], None, "line value 7.0 at position 1"),  # whole, but a float: refused alike
])
def test_a_line_value_that_is_not_an_integer_is_refused_naming_it_and_its_position(spec, lines, named):
    """A fraction is no line value; truncating it would turn a wrong record into another cast."""
    with pytest.raises(BadLineValue, match=re.escape(named) + ".*a whole number, not a float"):
        make_cast_input(spec, lines=lines, month="寅", day="辛亥")


@pytest.mark.parametrize("spec, lines", [(b"787986", None), ("787986", b"787986"), ("節", bytearray(b"787986"))])
def test_bytes_for_a_spec_or_lines_are_refused_by_name(spec, lines):
    """Bytes iterate as their codes: b'7' was read as the line value 55."""
    field = "spec" if lines is None else "lines"
    with pytest.raises(BadLineValue, match=f"{field} .* is {type(spec if lines is None else lines).__name__}: "
                                           "give text") as e:
        make_cast_input(spec, lines=lines, month="寅", day="辛亥")
    assert e.value.field == field and "55" not in str(e.value)


def test_a_missing_batch_file_is_a_clear_error_and_creates_no_store(tmp_path, capsys):
    store = tmp_path / "kg"
    assert main(["load", str(tmp_path / "nope.jsonl"), "--store", str(store), "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and "Traceback" not in err and not store.exists()


def test_an_unknown_encoding_is_a_clear_error(tmp_path, capsys):
    path = tmp_path / "casts.jsonl"
    path.write_text(_jsonl([GOOD]), encoding="utf-8")
    assert main(["load", str(path), "--encoding", "klingon", "--lang", "en"]) == 2
    assert "unknown encoding 'klingon'" in capsys.readouterr().err


@pytest.mark.parametrize("value, why", [("https://w3id.org/liuyao-kg/cast/[x]", "not a valid IRI"),
                                        ("https://w3id.org/liuyao-kg/cast/a\nb", "control character"),
                                        ("https://w3id.org/liuyao-kg/cast/a\x00", "control character")])
def test_named_query_parameters_with_brackets_newlines_or_nul_are_refused(capsys, value, why):
    assert main(["query", "chart-lines", "--param", f"cast={value}", "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert why in err and "Traceback" not in err
