"""Terminal tables (`liuyao query`, `liuyao rules coverage`): columns by display width (CJK counts 2), IRIs by
prefixed or local names unless --iris, never wider than the terminal where a column can be cut (cells end in …)."""
from __future__ import annotations

import pytest

from liuyao_kg.chart.table import display_width, table, terminal_width
from liuyao_kg.cli import main

ROWS = [{"term": "SixClashHexagram", "work": "天玄賦", "rule": "https://w3id.org/liuyao-kg/rule/Foo", "n": 7},
        {"term": "MonthBroken", "work": "易冒", "rule": "https://w3id.org/liuyao-kg/cast/badf40c86ea611f9", "n": 123}]


def starts(line: str, cell: str) -> int:
    """The display column where `cell` begins in `line`."""
    return display_width(line[:line.index(cell)])


def test_columns_line_up_by_display_width_not_code_points():
    head, first, second = table(ROWS).splitlines()
    assert starts(first, "lyrule:") == starts(second, "badf40") == starts(head, "rule")


def test_iris_are_prefixed_or_local_names_unless_asked_whole():
    text = table(ROWS)
    assert "lyrule:Foo" in text and "badf40c86ea611f9" in text and "https://" not in text
    assert "https://w3id.org/liuyao-kg/rule/Foo" in table(ROWS, iris=True)


def test_numbers_are_right_aligned():
    _, first, second = table(ROWS).splitlines()
    assert first.endswith("  7") and second.endswith("123")


@pytest.mark.parametrize("width", [40, 60, 80])
def test_a_table_is_cut_to_the_width_widest_columns_first(width):
    rows = [{"id": "a", "quote": "卦值六沖，半世求謀蹭蹬；子午卯酉之類，為六沖" * 3, "note": "standard convention " * 4}]
    lines = table(rows, width=width).splitlines()
    assert max(map(display_width, lines)) <= width
    assert lines[1].startswith("a  ") and "…" in lines[1]


def test_a_line_break_in_a_cell_does_not_break_the_table():
    assert len(table([{"quote": "one\ntwo"}]).splitlines()) == 2


def test_columns_set_the_width_and_a_pipe_gets_whole_cells(monkeypatch):
    monkeypatch.setenv("COLUMNS", "72")
    assert terminal_width() == 72
    monkeypatch.delenv("COLUMNS")
    assert terminal_width(open("/dev/null", "w")) is None


def test_query_fits_the_terminal_and_keeps_iris_with_the_flag(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["query", "passages-for-term", "--param", "term=SixClashHexagram"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(map(display_width, lines)) <= 80 and any("lyp:" in ln for ln in lines)
    assert not any("https:" in ln for ln in lines)
    assert main(["query", "passages-for-term", "--param", "term=SixClashHexagram", "--iris"]) == 0
    assert "https://w3id.org/liuyao-kg/passage/SixClashHexagram" in capsys.readouterr().out


def test_rules_coverage_lines_up_cjk_chapters(capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    assert main(["rules", "coverage"]) == 0
    lines = capsys.readouterr().out.split("\n\n")[0].splitlines()
    ends = {display_width(ln) for ln in lines}  # the last column right-aligned: every row ends at one column
    assert len(ends) == 1 and any("章" in ln for ln in lines) and lines[-1].startswith("合計")
