"""Stem-branch (干支) input: validation and normalisation of the month, day, year and birth pillars.

* a stem-branch is two characters, a stem then a branch, of the same parity (yang stem with yang
  branch): 甲子 is one of the sixty jiazi, 甲丑 is not;
* the month may be a branch (``"寅"``) or a stem-branch (``"丙寅"``);
* the day must be a full stem-branch;
* the year is a stem-branch;
* the birth (本命) may be a branch or a stem-branch (its branch is taken).
"""
from __future__ import annotations

from liuyao_kg.ontology import tables

from .errors import ImpossibleStemBranch, UnknownBranch, UnknownStem

__all__ = [
    "parse_stem_branch", "parse_branch", "parse_month", "parse_day", "parse_year", "parse_birth",
    "month_stem_for_year", "stem_branch_id", "branch_id",
]



def _text(value, field: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise UnknownBranch(f"{field} {value!r} is not a stem-branch or branch string", field=field, value=value)
    return value.strip()


def parse_branch(value, *, field: str = "branch") -> str:
    """A single earthly branch (子 … 亥)."""
    text = _text(value, field)
    if len(text) != 1 or text not in tables.BRANCHES:
        raise UnknownBranch(f"{field} {value!r} is not one of the twelve branches {tables.BRANCHES}",
                            field=field, value=value)
    return text


def parse_stem_branch(value, *, field: str = "stem-branch") -> tuple[str, str]:
    """A stem-branch such as ``"辛亥"`` → ``("辛", "亥")``; validates stem, branch and parity."""
    text = _text(value, field)
    if len(text) != 2:
        raise ImpossibleStemBranch(
            f"{field} {value!r} is not a stem-branch: expected two characters, a stem (甲…癸) then a branch (子…亥)",
            field=field, value=value)
    stem, branch = text[0], text[1]
    if stem not in tables.STEMS:
        raise UnknownStem(f"{field} {value!r}: {stem!r} is not one of the ten stems {tables.STEMS}",
                          field=field, value=value)
    if branch not in tables.BRANCHES:
        raise UnknownBranch(f"{field} {value!r}: {branch!r} is not one of the twelve branches {tables.BRANCHES}",
                            field=field, value=value)
    s, b = tables.STEMS.index(stem), tables.BRANCHES.index(branch)
    if s % 2 != b % 2:
        kind = "yang" if s % 2 == 0 else "yin"
        raise ImpossibleStemBranch(
            f"{text} is not one of the 60 jiazi: a {kind} stem pairs only with a {kind} branch",
            field=field, value=value)
    return stem, branch


def parse_month(value) -> tuple[str, str | None]:
    """Month as a branch or a stem-branch → ``(branch, stem-branch or None)``."""
    text = _text(value, "month")
    if len(text) == 1:
        return parse_branch(text, field="month"), None
    stem, branch = parse_stem_branch(text, field="month")
    return branch, stem + branch


def parse_day(value) -> str:
    """Day as a full stem-branch (the day stem decides the six spirits, so a branch is not enough)."""
    text = _text(value, "day")
    if len(text) == 1 and text in tables.BRANCHES:
        raise ImpossibleStemBranch(
            f"day {value!r} is only a branch: the day needs its stem too (e.g. 辛亥)", field="day", value=value)
    stem, branch = parse_stem_branch(text, field="day")
    return stem + branch


def parse_year(value) -> str:
    """Year as a stem-branch."""
    stem, branch = parse_stem_branch(value, field="year")
    return stem + branch


def parse_birth(value) -> str:
    """Birth (本命) as a branch or a stem-branch → its branch."""
    text = _text(value, "birth")
    if len(text) == 1:
        return parse_branch(text, field="birth")
    return parse_stem_branch(text, field="birth")[1]


def month_stem_for_year(year_stem: str, month_branch: str) -> str:
    """五虎遁: the stem of a solar month in a year (by 立春) with the given stem.

    甲己之年丙作首: the 寅 month of a 甲 or 己 year is 丙寅, and the stems run on through 丑.
    """
    first = (tables.STEMS.index(year_stem) % 5) * 2 + 2  # stem of the 寅 month
    offset = (tables.BRANCHES.index(month_branch) - 2) % 12
    return tables.STEMS[(first + offset) % 10]


def branch_id(branch: str) -> str:
    """``"寅"`` → ``"Yin"`` (tables.BRANCH_IDS)."""
    return tables.BRANCH_IDS[tables.BRANCHES.index(branch)]


def stem_branch_id(gz: str) -> str:
    """``"辛亥"`` → ``"XinHai"`` (the lyr:GZ_ local name without the prefix)."""
    return tables.STEM_IDS[tables.STEMS.index(gz[0])] + branch_id(gz[1])
