"""`--date now | DATE | DATE-TIME` with `--tz`, and coins that take the current moment (docs/cli.md#when).

The clock is fixed (loaders.moment.now replaced): no test depends on today's date. At the fixed moment,
2024-03-06T01:02:03Z = 09:02:03 in Taipei, the pillars are 甲辰年 丁卯月 己巳日 己巳時.
"""
from __future__ import annotations

import datetime as dt
import json

import pytest

from liuyao_kg.cli import main
from liuyao_kg.loaders import moment

FIXED = dt.datetime(2024, 3, 6, 1, 2, 3, tzinfo=dt.timezone.utc)
COINS = ["--coins", "HHT,HTT,TTT,HHH,HTH,THH"]


@pytest.fixture(autouse=True)
def clock(monkeypatch):
    monkeypatch.setattr(moment, "now", lambda zone: FIXED.astimezone(zone))


def chart_of(capsys, *argv) -> tuple[dict, str]:
    code = main(["cast", *argv, "--format", "json", "--lang", "en"])  # the notes on stderr in English
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out), err


def pillars(chart: dict) -> tuple:
    def gz(p):
        return p and (p["stem"] or "") + p["branch"]
    return gz(chart["year"]), gz(chart["month"]), gz(chart["day"]), gz(chart["hour"])


def test_coins_without_a_time_are_cast_now_and_say_so(capsys):
    chart, err = chart_of(capsys, *COINS, "--tz", "Asia/Taipei")
    assert pillars(chart) == ("甲辰", "丁卯", "己巳", "己巳")
    assert "cast at 2024-03-06T09:02:03+08:00 (now" in err


def test_a_random_cast_without_a_time_is_cast_now(capsys):
    chart, _ = chart_of(capsys, "--random", "--seed", "7", "--tz", "+08:00")
    assert pillars(chart) == ("甲辰", "丁卯", "己巳", "己巳")


def test_coins_with_a_month_and_day_take_those_and_not_the_clock(capsys):
    chart, err = chart_of(capsys, *COINS, "--month", "寅", "--day", "辛亥")
    assert pillars(chart) == (None, "寅", "辛亥", None) and "cast at" not in err


def test_a_spec_without_a_time_stays_time_independent(capsys):
    chart, err = chart_of(capsys, "節之中孚")
    assert pillars(chart) == (None, None, None, None) and "cast at" not in err


def test_date_now_reads_the_clock_in_the_zone(capsys):
    chart, err = chart_of(capsys, "節之中孚", "--date", "now", "--tz", "Asia/Tokyo")
    assert pillars(chart)[2] == "己巳" and "cast at 2024-03-06T10:02:03+09:00" in err


def test_a_date_alone_is_the_days_pillars_without_an_hour(capsys):
    chart, _ = chart_of(capsys, "節之中孚", "--date", "2024-03-06", "--tz", "Asia/Taipei")
    assert pillars(chart) == ("甲辰", "丁卯", "己巳", None)


def test_a_wall_clock_time_is_read_in_the_zone(capsys):
    # 23:30 on 03-05 in New York is 12:30 on 03-06 in UTC+8, where the calendar reads the day: 己巳, 午時
    chart, _ = chart_of(capsys, "節之中孚", "--date", "2024-03-05T23:30", "--tz", "America/New_York")
    assert pillars(chart) == ("甲辰", "丁卯", "己巳", "庚午")


def test_a_date_time_with_an_offset_keeps_it_whatever_the_zone(capsys):
    given, _ = chart_of(capsys, "節之中孚", "--date", "2024-03-06T09:02+08:00", "--tz", "America/New_York")
    plain, _ = chart_of(capsys, "節之中孚", "--date", "2024-03-06T09:02+08:00")
    assert given["cast"] == plain["cast"]


@pytest.mark.parametrize("argv, problem", [
    (["節", "--date", "2024-03-05", "--tz", "Asia/Taipei"], "is the day of 驚蟄"),
    (["節", "--date", "now", "--tz", "Asia/Taipe"], "did you mean Asia/Taipei"),
    (["節", "--date", "yesterday"], "not an ISO 8601 date-time"),
    (["節", "--date", "2024-02-30"], "not a calendar date"),
    (["節", "--tz", "+08:00"], "--tz reads --date"),
    (["節", "--date", "2024-03-10T02:30", "--tz", "America/New_York"], "the clocks skipped it"),
])
def test_a_bad_date_or_zone_exits_2_naming_the_problem(capsys, argv, problem):
    code = main(["cast", *argv, "--lang", "en"])
    _, err = capsys.readouterr()
    assert code == 2 and problem in err and err.startswith("liuyao: error: ")


def test_why_takes_the_same_moment(capsys):
    code = main(["why", *COINS, "--tz", "Asia/Taipei", "--line", "1", "--format", "json", "--lang", "en"])
    _, err = capsys.readouterr()
    assert code == 0 and "cast at 2024-03-06T09:02:03+08:00" in err
