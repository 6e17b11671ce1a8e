"""`liuyao load`'s exit status (docs/cli.md#exit-status): 2 when every record is rejected, 1 with --strict when
any is, else 0; the reason is said on stderr, even with --quiet."""
from __future__ import annotations

import json

import pytest

from liuyao_kg.cli import main

GOOD = '{"id": "good", "spec": "節之中孚", "month": "寅", "day": "辛亥"}'
BAD = '{"id": "bad", "spec": "節x", "month": "寅", "day": "辛亥"}'
WORSE = '{"id": "worse", "spec": "787985", "month": "寅", "day": "辛亥"}'


def load(capsys, tmp_path, *records: str, argv=()) -> tuple[int, dict, str]:
    batch = tmp_path / "casts.jsonl"
    batch.write_text("".join(r + "\n" for r in records), encoding="utf-8")
    code = main(["load", str(batch), "--store", str(tmp_path / "kg"), "--quiet", "--lang", "en", *argv])  # the English detail
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def test_every_record_rejected_exits_2_saying_nothing_was_loaded(capsys, tmp_path):
    code, report, err = load(capsys, tmp_path, BAD, WORSE)
    assert code == 2 and report["loaded"] == [] and len(report["rejected"]) == 2
    assert "nothing loaded: every record (2) was rejected" in err


def test_some_rejected_exits_0_by_default(capsys, tmp_path):
    code, report, err = load(capsys, tmp_path, GOOD, BAD)
    assert code == 0 and report["loaded"] == ["good"] and err == ""


def test_strict_exits_1_when_any_record_is_rejected_and_keeps_the_good_ones(capsys, tmp_path):
    code, report, err = load(capsys, tmp_path, GOOD, BAD, argv=["--strict"])
    assert code == 1 and report["loaded"] == ["good"]
    assert "1 of 2 records rejected (--strict); the other 1 are loaded" in err


@pytest.mark.parametrize("argv", [[], ["--strict"]])
def test_a_clean_batch_exits_0(capsys, tmp_path, argv):
    code, report, _ = load(capsys, tmp_path, GOOD, argv=argv)
    assert code == 0 and report["loaded"] == ["good"]


def test_a_batch_already_loaded_with_one_bad_record_is_not_every_record_rejected(capsys, tmp_path):
    load(capsys, tmp_path, GOOD)
    code, report, _ = load(capsys, tmp_path, GOOD, BAD)
    assert code == 0 and report["skipped"] == ["good"]
