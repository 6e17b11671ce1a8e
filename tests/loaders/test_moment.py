"""When a cast was made, as typed: a date alone (the day's pillars), `now`, a wall-clock time in a zone.

Solar terms (lunar-python, UTC+8): 立春 2024-02-04 16:27:07 (the month 乙丑 → 丙寅, the year 癸卯 → 甲辰),
驚蟄 2024-03-05 10:22:45 (丙寅 → 丁卯). 2024-03-06 is a 己巳 day.
"""
from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from liuyao_kg.loaders import AmbiguousDay, BadDate, LocalDay, make_cast_input, pillars_for
from liuyao_kg.loaders import moment
from liuyao_kg.loaders.moment import parse_zone, when

TAIPEI, NEW_YORK = ZoneInfo("Asia/Taipei"), ZoneInfo("America/New_York")


def test_a_date_alone_gives_the_days_pillars_and_no_hour_or_instant():
    day = pillars_for("2024-03-06")
    assert (day.month_gz, day.day_gz, day.year_gz) == ("丁卯", "己巳", "甲辰")
    assert day.hour_gz == "" and day.cast_at is None


def test_a_date_alone_is_the_same_cast_as_its_pillars_given_by_name():
    by_date = make_cast_input("節之中孚", date="2024-03-06")
    by_pillars = make_cast_input("節之中孚", month="丁卯", day="己巳", year="甲辰")
    assert by_date.iri == by_pillars.iri and by_date.hour_gz is None


def test_the_day_pillar_of_a_date_is_its_own_whatever_the_zone_or_day_boundary():
    for zone in (TAIPEI, NEW_YORK, ZoneInfo("Pacific/Kiritimati")):
        for boundary in ("00:00", "23:00"):
            assert pillars_for(LocalDay(dt.date(2024, 3, 6), zone), day_boundary=boundary).day_gz == "己巳"


def test_a_date_on_which_a_term_turns_the_month_is_refused_naming_the_term_and_its_time():
    with pytest.raises(AmbiguousDay) as ei:
        pillars_for("2024-03-05")
    message = str(ei.value)
    assert "驚蟄" in message and "丙寅 to 丁卯" in message and "2024-03-05T10:22:45+08:00" in message
    assert ei.value.field == "date"


def test_on_lichun_the_refusal_says_the_year_turns_too():
    with pytest.raises(AmbiguousDay, match="立春.*and the year from 癸卯 to 甲辰"):
        pillars_for("2024-02-04")


def test_a_month_given_beside_a_term_day_chooses_its_side():
    assert make_cast_input("節", date="2024-03-05", month="寅").month_gz == "丙寅"
    assert make_cast_input("節", date="2024-03-05", month="卯").month_gz == "丁卯"
    with pytest.raises(AmbiguousDay):
        make_cast_input("節", date="2024-03-05", month="辰")


def test_whether_a_term_falls_on_a_date_depends_on_the_dates_zone():
    # 驚蟄 at 10:22:45 UTC+8 is 21:22:45 on 03-04 in New York: there 03-05 is wholly 丁卯, 03-04 the term's day
    assert pillars_for(LocalDay(dt.date(2024, 3, 5), NEW_YORK)).month_gz == "丁卯"
    with pytest.raises(AmbiguousDay, match="2024-03-04T21:22:45-05:00"):
        pillars_for(LocalDay(dt.date(2024, 3, 4), NEW_YORK))


@pytest.mark.parametrize("bad, problem", [("2024-02-30", "not a calendar date"), ("2024-13-01", "not a calendar date")])
def test_a_malformed_date_alone_names_it(bad, problem):
    with pytest.raises(BadDate, match=problem) as ei:
        pillars_for(bad)
    assert bad in str(ei.value)


def test_now_is_the_clock_in_the_zone(monkeypatch):
    fixed = dt.datetime(2024, 3, 6, 1, 2, 3, tzinfo=dt.timezone.utc)
    monkeypatch.setattr(moment, "now", lambda zone: fixed.astimezone(zone))
    assert when("now", TAIPEI).isoformat() == "2024-03-06T09:02:03+08:00"
    assert when(" NOW ", parse_zone("+05:30")).isoformat() == "2024-03-06T06:32:03+05:30"


def test_the_real_clock_is_aware_and_to_the_second():
    taken = moment.now(TAIPEI)
    assert taken.utcoffset() == dt.timedelta(hours=8) and taken.microsecond == 0


def test_a_wall_clock_time_is_read_in_the_zone_and_an_explicit_offset_is_kept():
    assert when("2024-02-04T16:28", TAIPEI).isoformat() == "2024-02-04T16:28:00+08:00"
    assert when("2024-07-01T09:00", NEW_YORK).utcoffset() == dt.timedelta(hours=-4)  # daylight saving
    assert when("2024-02-04T16:28+09:00", TAIPEI).isoformat() == "2024-02-04T16:28:00+09:00"
    assert when("2024-02-04", NEW_YORK) == LocalDay(dt.date(2024, 2, 4), NEW_YORK)


def test_without_a_zone_the_machines_own_rules_apply(monkeypatch):
    import time

    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        assert when("2024-01-15T12:00").utcoffset() == dt.timedelta(hours=-5)
        assert when("2024-07-15T12:00").utcoffset() == dt.timedelta(hours=-4)
        with pytest.raises(BadDate, match="does not exist in this machine's time zone"):
            when("2024-03-10T02:30")
    finally:
        monkeypatch.undo()
        time.tzset()


def test_a_time_the_clocks_skipped_is_refused():
    with pytest.raises(BadDate, match="does not exist in America/New_York"):
        when("2024-03-10T02:30", NEW_YORK)


def test_a_time_the_clocks_showed_twice_is_refused_naming_both_offsets():
    with pytest.raises(BadDate, match="happened twice.*-04:00 or -05:00"):
        when("2024-11-03T01:30", NEW_YORK)


@pytest.mark.parametrize("text, offset", [("+08:00", 8 * 60), ("+0800", 8 * 60), ("UTC+8", 8 * 60),
                                          ("GMT-5", -5 * 60), ("-03:30", -(3 * 60 + 30)), ("Z", 0), ("UTC", 0)])
def test_offsets_are_read_as_fixed_zones(text, offset):
    assert parse_zone(text).utcoffset(None) == dt.timedelta(minutes=offset)


def test_local_or_no_zone_means_the_machines():
    assert parse_zone(None) is None and parse_zone("local") is None


@pytest.mark.parametrize("text, problem", [
    ("Asia/Taipe", "did you mean Asia/Taipei"), ("asia/taipei", "did you mean Asia/Taipei"),
    ("Mars/Olympus", "unknown time zone 'Mars/Olympus'"), ("../../etc/passwd", "unknown time zone"),
    ("", "unknown time zone ''"), ("+15:00", "at most ±14:00"), ("+08:75", "minutes 00–59"),
])
def test_a_bad_zone_names_the_problem(text, problem):
    with pytest.raises(BadDate, match=problem) as ei:
        parse_zone(text)
    assert ei.value.field == "tz"
