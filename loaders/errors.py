"""Errors raised while reading a cast from user input.

Every error is a :class:`CastInputError` (a :class:`ValueError`) with

* ``field`` – the input field at fault (``"spec"``, ``"lines"``, ``"month"``, ``"day"``, ``"year"``,
  ``"birth"``, ``"date"``, ``"topic"``, ``"day_boundary"``, ``"id"`` …),
* ``value`` – the offending value as given,
* a message naming the problem and that value.

Batch readers may attach ``record_id`` and ``line`` (1-based line in the batch file); ``str(err)``
then starts with ``record <id>, line <n>, field <field>: ``.
"""
from __future__ import annotations

from typing import Any

#: the longest error message kept (a message quotes the bad value; a record can be megabytes long)
MAX_MESSAGE = 400


def shorten(text: str, limit: int = MAX_MESSAGE) -> str:
    """`text` cut in the middle to at most about `limit` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    keep = max(limit // 2 - 20, 10)
    return f"{text[:keep]} …[{len(text) - 2 * keep:,} characters omitted]… {text[-keep:]}"


def _short_value(value: Any) -> Any:
    if isinstance(value, str):
        return shorten(value, 120)
    if isinstance(value, (int, float, bool)) or value is None:
        return value if not isinstance(value, int) or value.bit_length() < 256 else shorten(str(value), 120)
    return shorten(object.__repr__(value) if isinstance(value, (list, dict)) and len(value) > 100 else repr(value), 120)


class CastInputError(ValueError):
    """Base of every input error. ``field`` names the input, ``value`` the offending value (shortened)."""

    #: messages longer than this are cut in the middle (None: kept whole)
    limit: int | None = MAX_MESSAGE

    def __init__(self, message: str, *, field: str | None = None, value: Any = None) -> None:
        message = shorten(message, self.limit) if self.limit else message
        super().__init__(message)
        self.message = message
        self.field = field
        self.value = _short_value(value)
        self.record_id: str | None = None
        self.line: int | None = None

    def __str__(self) -> str:
        where = []
        if self.record_id is not None:
            where.append(f"record {self.record_id!r}")
        if self.line is not None:
            where.append(f"line {self.line}")
        if where and self.field not in (None, "record", "batch"):
            where.append(f"field {self.field}")
        if where:
            return f"{', '.join(where)}: {self.message}"
        return self.message


class UnknownHexagram(CastInputError):
    """A hexagram name (or line pattern) that is none of the 64."""


class BadLineValue(CastInputError):
    """A line value other than 6, 7, 8, 9, a bad notation symbol, or not six lines."""


class ImpossibleStemBranch(CastInputError):
    """A stem-branch pair outside the sixty jiazi (stem and branch of different parity)."""


class UnknownStem(CastInputError):
    """A character that is not one of the ten heavenly stems."""


class UnknownBranch(CastInputError):
    """A character that is not one of the twelve earthly branches."""


class InconsistentCast(CastInputError):
    """Two parts of the input that disagree (a name pair and line values, a date and a pillar …)."""


class BadDate(CastInputError):
    """A malformed date-time or time zone, a date-time without a time-zone offset, or a bad day boundary."""


class AmbiguousDay(BadDate):
    """A date without a time on the day a 節 turns the month: ``sides`` are the day's pillars before and after it,
    so that a month given beside the date can choose."""

    def __init__(self, message: str, *, sides: tuple = (), field: str | None = "date", value: Any = None) -> None:
        super().__init__(message, field=field, value=value)
        self.sides = sides


class UnknownTopic(CastInputError):
    """A question that is not in the question scheme (``tables.QUESTIONS``, by name or synonym)."""


class UnknownSubject(CastInputError):
    """Whom a question concerns (來者) that is neither a name of ``tables.SUBJECTS`` nor one of its other names."""


class UnknownSchool(CastInputError):
    """A --school that is not one of the schools disagreeing on the question's use-god."""


class BadUseGod(CastInputError):
    """A --use-god that is neither a relative nor a line position 1–6."""


class BadSex(CastInputError):
    """An asker's sex other than 男 / 女 (or m / f, male / female)."""


class MissingField(CastInputError):
    """A required input is missing (kept for callers; a cast may now omit its month and day)."""


class UnknownCastId(CastInputError):
    """An id (record id, hash, IRI) that names no stored cast, or more than one."""


class DuplicateRecordId(CastInputError):
    """A batch record re-uses an id already used earlier in the same file."""


class BatchError(CastInputError):
    """A batch that cannot be read, or (``on_error="abort"``) one with rejected records.

    ``problems`` holds every rejected record's error (each with ``record_id`` and ``line``).
    """

    limit = None  # its own line is shortened; each listed problem is already short

    def __init__(self, message: str, problems: list[CastInputError] | None = None, *,
                 field: str | None = "batch", value: Any = None) -> None:
        self.problems = list(problems or [])
        message = shorten(message)
        if self.problems:
            message = message + "\n" + "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(message, field=field, value=value)
