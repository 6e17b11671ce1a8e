"""Calendar dates of a timing candidate: the next day, month (by the solar terms) or year with a given branch.

The reading's timing rules give branches (rules/reading.ttl); this turns a branch and a unit into the next
dates after the cast, with lunar-python, in China Standard Time (UTC+8), as loaders/calendar.py reads
pillars: a day's branch by its civil date (00:00 boundary), a month from its 節 (立春 starts 寅 … 小寒 starts
丑) to the minute, a year from 立春. "After the cast" is strict: the cast's own day, month or year is not next.
"""
from __future__ import annotations

import datetime as _dt
from functools import lru_cache
from typing import TYPE_CHECKING

from liuyao_kg.loaders.calendar import UTC8, parse_datetime

if TYPE_CHECKING:
    from lunar_python import Solar

BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
#: the twelve 節 that open the months, by the branch of the month they open (lunar-python spells them simplified)
JIE_BRANCH = {"立春": "寅", "惊蛰": "卯", "驚蟄": "卯", "清明": "辰", "立夏": "巳", "芒种": "午", "芒種": "午",
              "小暑": "未", "立秋": "申", "白露": "酉", "寒露": "戌", "立冬": "亥", "大雪": "子", "小寒": "丑"}
UNITS = ("日", "月", "年")


def _check(branch: str, unit: str) -> None:
    if branch not in BRANCHES or len(branch) != 1:
        raise ValueError(f"{branch!r} is not one of the twelve branches {BRANCHES}")
    if unit not in UNITS:
        raise ValueError(f"unit {unit!r}: must be one of {', '.join(UNITS)}")


def _lunar_solar():
    """lunar-python's Solar, imported when a dated cast needs it (an undated chart never does)."""
    from lunar_python import Solar

    return Solar


def _solar(dt: _dt.datetime) -> Solar:
    return _lunar_solar().fromYmdHms(dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second)


def _date_of(solar: Solar) -> str:
    return f"{solar.getYear():04d}-{solar.getMonth():02d}-{solar.getDay():02d}"


def next_dates(after, branch: str, unit: str, count: int = 3) -> list[str]:
    """ISO dates (UTC+8) of the next `count` days / months / years with `branch` strictly after the instant `after`.

    A month's date is the day its 節 falls on, a year's the day of its 立春."""
    _check(branch, unit)
    local = parse_datetime(after).astimezone(UTC8)
    if unit == "日":
        today = _day_index(local.date())
        step = (BRANCHES.index(branch) - today) % 12 or 12
        first = local.date() + _dt.timedelta(days=step)
        return [(first + _dt.timedelta(days=12 * i)).isoformat() for i in range(count)]
    out: list[str] = []
    if unit == "年":  # 立春 of the Gregorian years of that branch (甲子: 1984, 2044 …) from the cast's on, after it
        year = local.year + (BRANCHES.index(branch) - (local.year - 4)) % 12
        while len(out) < count:
            at = _li_chun(year)
            if _after(at, local):
                out.append(_date_of(at))
            year += 12
        return out
    for months in range(12, 12 * (count + 1) + 1, 12):  # the 節 ahead, a year more at a time until enough
        out = [_date_of(at) for name, at in _jie_after(local, months) if JIE_BRANCH[name] == branch]
        if len(out) >= count:
            return out[:count]
    return out


@lru_cache(maxsize=256)
def _day_index(day: _dt.date) -> int:
    """Index of the day's branch (lunar-python is slow to ask, so once per date)."""
    return BRANCHES.index(_lunar_solar().fromYmdHms(day.year, day.month, day.day, 12, 0, 0).getLunar().getDayZhiExact2())


@lru_cache(maxsize=256)
def _li_chun(year: int) -> Solar:
    return _lunar_solar().fromYmd(year, 1, 20).getLunar().getNextJie(False).getSolar()  # 立春, early February


@lru_cache(maxsize=64)
def _jie_after(local: _dt.datetime, months: int) -> tuple:
    """The next `months` 節 strictly after the instant: (name, Solar) pairs."""
    out, cursor = [], _solar(local)
    while len(out) < months:
        jie = cursor.getLunar().getNextJie(False)  # the next 節 strictly after the cursor instant
        out.append((jie.getName(), jie.getSolar()))
        cursor = jie.getSolar().next(1)  # one day on: past this 節
    return tuple(out)


def _after(solar: Solar, local: _dt.datetime) -> bool:
    return _dt.datetime(solar.getYear(), solar.getMonth(), solar.getDay(), solar.getHour(), solar.getMinute(),
                        solar.getSecond(), tzinfo=UTC8) > local


def cast_day(after) -> str:
    """The cast's own date (UTC+8): the date of an answer "at once" (應驗當下)."""
    return parse_datetime(after).astimezone(UTC8).date().isoformat()
