"""Calendar: a zoned instant → month (solar terms, exact), day (00:00 or 23:00) and year (立春) pillars.

立春 2024 falls at 2024-02-04 16:27:07 UTC+8 (lunar-python tables).
"""
from __future__ import annotations

import datetime as dt

import pytest

from liuyao_kg.loaders import BadDate, make_cast_input, parse_datetime, pillars_for


def test_month_turns_at_lichun_to_the_minute():
    before = pillars_for("2024-02-04T16:26:00+08:00")
    after = pillars_for("2024-02-04T16:28:00+08:00")
    assert (before.month_branch, before.month_gz) == ("丑", "乙丑")
    assert (after.month_branch, after.month_gz) == ("寅", "丙寅")


def test_month_turns_at_lichun_to_the_second():
    assert pillars_for("2024-02-04T16:27:06+08:00").month_branch == "丑"
    assert pillars_for("2024-02-04T16:27:07+08:00").month_branch == "寅"


def test_year_turns_at_lichun_not_at_the_lunar_new_year():
    assert pillars_for("2024-02-04T16:26:00+08:00").year_gz == "癸卯"
    assert pillars_for("2024-02-04T16:28:00+08:00").year_gz == "甲辰"
    # lunar new year 2024 is 02-10: between 立春 and it the year is already 甲辰
    assert pillars_for("2024-02-08T12:00:00+08:00").year_gz == "甲辰"


def test_same_instant_in_another_zone_gives_the_same_pillars():
    for local, utc in [("2024-02-04T16:28:00+08:00", "2024-02-04T08:28:00Z"),
                       ("2024-02-04T16:26:00+08:00", "2024-02-04T08:26:00+00:00"),
                       ("2024-02-04T16:28:00+08:00", "2024-02-04T17:28:00+09:00"),
                       ("2024-02-04T16:28:00+08:00", "2024-02-04T03:28:00-05:00")]:
        a, b = pillars_for(local), pillars_for(utc)
        assert (a.month_gz, a.day_gz, a.year_gz) == (b.month_gz, b.day_gz, b.year_gz)


def test_zone_conversion_can_move_the_day():
    # 2024-02-04T20:00-05:00 is 2024-02-05T09:00 UTC+8: already the next day (己亥)
    assert pillars_for("2024-02-04T20:00:00-05:00").day_gz == "己亥"
    assert pillars_for("2024-02-04T20:00:00+08:00").day_gz == "戊戌"


def test_day_turns_at_midnight_by_default():
    assert pillars_for("2024-02-04T23:59:00+08:00").day_gz == "戊戌"
    assert pillars_for("2024-02-05T00:00:00+08:00").day_gz == "己亥"


def test_day_boundary_2300_turns_the_day_at_the_zi_hour():
    assert pillars_for("2024-02-04T22:59:00+08:00", day_boundary="23:00").day_gz == "戊戌"
    assert pillars_for("2024-02-04T23:00:00+08:00", day_boundary="23:00").day_gz == "己亥"
    assert pillars_for("2024-02-05T00:30:00+08:00", day_boundary="23:00").day_gz == "己亥"
    assert pillars_for("2024-02-04T23:00:00+08:00", day_boundary="00:00").day_gz == "戊戌"


def test_day_boundary_is_taken_in_utc8():
    # 15:00Z is 23:00 UTC+8
    assert pillars_for("2024-02-04T15:00:00Z", day_boundary="23:00").day_gz == "己亥"
    assert pillars_for("2024-02-04T14:59:00Z", day_boundary="23:00").day_gz == "戊戌"


def test_bad_day_boundary_is_rejected():
    with pytest.raises(BadDate, match="day_boundary '12:00'") as ei:
        pillars_for("2024-02-04T16:28:00+08:00", day_boundary="12:00")
    assert ei.value.field == "day_boundary"


def test_naive_date_time_needs_a_time_zone_offset():
    with pytest.raises(BadDate, match="needs a time zone offset") as ei:
        pillars_for("2024-02-04T16:28:00")
    assert ei.value.field == "date" and ei.value.value == "2024-02-04T16:28:00"
    with pytest.raises(BadDate, match="needs a time zone offset"):
        pillars_for(dt.datetime(2024, 2, 4, 16, 28))


@pytest.mark.parametrize("bad", ["2024-13-01T00:00:00+08:00", "2024-02-30T10:00:00+08:00", "yesterday",
                                 "2024/02/04 16:28 +08:00", "2024-02-04T25:00:00+08:00",
                                 "2024-02-04T16:28:00+25:00"])
def test_malformed_date_is_rejected_naming_it(bad):
    with pytest.raises(BadDate, match="is not an ISO 8601 date-time|is beyond ±14:00") as ei:
        pillars_for(bad)
    assert bad in str(ei.value)


@pytest.mark.parametrize("bad", ["2024-02-04", dt.date(2024, 2, 4)])
def test_an_instant_needs_a_time_of_day(bad):
    with pytest.raises(BadDate, match="no time of day"):
        parse_datetime(bad)


def test_empty_and_non_string_dates_are_rejected():
    with pytest.raises(BadDate):
        pillars_for("")
    with pytest.raises(BadDate):
        pillars_for(20240204)


def test_aware_datetime_objects_are_accepted():
    d = dt.datetime(2024, 2, 4, 8, 28, tzinfo=dt.timezone.utc)
    assert pillars_for(d).month_gz == "丙寅"
    assert parse_datetime(d) is d


def test_cast_at_keeps_the_given_offset():
    assert pillars_for("2024-02-04T08:28:00Z").cast_at == "2024-02-04T08:28:00+00:00"
    assert pillars_for("2024-02-04T16:28+08:00").cast_at == "2024-02-04T16:28:00+08:00"


def test_cast_from_dates_in_two_zones_has_the_same_iri():
    a = make_cast_input("節", date="2024-02-04T16:28:00+08:00")
    b = make_cast_input("節", date="2024-02-04T08:28:00Z")
    assert a.iri == b.iri and a.cast_at != b.cast_at


@pytest.mark.parametrize("when, day_boundary, day, hour", [
    ("2024-02-04T16:28:00+08:00", "00:00", "戊戌", "庚申"),   # 戊 day: hours from 壬子 (五鼠遁)
    ("2024-02-04T00:30:00+08:00", "00:00", "戊戌", "壬子"),   # the early 子 hour of the 戊 day
    ("2024-02-04T23:30:00+08:00", "00:00", "戊戌", "甲子"),   # the 子 hour that begins the 己 day: 甲己還加甲
    ("2024-02-04T23:30:00+08:00", "23:00", "己亥", "甲子"),   # the same hour when the day turns at 23:00
    ("2024-02-04T08:28:00Z", "00:00", "戊戌", "庚申"),        # the same instant as the first, in UTC
])
def test_the_hour_pillar_follows_the_hour_and_the_day_stem(when, day_boundary, day, hour):
    cal = pillars_for(when, day_boundary=day_boundary)
    assert (cal.day_gz, cal.hour_gz) == (day, hour)
