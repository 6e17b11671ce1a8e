"""A cast spec → six line values (bottom-up) and the primary / changed King Wen numbers.

Accepted specs (whitespace around the parts is ignored):

* line values bottom-up: ``"787986"`` (also ``"7 8 7 9 8 6"`` or ``"7,8,7,9,8,6"``);
* 單拆重交 coin notation, six symbols bottom-up: 單=7, 拆=8, 重=9 (also ``〇`` ``○``), 交=6
  (also ``×`` ``x`` ``X``), e.g. ``"單單拆重拆交"``;
* a hexagram name – short (``"節"``), full (``"水澤節"``, ``"坎為水"``), simplified
  (``"节"``, ``"水泽节"``, ``"坎为水"``): no moving line;
* a name pair ``"節之中孚"`` / ``"節→中孚"`` / ``"節 之 中孚"`` / ``"節->中孚"``: the moving lines
  are where the two differ (yang → yin is 9, yin → yang is 6).

An optional ``lines=`` (values, as a string or a sequence of ints) may accompany the spec:

* with a name pair it must give exactly the same values, else :class:`InconsistentCast`;
* with a single name it must have that name as its primary hexagram (it then supplies the
  moving lines the name alone cannot give);
* with values or notation it must give the same values.
"""
from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import Iterable

from liuyao_kg.ontology import tables

from .errors import BadLineValue, InconsistentCast, UnknownHexagram

__all__ = [
    "LineSpec", "parse_lines", "parse_values", "hexagram_number", "hexagram_name",
    "pattern_of", "number_of_pattern", "normalise_name",
]

NOTATION = {"單": 7, "单": 7, "拆": 8, "重": 9, "〇": 9, "○": 9, "交": 6, "×": 6, "x": 6, "X": 6}
_PAIR_SPLIT = re.compile(r"\s*(?:之|→|->|⟶|➝)\s*")

# pattern (bottom-up, 1 = yang) → King Wen number; names → number.
_PATTERN_TO_NUMBER: dict[tuple[int, ...], int] = {}
_NAME_TO_NUMBER: dict[str, int] = {}
_NUMBER_TO_NAME: dict[int, str] = {}
for _num, _short, _upper, _lower, *_ in tables.HEXAGRAMS:
    _PATTERN_TO_NUMBER[tables.hexagram_lines(_upper, _lower)] = _num
    _NAME_TO_NUMBER[_short] = _num
    _NAME_TO_NUMBER[tables.full_name(_short, _upper, _lower)] = _num
    _NUMBER_TO_NAME[_num] = _short
assert len(_PATTERN_TO_NUMBER) == 64


@dataclass(frozen=True)
class LineSpec:
    """Six line values bottom-up, the primary King Wen number and the changed one (None if static)."""

    values: tuple[int, ...]
    primary: int
    changed: int | None

    @property
    def primary_name(self) -> str:
        return _NUMBER_TO_NAME[self.primary]

    @property
    def changed_name(self) -> str | None:
        return None if self.changed is None else _NUMBER_TO_NAME[self.changed]

    @property
    def moving(self) -> tuple[int, ...]:
        """Positions (1..6) of the moving lines."""
        return tuple(i + 1 for i, v in enumerate(self.values) if v in (6, 9))


def normalise_name(name: str) -> str:
    """Map simplified / variant characters to the traditional forms used in the graph."""
    return "".join(tables.NAME_VARIANTS.get(ch, ch) for ch in name.strip())


def hexagram_number(name: str, *, field: str = "spec") -> int:
    """King Wen number of a hexagram name (short, full, simplified); UnknownHexagram otherwise."""
    key = normalise_name(name)
    try:
        return _NAME_TO_NUMBER[key]
    except KeyError:
        raise UnknownHexagram(
            f"unknown hexagram name {name!r}: expected one of the 64 names, short (節) or full (水澤節, 坎為水)",
            field=field, value=name) from None


def hexagram_name(number: int) -> str:
    """Short traditional name of a King Wen number."""
    return _NUMBER_TO_NAME[number]


def pattern_of(number: int) -> tuple[int, ...]:
    """Yang/yin pattern bottom-up (1 = yang) of a King Wen number."""
    for pattern, num in _PATTERN_TO_NUMBER.items():
        if num == number:
            return pattern
    raise UnknownHexagram(f"King Wen number {number} is not 1..64", field="spec", value=number)


def number_of_pattern(pattern: Iterable[int]) -> int:
    return _PATTERN_TO_NUMBER[tuple(pattern)]


def _check_values(values: list[int], given, field: str) -> tuple[int, ...]:
    if len(values) != 6:
        raise BadLineValue(f"{given!r} gives {len(values)} line(s): a cast needs exactly six, bottom-up",
                           field=field, value=given)
    for pos, v in enumerate(values, 1):
        if v not in (6, 7, 8, 9):
            raise BadLineValue(f"line value {v} at position {pos}: must be 6, 7, 8 or 9",
                               field=field, value=given)
    return tuple(values)


#: full-width digits (what a CJK input method types) are read as ASCII digits; no other digit form is
_FULL_WIDTH = {0xFF10 + i: str(i) for i in range(10)}


def ascii_digits(text: str, *, field: str, what: str = "value") -> str:
    """`text` with full-width digits (０–９) as ASCII; BadLineValue for any other non-ASCII digit.

    Circled, superscript, subscript, double-circled or other scripts' digits (①, ⁷, ₇, ⓻, ٧) are refused by
    name rather than guessed at: NFKC would read ① as 1 but leaves ⓻ alone, and int() refuses both."""
    text = text.translate(_FULL_WIDTH)
    for pos, ch in enumerate(text, 1):
        if (ch.isdigit() or ch.isnumeric()) and not ch.isascii() and ch not in NOTATION:
            import unicodedata

            raise BadLineValue(f"{ch!r} ({unicodedata.name(ch, 'a digit')}) at position {pos} of the {what}: "
                               f"write digits as 0–9 (full-width ０–９ are also read)", field=field, value=text)
    return text


def parse_values(given, *, field: str = "lines") -> tuple[int, ...]:
    """Six values bottom-up from ``"787986"``, ``"7 8 7 9 8 6"``, ``[7, 8, 7, 9, 8, 6]`` or notation."""
    if isinstance(given, bool):
        raise BadLineValue(f"{given!r} is not a line-value list", field=field, value=given)
    if isinstance(given, (bytes, bytearray, memoryview)):  # iterated, b"7" would be the line value 55
        raise BadLineValue(f"{field} {given!r} is {type(given).__name__}: give text (a str; decode the bytes "
                           "first, e.g. as UTF-8)", field=field, value=given)
    if isinstance(given, int):
        given = str(given)
    if isinstance(given, str):
        text = ascii_digits(re.sub(r"[\s,;/|-]", "", given), field=field, what="line values")
        if not text:
            raise BadLineValue("empty line values: a cast needs six values bottom-up, e.g. 787986",
                               field=field, value=given)
        values: list[int] = []
        for pos, ch in enumerate(text, 1):
            if ch in "0123456789":
                values.append(int(ch))
            elif ch in NOTATION:
                values.append(NOTATION[ch])
            else:
                raise BadLineValue(
                    f"symbol {ch!r} at position {pos} of {given!r}: use the values 6 7 8 9 or 單 拆 重 交",
                    field=field, value=given)
        return _check_values(values, given, field)
    try:
        items = list(given)
    except TypeError:
        raise BadLineValue(f"{given!r} is not a line-value list", field=field, value=given) from None
    values = []
    for pos, item in enumerate(items, 1):
        if isinstance(item, str):
            item = ascii_digits(item.strip(), field=field, what="line values")
            try:
                values.append(int(item))
                continue
            except ValueError:
                pass
        elif not isinstance(item, bool):
            try:  # an int, or an integer type of its own (numpy's); never a float, not even 7.0: int() truncates
                values.append(operator.index(item))
                continue
            except TypeError:
                pass
        what = "" if isinstance(item, (str, bool)) or item is None else f" (a whole number, not a {type(item).__name__})"
        raise BadLineValue(f"line value {item!r} at position {pos}: must be 6, 7, 8 or 9{what}",
                           field=field, value=given)
    return _check_values(values, given, field)


def _hexagrams_of(values: tuple[int, ...]) -> tuple[int, int | None]:
    primary = tuple(1 if v in (7, 9) else 0 for v in values)
    changed = tuple(1 if v in (7, 6) else 0 for v in values)
    p = _PATTERN_TO_NUMBER[primary]
    c = _PATTERN_TO_NUMBER[changed]
    return p, (c if any(v in (6, 9) for v in values) else None)


def _values_of_pair(primary: int, changed: int | None) -> tuple[int, ...]:
    a = pattern_of(primary)
    b = pattern_of(changed) if changed is not None else a
    out = []
    for x, y in zip(a, b):
        if x == y:
            out.append(7 if x else 8)
        else:
            out.append(9 if x else 6)
    return tuple(out)


def _fmt(values: tuple[int, ...]) -> str:
    return "".join(map(str, values))


def parse_lines(spec, *, lines=None) -> LineSpec:
    """Parse a cast spec (values, notation, name, name pair) with optional ``lines=`` values."""
    if spec is None or (isinstance(spec, str) and not spec.strip()):
        if lines is None:
            raise BadLineValue("no cast given: pass a spec (787986, 單拆重交, 節, 節之中孚) or lines=",
                               field="spec", value=spec)
        values = parse_values(lines, field="lines")
        p, c = _hexagrams_of(values)
        return LineSpec(values, p, c)

    if not isinstance(spec, str):
        values = parse_values(spec, field="spec")
    else:
        text = spec.strip()
        parts = _PAIR_SPLIT.split(text)
        if len(parts) > 2:
            raise UnknownHexagram(f"{spec!r}: a name pair has exactly one 之 (or →), e.g. 節之中孚",
                                  field="spec", value=spec)
        if len(parts) == 2:
            if not parts[0] or not parts[1]:
                raise UnknownHexagram(f"{spec!r}: a name pair needs a name on both sides of 之, e.g. 節之中孚",
                                      field="spec", value=spec)
            p = hexagram_number(parts[0])
            c = hexagram_number(parts[1])
            if p == c:
                raise InconsistentCast(
                    f"{spec!r}: the changed hexagram is the primary itself, so no line moves; "
                    f"write {hexagram_name(p)} alone for a cast without moving lines",
                    field="spec", value=spec)
            values = _values_of_pair(p, c)
        elif _looks_like_values(text):
            values = parse_values(text, field="spec")
        else:
            p = hexagram_number(text)
            if lines is not None:
                given = parse_values(lines, field="lines")
                gp, gc = _hexagrams_of(given)
                if gp != p:
                    raise InconsistentCast(
                        f"spec {spec!r} names {hexagram_name(p)} but lines={_fmt(given)} make "
                        f"{hexagram_name(gp)}", field="lines", value=lines)
                return LineSpec(given, gp, gc)
            values = _values_of_pair(p, None)

    if lines is not None:
        given = parse_values(lines, field="lines")
        if given != values:
            gp, gc = _hexagrams_of(given)
            made = hexagram_name(gp) + ("" if gc is None else "之" + hexagram_name(gc))
            raise InconsistentCast(
                f"spec {spec!r} gives the values {_fmt(values)} but lines={_fmt(given)} "
                f"({made}) disagree", field="lines", value=lines)
    p, c = _hexagrams_of(values)
    return LineSpec(values, p, c)


def _looks_like_values(text: str) -> bool:
    stripped = re.sub(r"[\s,;/|-]", "", text)
    return bool(stripped) and all(ch.isdigit() or ch.isnumeric() or ch in NOTATION for ch in stripped)
