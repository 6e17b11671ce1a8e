"""A new on-disk store takes seconds to be given its layers: it is said on stderr (liuyao_kg.progress), once, and
not with --quiet."""
from __future__ import annotations

import io

from liuyao_kg.cli import main
from liuyao_kg.progress import Progress

JIE = ["節之中孚", "--month", "寅", "--day", "辛亥"]


def test_a_new_store_says_it_is_being_written_and_then_how_long_it_took(capsys, tmp_path):
    store = str(tmp_path / "kg")
    assert main(["cast", *JIE, "--store", store, "--lang", "en"]) == 0
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith(f"new store {store}: ")]
    assert len(lines) == 2 and "0/5" in lines[0] and lines[1].endswith(" s") and "100% 5/5" in lines[1]
    assert main(["cast", *JIE, "--store", store, "--lang", "en"]) == 0
    assert "new store" not in capsys.readouterr().err  # opened again: nothing to say


def test_quiet_says_nothing_while_a_store_is_created(capsys, tmp_path):
    batch = tmp_path / "casts.jsonl"
    batch.write_text('{"id": "a", "spec": "節之中孚", "month": "寅", "day": "辛亥"}\n', encoding="utf-8")
    assert main(["load", str(batch), "--store", str(tmp_path / "kg"), "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_steps_of_unequal_cost_show_the_time_taken_not_a_rate():
    out = io.StringIO()
    bar = Progress("work", stream=out, rate=False)
    bar.update(1, 2)
    assert out.getvalue().startswith("work  50% 1/2  ") and out.getvalue().rstrip().endswith(" s")
    assert "/s" not in out.getvalue()
