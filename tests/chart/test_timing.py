"""The next day / month / year with a branch (liuyao_kg.chart.timing) against lunar-python's own pillars, at the
solar-term boundary (立春 2024 to the minute), across a Gregorian year end and in another time zone."""
from __future__ import annotations

import datetime as dt

import pytest
from lunar_python import Solar

from liuyao_kg.chart.timing import BRANCHES, next_dates

CST = dt.timezone(dt.timedelta(hours=8))


def day_branch(d: dt.date) -> str:
    return Solar.fromYmdHms(d.year, d.month, d.day, 12, 0, 0).getLunar().getDayZhiExact2()


def month_branch(t: dt.datetime) -> str:
    t = t.astimezone(CST)
    return Solar.fromYmdHms(t.year, t.month, t.day, t.hour, t.minute, 0).getLunar().getMonthZhiExact()


def year_branch(t: dt.datetime) -> str:
    t = t.astimezone(CST)
    return Solar.fromYmdHms(t.year, t.month, t.day, t.hour, t.minute, 0).getLunar().getYearZhiExact()


@pytest.mark.parametrize("branch", list(BRANCHES))
def test_next_days_are_the_first_days_after_the_cast_with_that_branch(branch):
    cast = dt.datetime(2026, 12, 25, 9, 0, tzinfo=CST)  # crosses the Gregorian year end
    dates = [dt.date.fromisoformat(d) for d in next_dates(cast.isoformat(), branch, "日")]
    assert [day_branch(d) for d in dates] == [branch] * 3
    between = [cast.date() + dt.timedelta(days=i) for i in range(1, (dates[0] - cast.date()).days)]
    assert branch not in {day_branch(d) for d in between}
    assert dates[1] - dates[0] == dates[2] - dates[1] == dt.timedelta(days=12)


def test_the_cast_day_itself_is_not_the_next_day_of_its_branch():
    cast = dt.datetime(2026, 12, 1, 12, 0, tzinfo=CST)
    today = day_branch(cast.date())
    assert next_dates(cast.isoformat(), today, "日")[0] == (cast.date() + dt.timedelta(days=12)).isoformat()


@pytest.mark.parametrize("branch", list(BRANCHES))
def test_next_month_starts_on_the_day_its_solar_term_turns_the_month(branch):
    cast = dt.datetime(2026, 11, 20, 12, 0, tzinfo=CST)
    first = dt.date.fromisoformat(next_dates(cast.isoformat(), branch, "月", count=1)[0])
    end_of_day = dt.datetime(first.year, first.month, first.day, 23, 59, tzinfo=CST)
    day_before = end_of_day - dt.timedelta(days=1)
    assert month_branch(end_of_day) == branch and month_branch(day_before) != branch
    assert first > cast.date()


def test_li_chun_2024_on_either_side_of_the_minute():
    # 立春 2024: 2024-02-04 16:27 UTC+8 (lunar-python). One minute before it the 寅 month is still ahead.
    before, after = "2024-02-04T16:26:00+08:00", "2024-02-04T16:28:00+08:00"
    assert month_branch(dt.datetime.fromisoformat(before)) == "丑"
    assert month_branch(dt.datetime.fromisoformat(after)) == "寅"
    assert next_dates(before, "寅", "月", count=1) == ["2024-02-04"]
    assert next_dates(after, "寅", "月", count=1) == ["2025-02-03"]
    assert next_dates(before, "辰", "年", count=1) == ["2024-02-04"]   # 甲辰 starts at that 立春
    assert next_dates(after, "辰", "年", count=1) == ["2036-02-04"]


def test_the_boundary_is_an_instant_whatever_the_zone():
    # 16:26 in UTC+8 is 08:26 UTC: still before 立春
    assert next_dates("2024-02-04T08:26:00+00:00", "寅", "月", count=1) == ["2024-02-04"]
    assert next_dates("2024-02-04T08:28:00+00:00", "寅", "月", count=1) == ["2025-02-03"]


@pytest.mark.parametrize("branch", list(BRANCHES))
def test_next_years_begin_at_li_chun_with_that_branch(branch):
    cast = "2026-12-01T12:00:00+08:00"
    dates = next_dates(cast, branch, "年")
    for d in map(dt.date.fromisoformat, dates):
        noon_after = dt.datetime(d.year, d.month, d.day, 23, 59, tzinfo=CST)
        assert year_branch(noon_after) == branch
        assert year_branch(noon_after - dt.timedelta(days=1)) != branch
    years = [int(d[:4]) for d in dates]
    assert years[1] - years[0] == years[2] - years[1] == 12 and years[0] >= 2027


def test_a_bad_branch_or_unit_is_refused():
    with pytest.raises(ValueError, match="not one of the twelve branches"):
        next_dates("2026-12-01T12:00:00+08:00", "甲", "日")
    with pytest.raises(ValueError, match="unit"):
        next_dates("2026-12-01T12:00:00+08:00", "子", "週")
