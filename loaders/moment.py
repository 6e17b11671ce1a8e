"""When a cast was made, as a person types it: ``now``, a date, or a date-time, read in a time zone.

* ``now`` is the clock (:func:`now`, to the second) in the zone;
* a date alone (``2024-02-04``) is a :class:`~liuyao_kg.loaders.calendar.LocalDay`: the day's pillars, no hour
  pillar (loaders/calendar.py says why);
* a date-time without an offset (``2024-02-04T16:28``) is the wall clock in the zone; a time the clocks skipped
  or showed twice (daylight saving) is refused, naming the offsets to choose from;
* a date-time with an offset (``…+08:00``, ``…Z``) keeps it: the zone does not apply.

The zone (:func:`parse_zone`) is an IANA name (``Asia/Taipei``, by the standard library's zoneinfo), an offset
(``+08:00``, ``UTC+8``, ``Z``), or None / ``local``: this machine's zone, by the operating system's rules.
"""
from __future__ import annotations

import datetime as _dt
import re

from .calendar import LocalDay, parse_iso
from .errors import BadDate

__all__ = ["now", "parse_zone", "when"]

_OFFSET_ZONE = re.compile(r"(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?", re.ASCII | re.IGNORECASE)


def parse_zone(text: str | None) -> _dt.tzinfo | None:
    """A time zone as typed → a ``tzinfo``; None for this machine's own (None or ``local``)."""
    if text is None:
        return None
    t = text.strip()
    if t.lower() == "local":
        return None
    if t.upper() in ("Z", "UTC", "GMT"):
        return _dt.timezone.utc
    m = _OFFSET_ZONE.fullmatch(t)
    if m:
        sign, hours, minutes = m.group(1), int(m.group(2)), int(m.group(3) or 0)
        if minutes >= 60 or hours * 60 + minutes > 14 * 60:
            raise BadDate(f"time zone {text!r}: an offset is at most ±14:00, its minutes 00–59", field="tz",
                          value=text)
        return _dt.timezone((-1 if sign == "-" else 1) * _dt.timedelta(hours=hours, minutes=minutes))
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

    try:
        return ZoneInfo(t) if t and t.isascii() and t.isprintable() else _unknown_zone(text, [])
    except (ZoneInfoNotFoundError, ValueError, IsADirectoryError):
        import difflib

        names = {n.lower(): n for n in available_timezones()}
        near = difflib.get_close_matches(t.lower(), names, n=3, cutoff=0.6)
        return _unknown_zone(text, [names[n] for n in near])


def _unknown_zone(text: str, near: list[str]):
    hint = f" (did you mean {', '.join(near)}?)" if near else ""
    raise BadDate(f"unknown time zone {text!r}{hint}: give an IANA name (Asia/Taipei, Europe/Berlin), an offset "
                  "(+08:00, UTC-5) or local", field="tz", value=text)


def now(zone: _dt.tzinfo | None) -> _dt.datetime:
    """The clock, to the second, in `zone` (None: this machine's). Tests replace it to fix the moment."""
    moment = _dt.datetime.now(zone) if zone is not None else _dt.datetime.now().astimezone()
    return moment.replace(microsecond=0)


def when(text: str, zone: _dt.tzinfo | None = None) -> _dt.datetime | LocalDay:
    """`text` (``now``, a date, a date-time) → an aware ``datetime`` or a ``LocalDay``, for ``cast(date=…)``."""
    if isinstance(text, str) and text.strip().lower() == "now":
        return now(zone)
    value = parse_iso(text)
    if not isinstance(value, _dt.datetime):
        return LocalDay(value, zone)
    if value.tzinfo is not None:
        return value
    return _localise(value, zone, text)


def _localise(naive: _dt.datetime, zone: _dt.tzinfo | None, text: str) -> _dt.datetime:
    """Wall-clock time in `zone` → the instant; refused where the clocks skipped it or showed it twice."""
    def attach(fold: int) -> _dt.datetime:
        moment = naive.replace(fold=fold)
        return moment.astimezone() if zone is None else moment.replace(tzinfo=zone)

    early, late = attach(0), attach(1)
    name = "this machine's time zone" if zone is None else str(zone)
    if early.astimezone(_dt.timezone.utc).astimezone(zone).replace(tzinfo=None) != naive:
        raise BadDate(f"date {text!r} does not exist in {name}: the clocks skipped it (daylight saving); give the "
                      "time with its offset", field="date", value=text)
    if early.utcoffset() != late.utcoffset():
        offsets = " or ".join(_offset(m) for m in (early, late))
        raise BadDate(f"date {text!r} happened twice in {name} (the clocks went back): add its offset, "
                      f"{offsets}", field="date", value=text)
    return early


def _offset(moment: _dt.datetime) -> str:
    return moment.isoformat(timespec="minutes")[-6:]
