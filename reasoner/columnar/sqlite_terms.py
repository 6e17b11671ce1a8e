"""The SPARQL operators of terms.py's DuckDB macros as Python functions, for the SQLite back end.

The columnar back end's generated SQL calls the macros of terms.py (`nt_int`, `nt_eq`, …) and a few
DuckDB built-ins (`strpos`, `error`, `any_value`, `arg_max`, `arg_min`). SQLite runs the same SQL once
`install(con)` has registered a Python function of the same name and arity for each. terms.py stays the
specification: every function here implements its macro's SQL expression exactly, DuckDB's evaluation
included (three-valued CASE conditions, `t[1]`/`t[-1]`, 1-based `substr` with negative lengths,
`TRY_CAST(… AS BIGINT)`'s grammar, RE2's `$` and `\\s`, the JSON decoding of escapes), and
tests/test_sqlite_terms.py holds the two equal term by term against DuckDB.

Results: NULL is None, a BOOLEAN a Python bool (SQLite stores it as 1/0, which the SQL only tests for
truth), a BIGINT an int, a VARCHAR a str.

Where DuckDB raises, so do these functions, with exceptions of this module; SQLite turns an exception
in a user function into `sqlite3.OperationalError("user-defined function raised exception")`, losing the
message, so the object `install` returns records the exception first (`last_error`, `take_refusal()`):

- `error(msg)` raises `TermOrderError(msg)` (DuckDB: InvalidInputException); `error(NULL)` is NULL,
  as in DuckDB.
- `nt_unesc` (and `nt_lex`, `nt_simple`, `nt_strlex`, `nt_iri`, which call it) raises
  `MalformedTermError` where DuckDB's `CAST(… AS JSON)` raises "Malformed JSON" (ConversionException):
  an escape JSON does not have (`\\x`, `\\'`, `\\U…`), a `\\u` without four hex digits, a lone or
  misordered UTF-16 surrogate, a raw control character (< U+0020) or an unescaped `"` in a string that
  also holds a backslash. Canonical N-Triples (pyoxigraph's `str(term)`) never holds any of these.
"""
from __future__ import annotations

import functools
import re
from json.decoder import scanstring as _json_scanstring

from .terms import BOOL_FALSE, BOOL_TRUE, CAST_NS, INT_SUFFIX, IRI_RE, KNOWN, SHORT, XSD, compact, expand

XSD_STRING = XSD + "string"
I64_MIN = -(1 << 63)
I64_MAX = (1 << 63) - 1


class TermOrderError(Exception):
    """`error(msg)` was called: the statement refuses its data (DuckDB's InvalidInputException)."""


class MalformedTermError(ValueError):
    """A string with a backslash that JSON cannot decode (DuckDB raises "Malformed JSON" there)."""


# --- DuckDB's string primitives ------------------------------------------------------------------


def _substr(s: str, offset: int, length: int) -> str:
    """DuckDB `substr(s, offset, length)` (SubstringUnicode: on code points): 1-based; offset 0 starts one
    character before the first; a negative offset counts from the end; a negative length takes the
    characters before `offset`."""
    if not (_SUBSTR_LO <= offset <= _SUBSTR_HI and _SUBSTR_LO <= length <= _SUBSTR_HI) or len(s) > _SUBSTR_HI:
        raise ValueError("Substring input, offset or length outside of the supported range")  # as DuckDB
    if length == 0:
        return ""
    if offset > 0:
        start = offset - 1
    elif offset < 0:
        start = offset
    else:
        start = 0
        length -= 1
        if length <= 0:
            return ""
    if length > 0:
        end = start + length
    else:
        end = start
        start += length
    if offset < 0:  # counted from the back
        n = len(s)
        if n + end <= 0:
            return ""
        return s[max(0, n + start):min(n, n + end)]
    start = max(0, start)
    if end <= 0 or end <= start:
        return ""
    return s[start:end]


_SUBSTR_HI = (1 << 32) - 1
_SUBSTR_LO = -_SUBSTR_HI - 1


# --- TRY_CAST(VARCHAR AS BIGINT) ------------------------------------------------------------------
# A port of DuckDB 2.0's TrySimpleIntegerCast<int64_t> (common/operator/integer_cast_operator.hpp, strict
# false): leading spaces (' ', \t, \n, \v, \f, \r) skipped, trailing ones too after at least one digit
# ('- ' and '4e ' are NULL); a leading '+' or '-'; one '_' between two digits ('1_000'); 0x/0X hex and
# 0b/0B binary, non-negative only ('-0x10', '+0x10' NULL); a decimal part rounded half away from zero
# ('1.5' → 2, '-2.5' → -3, '.5' → 1, '1.' → 1, '.' NULL); an int16 exponent ('1e3' → 1000, '1.5e1' → 15,
# '149e-2' → 1); anything outside int64 NULL ('9223372036854775807.5' too). Two passes as in DuckDB: a
# plain integer parse, then one with decimals and exponents. The plain form takes a fast path.

_SPACES = frozenset(" \t\n\v\f\r")
_DIGITS = {c: i for i, c in enumerate("0123456789")}
_HEX = {**_DIGITS, **{c: 10 + i for i, c in enumerate("abcdef")}, **{c: 10 + i for i, c in enumerate("ABCDEF")}}
_BIN = {"0": 0, "1": 1}
_SIGNS = frozenset("+-")
I16_MIN, I16_MAX = -(1 << 15), (1 << 15) - 1
_IDX_MASK = (1 << 64) - 1  # decimal_digits is an idx_t
_MAX_DECIMAL_DIGITS = 1 << 15  # -NumericLimits<int16_t>::Minimum(): more decimals are ignored
_INT64_DIGITS = 19  # NumericLimits<int64_t>::Digits()


def _ctrunc(a: int, b: int) -> int:
    """C++ integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _cmod(a: int, b: int) -> int:
    """C++ `%` (takes the sign of the dividend)."""
    return a - b * _ctrunc(a, b)


def _push_digit(result: int, d: int, negative: bool, lo: int, hi: int) -> int | None:
    """result·10 ± d, or None when it leaves [lo, hi] (DuckDB's overflow checks, in C++ arithmetic)."""
    if negative:
        return None if result < _ctrunc(lo + d, 10) else result * 10 - d
    return None if result > (hi - d) // 10 else result * 10 + d


def _after_separator(s: str, pos: int, n: int) -> int | None:
    """Past one `_` between digits (`1_000`); None when it is not followed by a digit."""
    if pos != n and s[pos] == "_":
        pos += 1
        if pos == n or s[pos] not in _DIGITS:
            return None
    return pos


def _skip_trailing_spaces(s: str, pos: int, n: int) -> bool:
    """At a space after the number: whether only spaces follow."""
    pos += 1
    while pos < n:
        if s[pos] not in _SPACES:
            return False
        pos += 1
    return True


def _simple_loop(s: str, i: int, n: int, negative: bool, lo: int, hi: int) -> int | None:
    """IntegerCastLoop with IntegerCastOperation (no decimal digits, no exponent) on s[i:n]; None: false."""
    start = i + 1 if negative or s[i] == "+" else i
    pos = start
    result = 0
    while pos < n:
        c = s[pos]
        d = _DIGITS.get(c)
        if d is None:
            if c == ".":
                before = pos > start
                pos += 1
                if pos < n and s[pos] in _DIGITS:  # HandleDecimal refuses a decimal digit
                    return None
                if not before:
                    return None
                if pos >= n:
                    break
                c = s[pos]
            if c in _SPACES:
                if pos == start or not _skip_trailing_spaces(s, pos, n):
                    return None
                pos = n
                break
            return None
        pos += 1
        result = _push_digit(result, d, negative, lo, hi)
        if result is None:
            return None
        pos = _after_separator(s, pos, n)
        if pos is None:
            return None
    return result if pos > start else None


def _finalize(result: int, decimal: int, digits: int, negative: bool) -> int | None:
    """IntegerDecimalCastOperation::Finalize: round on the first remaining decimal digit."""
    while decimal > 10:
        decimal = _ctrunc(decimal, 10)
        digits = (digits - 1) & _IDX_MASK
    if digits == 1 and decimal >= 5:
        result = result - 1 if negative else result + 1
        if not I64_MIN <= result <= I64_MAX:
            return None
    return result


def _handle_exponent(result: int, decimal: int, digits: int, exponent: int, negative: bool) -> int | None:
    """IntegerDecimalCastOperation::HandleExponent (int64 store)."""
    if exponent < 0:
        e = exponent
        while e < 0:
            e += 1
            decimal = _cmod(result, 10)
            result = _ctrunc(result, 10)
            if result == 0 and decimal == 0:
                break
        if decimal < 0:
            decimal = -decimal
        return _finalize(result, decimal, 1, negative)
    e = exponent
    while result != 0 and e > 0:
        e -= 1
        result *= 10
        if not I64_MIN <= result <= I64_MAX:
            return None
    if decimal == 0:
        return _finalize(result, decimal, digits, negative)
    shift = exponent - digits
    remainder = 0
    if shift < 0:
        if -shift < _INT64_DIGITS:
            power = 10 ** -shift
            remainder = _cmod(decimal, power)
            decimal = _ctrunc(decimal, power)
        else:
            remainder = decimal
            decimal = 0
    else:
        while shift > 0:
            shift -= 1
            decimal *= 10
            if not I64_MIN <= decimal <= I64_MAX:
                return None
    digits = (digits - exponent) & _IDX_MASK
    result = result - decimal if negative else result + decimal
    if not I64_MIN <= result <= I64_MAX:
        return None
    return _finalize(result, remainder, digits, negative)


def _decimal_loop(s: str, i: int, n: int, negative: bool) -> int | None:
    """IntegerCastLoop with IntegerDecimalCastOperation and exponents on s[i:n]; None: false."""
    start = i + 1 if negative or s[i] == "+" else i
    pos = start
    result = decimal = digits = 0
    while pos < n:
        c = s[pos]
        d = _DIGITS.get(c)
        if d is None:
            if c == ".":
                before = pos > start
                pos += 1
                first = pos
                while pos < n:
                    d = _DIGITS.get(s[pos])
                    if d is None:
                        break
                    if digits != _MAX_DECIMAL_DIGITS and decimal <= (I64_MAX - d) // 10:  # else ignored
                        digits += 1
                        decimal = decimal * 10 + d
                    pos = _after_separator(s, pos + 1, n)
                    if pos is None:
                        return None
                if not (before or pos > first):
                    return None
                if pos >= n:
                    break
                c = s[pos]
            if c in _SPACES:
                if pos == start or not _skip_trailing_spaces(s, pos, n):
                    return None
                pos = n
                break
            if c == "e" or c == "E":
                if pos == start:
                    return None
                pos += 1
                if pos >= n:
                    return None
                exponent = _simple_loop(s, pos, n, s[pos] == "-", I16_MIN, I16_MAX)
                if exponent is None:
                    return None
                return _handle_exponent(result, decimal, digits, exponent, negative)
            return None
        pos += 1
        result = _push_digit(result, d, negative, I64_MIN, I64_MAX)
        if result is None:
            return None
        pos = _after_separator(s, pos, n)
        if pos is None:
            return None
    if pos <= start:
        return None
    return _finalize(result, decimal, digits, negative)


def _radix_loop(s: str, i: int, n: int, table: dict, base: int) -> int | None:
    """IntegerHexCastLoop / IntegerBinaryCastLoop on s[i:n] (s[i] is the 'x' or 'b')."""
    start = pos = i + 1
    result = 0
    while pos < n:
        d = table.get(s[pos])
        if d is None:
            return None
        pos += 1
        if pos != n and s[pos] == "_":
            pos += 1
            if pos == n or s[pos] not in table:
                return None
        if result > (I64_MAX - d) // base:
            return None
        result = result * base + d
    return result if pos > start else None


def try_cast_bigint(s: str | None) -> int | None:
    """DuckDB `TRY_CAST(s AS BIGINT)` for a VARCHAR s."""
    if s is None:
        return None
    body = s[1:] if s[:1] in _SIGNS else s
    if len(body) <= 19 and body.isascii() and body.isdigit():  # [+-]?[0-9]{1,19}: the plain form
        v = int(s)
        return v if I64_MIN <= v <= I64_MAX else None
    n = len(s)
    i = 0
    while i < n and s[i] in _SPACES:
        i += 1
    if i == n:
        return None
    c = s[i]
    if c == "-":
        v = _simple_loop(s, i, n, True, I64_MIN, I64_MAX)
        return v if v is not None else _decimal_loop(s, i, n, True)
    if n - i > 1 and c == "0":
        c1 = s[i + 1]
        if c1 == "x" or c1 == "X":
            return _radix_loop(s, i + 1, n, _HEX, 16)
        if c1 == "b" or c1 == "B":
            return _radix_loop(s, i + 1, n, _BIN, 2)
    v = _simple_loop(s, i, n, False, I64_MIN, I64_MAX)
    return v if v is not None else _decimal_loop(s, i, n, False)


# --- CAST(x AS VARCHAR) for the values SQLite passes ------------------------------------------------


def _varchar(v) -> str:
    """DuckDB `CAST(v AS VARCHAR)` of an integer (BIGINT/HUGEINT), a double or a string. A double is
    written as Python's repr, which is DuckDB's shortest round-trip form ('1e+16', '0.1', 'inf')."""
    if isinstance(v, str):
        return v
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    raise TypeError(f"no DuckDB VARCHAR form for a {type(v).__name__}")


# --- the macros of terms.py -----------------------------------------------------------------------

_INT_SUFFIX_LEN = len(INT_SUFFIX)
_INT_LEX_LEN = _INT_SUFFIX_LEN + 1  # the macro's `length(t) - {len(INT_SUFFIX) + 1}`
_BOOL = {BOOL_TRUE[0]: True, BOOL_TRUE[1]: True, BOOL_FALSE[0]: False, BOOL_FALSE[1]: False}
_KNOWN = frozenset(KNOWN)
_BOOL_TERM = (BOOL_FALSE[0], BOOL_TRUE[0])  # what bool_term writes for FALSE, TRUE
# RE2 anchors `$` at the end of the text only (Python's `$` also before a final newline): `\Z`
_LEX_RE = re.compile(r'"(.*)"(@[^"]*|\^\^<[^>]*>)?\Z').match
_STRLEX_RE = re.compile(r'"(.*)"@[A-Za-z0-9-]+').fullmatch
_DT_RE = re.compile(r"\^\^<([^>]*)>\Z").search
# terms.IRI_RE in Python: RE2's \s is [\t\n\f\r ] (ASCII, no \v), Python's any Unicode space. For the
# IRI_RE this was written against, an equivalent form that does not backtrack (possessive: the two
# alternatives start with different characters); for another one, the literal translation.
_IRI_RE_AS_WRITTEN = r'[A-Za-z][A-Za-z0-9+.\-]*:([^\s<>"{}|^`\\%]|%[0-9A-Fa-f]{2})*'
if IRI_RE == _IRI_RE_AS_WRITTEN:
    _IRI_PY = r'[A-Za-z][A-Za-z0-9+.\-]*+:(?:[^\t\n\f\r <>"{}|^`\\%]++|%[0-9A-Fa-f]{2})*+'
else:  # pragma: no cover - terms.IRI_RE changed; tests/test_sqlite_terms.py checks the translation
    _IRI_PY = IRI_RE.replace(r"\s", r"\t\n\f\r ")
_IRI_FULL = re.compile(_IRI_PY).fullmatch
_SURROGATE = re.compile("[\ud800-\udfff]").search


def nt_int(t):
    """The integer value of an xsd:integer literal, else None."""
    if t is None or not t.endswith(INT_SUFFIX):
        return None
    n = len(t)
    lex = t[1:n - _INT_SUFFIX_LEN] if n > _INT_LEX_LEN else _substr(t, 2, n - _INT_LEX_LEN)
    return try_cast_bigint(lex)


def int_term(i):
    """The xsd:integer literal of an integer."""
    if i is None:
        return None
    return '"' + _varchar(i) + INT_SUFFIX


def bool_term(b):
    """The xsd:boolean literal of a truth value (SQLite's 1/0; any non-zero number is true)."""
    if b is None:
        return None
    if not isinstance(b, (int, float)):
        raise TypeError(f"bool_term of a {type(b).__name__}")
    return _BOOL_TERM[1] if b else _BOOL_TERM[0]


def nt_unesc(s):
    """A string with its N-Triples (JSON) escapes decoded; raises MalformedTermError where DuckDB's JSON
    cast raises."""
    if s is None or "\\" not in s:
        return s
    doc = '"' + s + '"'
    try:
        value, end = _json_scanstring(doc, 1, True)
    except ValueError as e:
        raise MalformedTermError(f"Malformed JSON: {e.args[0] if e.args else e}: {doc!r}") from None
    if end != len(doc):
        raise MalformedTermError(f"Malformed JSON: unexpected content after document: {doc!r}")
    if "\\u" in s and _SURROGATE(value):
        raise MalformedTermError(f"Malformed JSON: unpaired surrogate in string: {doc!r}")
    return value


def nt_expand(t):
    """A stored term in full (terms.expand; NULL stays NULL)."""
    return None if t is None else expand(t)


def nt_compact(t):
    """A full term as stored (terms.compact; NULL stays NULL)."""
    return None if t is None else compact(t)


def iri_lex(t):
    """STR() of an IRI as stored: its full text; None for anything else."""
    if t is None:
        return None
    if t.startswith(SHORT):
        return CAST_NS + _substr(t, len(SHORT) + 1, len(t) - len(SHORT) - 1)
    if t[:1] == "<":
        return t[1:-1] if len(t) > 2 else _substr(t, 2, len(t) - 2)
    return None


def nt_lex(t):
    """STR(): an IRI's text or a literal's lexical form; None for a blank node."""
    if t is None:
        return None
    c = t[:1]
    if c == "<":
        return iri_lex(t)
    if c == '"':
        if t[-1:] == '"' and len(t) > 1 and "\n" not in t:  # a simple literal: what the regex extracts
            return nt_unesc(t[1:-1])
        m = _LEX_RE(t)
        return nt_unesc(m.group(1) if m else "")
    return None


def nt_simple(t):
    """The lexical form of a simple literal (xsd:string), else None."""
    if t is None or t[:1] != '"' or t[-1:] != '"':
        return None
    return nt_unesc(t[1:-1] if len(t) > 1 else _substr(t, 2, len(t) - 2))


def nt_strlex(t):
    """The lexical form of a string literal, simple or language-tagged, else None."""
    if t is None or t[:1] != '"':
        return None
    if t[-1:] == '"':
        return nt_unesc(t[1:-1] if len(t) > 1 else _substr(t, 2, len(t) - 2))
    m = _STRLEX_RE(t)
    return nt_unesc(m.group(1)) if m else None


def nt_dt(t):
    """A literal's datatype IRI (text), 'lang' for a language-tagged one; None for IRIs, blank nodes.
    NULL gives 'lang': every WHEN of the macro is NULL then, so its ELSE answers."""
    if t is None:
        return "lang"
    if t[:1] != '"':
        return None
    last = t[-1:]
    if last == '"':
        return XSD_STRING
    if last == ">":
        m = _DT_RE(t)
        return m.group(1) if m else ""
    return "lang"


def nt_bool(t):
    """The value of an xsd:boolean literal ('true'/'1', 'false'/'0'), else None."""
    return _BOOL.get(t)


def nt_ebv(t):
    """SPARQL's effective boolean value; None (error) where it has none."""
    b = _BOOL.get(t)
    if b is not None:
        return b
    i = nt_int(t)
    if i is not None:
        return i != 0
    if t is not None and t[:1] == '"' and t[-1:] == '"':
        return len(t) > 2
    return None


def nt_eq(a, b):
    """SPARQL `=` on two terms as pyoxigraph answers it (terms.py); None where it is an error. As the macro,
    NULL beside a literal of a known datatype (or beside NULL) is FALSE, beside a non-literal FALSE, beside
    a literal of an unknown datatype NULL."""
    if a is not None and a == b:
        return True
    # `a[1] <> '"' OR b[1] <> '"'`: TRUE as soon as one side is a non-NULL non-literal
    if (a is not None and a[:1] != '"') or (b is not None and b[:1] != '"'):
        return False
    # from here a NULL side has no integer or boolean value, and its nt_dt is 'lang' (see nt_dt)
    ia = nt_int(a)
    if ia is not None:
        ib = nt_int(b)
        if ib is not None:
            return ia == ib
    ba = _BOOL.get(a)
    if ba is not None:
        bb = _BOOL.get(b)
        if bb is not None:
            return ba == bb
    da = nt_dt(a)
    db = nt_dt(b)
    if da in _KNOWN and db in _KNOWN and (da != db or da == XSD_STRING or da == "lang"):
        return False
    return None


def iri_of(s):
    """The IRI term of a string that is an absolute IRI (terms.IRI_RE), else None."""
    if s is None or not _IRI_FULL(s):
        return None
    return (SHORT + s[len(CAST_NS):] if s.startswith(CAST_NS) else "<" + s) + ">"


def nt_iri(t):
    """An IRI term itself, or the IRI a simple literal spells, else None."""
    if t is None:
        return None
    c = t[:1]
    if c == "<":
        return t
    if c == '"' and t[-1:] == '"':
        return iri_of(nt_simple(t))
    return None


# --- DuckDB built-ins SQLite lacks ----------------------------------------------------------------


def strpos(string, search):
    """DuckDB `strpos`: the 1-based character index of the first occurrence, 0 if absent."""
    if string is None or search is None:
        return None
    return string.find(search) + 1


def error(msg):
    """DuckDB `error(msg)`: raises TermOrderError(msg); NULL for a NULL message (as DuckDB)."""
    if msg is None:
        return None
    raise TermOrderError(_varchar(msg))


def _sqlite_rank(v) -> int:
    # SQLite's order across storage classes: numbers < text < blobs
    return 0 if isinstance(v, (int, float)) else 1 if isinstance(v, str) else 2


class AnyValue:
    """`any_value(x)`: the first non-NULL x in the group's row order; NULL if there is none."""

    __slots__ = ("value",)

    def __init__(self):
        self.value = None

    def step(self, x):
        if self.value is None:
            self.value = x

    def finalize(self):
        return self.value


class ArgMax:
    """`arg_max(x, y)`: the x of the row with the largest y, rows with a NULL x or y ignored (as DuckDB's
    arg_max; arg_max_null would keep a NULL x); NULL if no row is left. Ties: the first such row in
    SQLite's row order wins (a later row replaces only on a strictly larger y), which is what DuckDB does
    on one thread; DuckDB's choice among ties is unspecified when it aggregates in parallel."""

    __slots__ = ("x", "y")
    LARGER = True

    def __init__(self):
        self.x = None
        self.y = None

    def step(self, x, y):
        if x is None or y is None:
            return
        best = self.y
        if best is None:
            self.x, self.y = x, y
            return
        if type(y) is type(best) or _sqlite_rank(y) == _sqlite_rank(best):
            better = y > best if self.LARGER else y < best
        else:
            better = (_sqlite_rank(y) > _sqlite_rank(best)) == self.LARGER
        if better:
            self.x, self.y = x, y

    def finalize(self):
        return self.x


class ArgMin(ArgMax):
    """`arg_min(x, y)`: as arg_max, for the smallest y (ties: the first such row)."""

    __slots__ = ()
    LARGER = False


#: name → (arity, function) of the scalar functions `install` registers
FUNCTIONS = {
    "nt_int": (1, nt_int),
    "int_term": (1, int_term),
    "bool_term": (1, bool_term),
    "nt_unesc": (1, nt_unesc),
    "nt_expand": (1, nt_expand),
    "nt_compact": (1, nt_compact),
    "iri_lex": (1, iri_lex),
    "nt_lex": (1, nt_lex),
    "nt_simple": (1, nt_simple),
    "nt_strlex": (1, nt_strlex),
    "nt_dt": (1, nt_dt),
    "nt_bool": (1, nt_bool),
    "nt_ebv": (1, nt_ebv),
    "nt_eq": (2, nt_eq),
    "iri_of": (1, iri_of),
    "nt_iri": (1, nt_iri),
    "strpos": (2, strpos),
    "error": (1, error),
}
#: name → (arity, aggregate class)
AGGREGATES = {"any_value": (1, AnyValue), "arg_max": (2, ArgMax), "arg_min": (2, ArgMin)}
#: the functions that can raise MalformedTermError (they decode escapes)
_DECODING = frozenset({"nt_unesc", "nt_lex", "nt_simple", "nt_strlex", "nt_iri"})


class Installed:
    """The functions registered on one connection, and the last exception one of them raised.

    SQLite reports any exception in a user function as `sqlite3.OperationalError` without its message;
    `last_error` holds the exception itself (TermOrderError or MalformedTermError), set just before it
    is raised. It is not cleared by later successful statements: read it (or `take_refusal()`) when a
    statement fails, and clear it (`last_error = None`) before relying on it again.
    """

    def __init__(self):
        self.last_error: Exception | None = None

    def take_refusal(self) -> bool:
        """Whether the last recorded exception is an `error()` call (a refusal); clears it."""
        e, self.last_error = self.last_error, None
        return isinstance(e, TermOrderError)


def _recording(fn, state: Installed):
    def recorded(t):
        try:
            return fn(t)
        except MalformedTermError as e:
            state.last_error = e
            raise
    recorded.__name__ = fn.__name__
    return recorded


#: results kept per function and connection: a statement calls a function on the same terms once per
#: row of every join it sits under (a rule on one cast's six lines called `nt_int` 492 times for 9
#: distinct terms), and the functions are pure (a term's value depends on its text alone)
CACHED_RESULTS = 1 << 14


def install(con) -> Installed:
    """Register every function and aggregate on a sqlite3 connection; returns their error record."""
    state = Installed()

    def recorded_error(msg):
        if msg is None:
            return None
        e = TermOrderError(_varchar(msg))
        state.last_error = e
        raise e

    for name, (nargs, fn) in FUNCTIONS.items():
        if name == "error":
            fn = recorded_error
        else:
            # typed: an integer and a real that compare equal are different terms (int_term(1) ≠ int_term(1.0))
            fn = functools.lru_cache(maxsize=CACHED_RESULTS, typed=True)(fn)
            if name in _DECODING:
                fn = _recording(fn, state)
        con.create_function(name, nargs, fn, deterministic=True)
    for name, (nargs, cls) in AGGREGATES.items():
        con.create_aggregate(name, nargs, cls)
    return state


__all__ = ["AGGREGATES", "FUNCTIONS", "Installed", "MalformedTermError", "TermOrderError", "install",
           "try_cast_bigint", *FUNCTIONS]
