"""A zoned date-time → the month, day and year pillars of a cast.

Conventions (docs: /work/shared/DOMAIN.md):

* the input is ISO 8601 **with** a time-zone offset (``2024-02-04T16:28:00+08:00``, ``…Z``); a naive
  date-time is rejected (:class:`BadDate`), because the solar-term boundaries are instants;
* it is converted to UTC+8 first: lunar-python's tables are in China Standard Time;
* 月建 follows the solar terms exactly (``getMonthInGanZhiExact``: 寅 month from 立春, to the second);
* the year turns at 立春 exactly (``getYearInGanZhiExact``);
* the day turns at 00:00 (``day_boundary="00:00"``, ``getDayInGanZhiExact2``) or at 23:00
  (``"23:00"``, the 子 hour, ``getDayInGanZhiExact``), both in UTC+8;
* a date alone (``2024-02-04``, a ``datetime.date``, a :class:`LocalDay`) is the day's pillars, as a practitioner
  who noted only the day writes them: the date's own day stem-branch, its month and year, no hour pillar and no
  instant (so no calendar dates of 應期). On the day a 節 turns the month (and 立春 the year) the date alone does
  not say which side of it the cast fell: :class:`AmbiguousDay` names the term and its time, and a month given
  beside the date chooses. A date's day runs from midnight to midnight in its zone (UTC+8 unless a
  :class:`LocalDay` says otherwise).
"""
from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass

from .errors import AmbiguousDay, BadDate

__all__ = ["CalendarPillars", "LocalDay", "parse_iso", "parse_datetime", "pillars_for", "DAY_BOUNDARIES", "UTC8"]

UTC8 = _dt.timezone(_dt.timedelta(hours=8), "UTC+8")
DAY_BOUNDARIES = ("00:00", "23:00")


@dataclass(frozen=True)
class CalendarPillars:
    """The pillars of one instant, or of one day. ``cast_at`` is the input instant in its own offset (xsd:dateTime
    form); None for a day."""

    month_branch: str
    month_gz: str
    day_gz: str
    year_gz: str
    cast_at: str | None
    local: _dt.datetime | None  # the instant in UTC+8; None for a day
    #: 時辰: branch by the UTC+8 hour (子 from 23:00), stem by 五鼠遁 from the day that 子 hour begins (lunar-python)
    hour_gz: str = ""


@dataclass(frozen=True)
class LocalDay:
    """A date without a time of day, in the zone its midnight-to-midnight is reckoned in (None: this machine's)."""

    day: _dt.date
    zone: _dt.tzinfo | None = UTC8

    def __str__(self) -> str:
        return self.day.isoformat()

    def midnight(self, offset_days: int = 0) -> _dt.datetime:
        naive = _dt.datetime.combine(self.day + _dt.timedelta(days=offset_days), _dt.time())
        return naive.astimezone() if self.zone is None else naive.replace(tzinfo=self.zone)


def parse_iso(value) -> _dt.datetime | _dt.date:
    """An ISO 8601 date-time (with or without an offset) or a date alone, checked → a ``datetime`` (naive when
    it had no offset) or a ``date``."""
    if isinstance(value, _dt.date):
        return value
    if not isinstance(value, str):
        raise BadDate(f"date {value!r} is not an ISO 8601 date-time string", field="date", value=value)
    text = value.strip()
    if not text:
        raise BadDate("empty date: give an ISO 8601 date-time with a time zone offset, "
                      "e.g. 2024-02-04T16:28:00+08:00", field="date", value=value)
    text = text.translate(_FULL_WIDTH)
    if _DATE_ONLY.fullmatch(text):  # before the offset's check, which would read 2024-02-30's "-30" as one
        try:
            return _dt.date.fromisoformat(text)
        except ValueError:
            raise BadDate(f"date {value!r} is not a calendar date: expected e.g. 2024-02-04",
                          field="date", value=value) from None
    _check_offset(value, text)
    try:
        return _dt.datetime.fromisoformat(text)
    except ValueError:
        raise BadDate(f"date {value!r} is not an ISO 8601 date-time: expected e.g. "
                      "2024-02-04T16:28:00+08:00", field="date", value=value) from None


def parse_datetime(value) -> _dt.datetime:
    """ISO 8601 date-time with an offset (or an aware ``datetime``) → aware ``datetime``: an instant."""
    dt = parse_iso(value)
    if not isinstance(dt, _dt.datetime):
        raise BadDate(f"date {dt.isoformat()!r} has no time of day: give a date-time with a time zone "
                      f"offset, e.g. {dt.isoformat()}T12:00:00+08:00", field="date", value=value)
    if dt.tzinfo is None or dt.utcoffset() is None:
        raise BadDate(f"date {value!r} needs a time zone offset (e.g. +08:00 or Z): the month turns at an "
                      "instant, so a local time alone is ambiguous", field="date", value=value)
    return dt


_DATE_ONLY = re.compile(r"\d{4}-?\d{2}-?\d{2}", re.ASCII)
_FULL_WIDTH = {0xFF10 + i: str(i) for i in range(10)}  # ０–９ as typed by a CJK input method
#: a trailing zone offset: Z, or ±HH, ±HHMM, ±HH:MM, with what follows it (seconds) caught to refuse them
_OFFSET = re.compile(r"(?:[Zz]|(?<=\d)([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}(?:\.\d+)?))?)\Z", re.ASCII)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _check_offset(value, text: str) -> None:
    """Refuse what datetime.fromisoformat silently accepts: offset minutes of 60 or more (+08:99 became
    +09:39), offset seconds, offsets beyond ±14:00 (no zone is further from UTC), non-ASCII characters, and
    control characters (it reads past a trailing NUL, which hid the offset from this check)."""
    if not text.isascii():
        raise BadDate(f"date {value!r} has characters other than ASCII digits, '-', ':', 'T' and the offset",
                      field="date", value=value)
    control = _CONTROL.search(text)
    if control:
        code = ord(control.group())
        raise BadDate(f"date {value!r} has a {'NUL character' if code == 0 else 'control character'} "
                      f"(U+{code:04X}): give an ISO 8601 date-time, e.g. 2024-02-04T16:28:00+08:00",
                      field="date", value=value)
    m = _OFFSET.search(text)
    if m is None or not m.group(1):
        return  # no offset (refused below as zone-less) or Z
    sign, hours, minutes, seconds = m.groups()
    if seconds is not None:
        raise BadDate(f"date {value!r}: a time zone offset is hours and minutes (e.g. +08:00), not seconds",
                      field="date", value=value)
    if minutes is not None and int(minutes) >= 60:
        raise BadDate(f"date {value!r}: offset minutes {minutes} must be 00–59", field="date", value=value)
    if int(hours) * 60 + int(minutes or 0) > 14 * 60:
        raise BadDate(f"date {value!r}: offset {sign}{hours}:{minutes or '00'} is beyond ±14:00, the furthest any "
                      f"time zone is from UTC", field="date", value=value)


def _check_boundary(day_boundary) -> str:
    if day_boundary not in DAY_BOUNDARIES:
        raise BadDate(f"day_boundary {day_boundary!r}: must be \"00:00\" (midnight) or \"23:00\" (子 hour)",
                      field="day_boundary", value=day_boundary)
    return day_boundary


def pillars_for(value, *, day_boundary: str = "00:00") -> CalendarPillars:
    """Month branch, month / day / year stem-branches of a zoned instant, or of a day (see the module's notes)."""
    _check_boundary(day_boundary)
    day = value if isinstance(value, LocalDay) else None
    if day is None and not isinstance(value, _dt.datetime):
        parsed = parse_iso(value)
        day = LocalDay(parsed) if not isinstance(parsed, _dt.datetime) else None
    if day is not None:
        return _day_pillars(day, value if isinstance(value, str) else str(day), day_boundary)
    dt = parse_datetime(value)
    from lunar_python import Solar  # only a cast given by its date needs the calendar (slow to import: benchmarks/cold_start.py)

    try:
        local = dt.astimezone(UTC8)
        solar = Solar.fromYmdHms(local.year, local.month, local.day, local.hour, local.minute, local.second)
        lunar = solar.getLunar()
        month_gz = lunar.getMonthInGanZhiExact()
        day_gz = lunar.getDayInGanZhiExact2() if day_boundary == "00:00" else lunar.getDayInGanZhiExact()
        year_gz = lunar.getYearInGanZhiExact()
        hour_gz = lunar.getTimeInGanZhi()
    except Exception as exc:  # out of the datetime or the library's table range
        raise BadDate(f"date {value!r} is outside the calendar tables: {exc}", field="date", value=value) from None
    return CalendarPillars(month_branch=month_gz[1], month_gz=month_gz, day_gz=day_gz, year_gz=year_gz,
                           cast_at=dt.isoformat(), local=local, hour_gz=hour_gz)


def _day_pillars(day: LocalDay, value, day_boundary: str) -> CalendarPillars:
    """A day's pillars: its own stem-branch, and the month and year of its first and last second, which differ
    only on the day a 節 falls."""
    try:
        first, last = day.midnight(), day.midnight(1) - _dt.timedelta(seconds=1)
    except (OverflowError, ValueError) as exc:
        raise BadDate(f"date {value!r} is outside the calendar tables: {exc}", field="date", value=value) from None
    early, late = (pillars_for(t, day_boundary=day_boundary) for t in (first, last))
    from lunar_python import Solar

    day_gz = Solar.fromYmd(day.day.year, day.day.month, day.day.day).getLunar().getDayInGanZhi()
    sides = tuple(CalendarPillars(month_branch=p.month_branch, month_gz=p.month_gz, day_gz=day_gz,
                                  year_gz=p.year_gz, cast_at=None, local=None) for p in (early, late))
    if (early.month_gz, early.year_gz) == (late.month_gz, late.year_gz):
        return sides[0]
    jie = Solar.fromYmdHms(*(getattr(late.local, f) for f in ("year", "month", "day", "hour", "minute", "second"))
                           ).getLunar().getPrevJie(False)
    s = jie.getSolar()
    at = _dt.datetime(s.getYear(), s.getMonth(), s.getDay(), s.getHour(), s.getMinute(), s.getSecond(),
                      tzinfo=UTC8).astimezone(first.tzinfo)
    year = f" (and the year from {early.year_gz} to {late.year_gz})" if early.year_gz != late.year_gz else ""
    raise AmbiguousDay(
        f"date {day.day.isoformat()} is the day of {_hant(jie.getName())}: the month turns from {early.month_gz} "
        f"to {late.month_gz}{year} at {at.isoformat(timespec='seconds')}; give the time of the cast "
        f"({day.day.isoformat()}THH:MM) or its month ({early.month_branch} or "
        f"{late.month_branch})", sides=sides, field="date", value=value)


def _hant(name: str) -> str:
    """A solar term's name in traditional characters (lunar-python names them in simplified: 惊蛰 → 驚蟄)."""
    from opencc import OpenCC

    return OpenCC("s2t").convert(name)
